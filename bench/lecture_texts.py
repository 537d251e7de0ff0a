"""Lecture-like texts in five languages for the speech benchmarks (bench/speech_wer.py,
bench/speech_int8.py), written for this project: in each language the same three
paragraphs, as a teacher would say them (biology: cellular respiration; physics: conservation
of energy; computing: binary search), about 300 words (Chinese: about 500 characters).

espeak-ng narrates them (``make_clips``). They say no numbers: Whisper writes "twenty" as
"20", which a word error rate counts as an error.

Mandarin is read with espeak-ng 1.51's ``cmn-latn-pinyin`` voice: its ``cmn`` voice turns the
characters into pinyin and then reads the pinyin with English sounds ("jin1 tian1" as
"dZIn w0n"), which Whisper hears as nothing or as English.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from tools.lecture_media import speak_all

TOPICS = ("biology", "physics", "computing")


@dataclass(frozen=True, slots=True)
class Lecture:
    language: str  # Whisper's code, what the model should detect
    voice: str  # espeak-ng's
    paragraphs: tuple[str, str, str]  # TOPICS, in order
    by_character: bool = False  # no spaces between words: error rate over characters


LECTURES: dict[str, Lecture] = {
    "en": Lecture(
        "en",
        "en-us",
        (
            "Today we look at how a cell turns food into energy. Inside almost every cell of "
            "an animal or a plant there are small bodies called mitochondria. They take sugar "
            "and oxygen and release carbon dioxide and water. The energy freed in this process "
            "is stored in a molecule called adenosine triphosphate, which the cell spends "
            "whenever it needs to move, to grow or to build proteins. Plants do the reverse in "
            "their chloroplasts: they capture the energy of sunlight and use it to build sugar "
            "from carbon dioxide and water. This is why we say that respiration and "
            "photosynthesis form a cycle.",
            "Let us now turn to energy in physics. When you lift a book from the floor to a "
            "shelf, you do work against gravity, and that work is stored as potential energy. "
            "If the book falls, the potential energy becomes kinetic energy, the energy of "
            "motion. Just before it hits the floor, almost all of it is kinetic. When it lands, "
            "the energy does not disappear: it becomes sound and a little heat in the floor and "
            "in the book. This is the law of conservation of energy, one of the most important "
            "ideas in all of science.",
            "Finally, a question from computing: how does a computer find a name in a very long "
            "sorted list? It could read every entry from the start, but that is "
            "slow. Binary search is much faster. It looks at the middle entry and compares it "
            "with the name it wants. If the name comes earlier in the alphabet, it keeps the "
            "first half of the list; otherwise it keeps the second half. Each step throws away "
            "half of what is left, so even a huge list needs only a few steps. The same "
            "idea appears in databases, in games and in debugging.",
        ),
    ),
    "es": Lecture(
        "es",
        "es",
        (
            "Hoy vamos a estudiar cómo una célula transforma el alimento en energía. Dentro de "
            "casi todas las células de un animal o de una planta hay pequeños orgánulos "
            "llamados mitocondrias. Toman azúcar y oxígeno, y liberan dióxido de carbono y "
            "agua. La energía que se libera en este proceso se guarda en una molécula llamada "
            "trifosfato de adenosina, que la célula gasta cuando necesita moverse, crecer o "
            "fabricar proteínas. Las plantas hacen lo contrario en sus cloroplastos: capturan "
            "la energía de la luz del sol y la usan para fabricar azúcar a partir del dióxido "
            "de carbono y del agua. Por eso decimos que la respiración y la fotosíntesis forman "
            "un ciclo.",
            "Pasemos ahora a la energía en la física. Cuando levantamos un libro del suelo "
            "hasta una estantería, hacemos un trabajo contra la gravedad, y ese trabajo se "
            "almacena como energía potencial. Si el libro cae, la energía potencial se "
            "convierte en energía cinética, la energía del movimiento. Justo antes de tocar el "
            "suelo, casi toda la energía es cinética. Cuando el libro choca, la energía no "
            "desaparece: se convierte en sonido y en un poco de calor. Esta es la ley de la "
            "conservación de la energía, una de las ideas más importantes de toda la ciencia.",
            "Por último, una pregunta de informática: ¿cómo encuentra un ordenador un nombre en "
            "una lista ordenada muy larga? Podría leer todas las entradas desde "
            "el principio, pero eso es lento. La búsqueda binaria es mucho más rápida. Mira la "
            "entrada del medio y la compara con el nombre que busca. Si el nombre va antes en "
            "el alfabeto, se queda con la primera mitad de la lista; si no, se queda con la "
            "segunda. Cada paso descarta la mitad de lo que queda, así que incluso una lista "
            "enorme necesita pocos pasos. La misma idea aparece en las bases de datos, en "
            "los juegos y en la depuración de programas.",
        ),
    ),
    "de": Lecture(
        "de",
        "de",
        (
            "Heute schauen wir uns an, wie eine Zelle Nahrung in Energie umwandelt. In fast "
            "jeder Zelle eines Tieres oder einer Pflanze gibt es kleine Organellen, die "
            "Mitochondrien heißen. Sie nehmen Zucker und Sauerstoff auf und geben Kohlendioxid "
            "und Wasser ab. Die Energie, die dabei frei wird, wird in einem Molekül namens "
            "Adenosintriphosphat gespeichert, das die Zelle verbraucht, wenn sie sich bewegen, "
            "wachsen oder Eiweiße herstellen muss. Pflanzen machen in ihren Chloroplasten das "
            "Umgekehrte: Sie fangen die Energie des Sonnenlichts ein und bauen damit aus "
            "Kohlendioxid und Wasser Zucker auf. Deshalb sagen wir, dass Atmung und "
            "Fotosynthese einen Kreislauf bilden.",
            "Kommen wir nun zur Energie in der Physik. Wenn man ein Buch vom Boden auf ein "
            "Regal hebt, verrichtet man Arbeit gegen die Schwerkraft, und diese Arbeit wird als "
            "potenzielle Energie gespeichert. Fällt das Buch herunter, wird die potenzielle "
            "Energie zu kinetischer Energie, der Energie der Bewegung. Kurz bevor es auf den "
            "Boden trifft, ist fast die ganze Energie kinetisch. Beim Aufprall verschwindet die "
            "Energie nicht: Sie wird zu Schall und zu ein wenig Wärme. Das ist der Satz von der "
            "Erhaltung der Energie, einer der wichtigsten Gedanken der ganzen "
            "Naturwissenschaft.",
            "Zum Schluss eine Frage aus der Informatik: Wie findet ein Computer einen Namen in "
            "einer sehr langen sortierten Liste? Er könnte jeden Eintrag von "
            "vorne lesen, aber das ist langsam. Die binäre Suche ist viel schneller. Sie schaut "
            "sich den mittleren Eintrag an und vergleicht ihn mit dem gesuchten Namen. Steht "
            "der Name im Alphabet weiter vorne, behält sie die erste Hälfte der Liste, sonst "
            "die zweite. Jeder Schritt wirft die Hälfte des Restes weg, und so braucht selbst "
            "eine riesige Liste nur wenige Schritte. Dieselbe Idee findet man in Datenbanken, in "
            "Spielen und bei der Fehlersuche.",
        ),
    ),
    "fr": Lecture(
        "fr",
        "fr-fr",
        (
            "Aujourd'hui, nous allons voir comment une cellule transforme la nourriture en "
            "énergie. Dans presque toutes les cellules d'un animal ou d'une plante, il y a de "
            "petits organites appelés mitochondries. Elles prennent du sucre et de l'oxygène, "
            "et elles rejettent du dioxyde de carbone et de l'eau. L'énergie libérée pendant ce "
            "processus est stockée dans une molécule appelée adénosine triphosphate, que la "
            "cellule dépense quand elle doit bouger, grandir ou fabriquer des protéines. Les "
            "plantes font l'inverse dans leurs chloroplastes : elles captent l'énergie de la "
            "lumière du soleil et s'en servent pour fabriquer du sucre à partir du dioxyde de "
            "carbone et de l'eau. C'est pourquoi on dit que la respiration et la photosynthèse "
            "forment un cycle.",
            "Passons maintenant à l'énergie en physique. Quand on soulève un livre du sol "
            "jusqu'à une étagère, on fournit un travail contre la pesanteur, et ce travail est "
            "stocké sous forme d'énergie potentielle. Si le livre tombe, l'énergie potentielle "
            "devient de l'énergie cinétique, l'énergie du mouvement. Juste avant de toucher le "
            "sol, presque toute l'énergie est cinétique. Au moment du choc, l'énergie ne "
            "disparaît pas : elle devient du son et un peu de chaleur. C'est la loi de "
            "conservation de l'énergie, l'une des idées les plus importantes de toute la "
            "science.",
            "Enfin, une question d'informatique : comment un ordinateur trouve-t-il un nom dans "
            "une très longue liste triée ? Il pourrait lire toutes les entrées "
            "depuis le début, mais c'est lent. La recherche dichotomique est beaucoup plus "
            "rapide. Elle regarde l'entrée du milieu et la compare avec le nom cherché. Si le "
            "nom vient plus tôt dans l'alphabet, elle garde la première moitié de la liste ; "
            "sinon, elle garde la seconde. Chaque étape élimine la moitié de ce qui reste, si "
            "bien que même une liste énorme ne demande que quelques étapes. La même idée se "
            "retrouve dans les bases de données, dans les jeux et dans le débogage.",
        ),
    ),
    "zh": Lecture(
        "zh",
        "cmn-latn-pinyin",
        (
            "今天我们来学习细胞怎样把食物变成能量。在动物和植物的几乎每一个细胞里，都有一种很小"
            "的结构，叫做线粒体。线粒体吸收糖和氧气，放出二氧化碳和水。这个过程中释放的能量储存"
            "在一种叫做三磷酸腺苷的分子里。细胞需要运动、生长或者制造蛋白质的时候，就会消耗这种"
            "分子。植物在叶绿体里做相反的事情：它们吸收阳光的能量，用二氧化碳和水制造糖。所以我"
            "们说，呼吸作用和光合作用组成了一个循环。",
            "下面我们来谈谈物理学中的能量。当你把一本书从地上拿到书架上的时候，你在克服重力做功"
            "，这个功以势能的形式储存起来。如果书掉下来，势能就变成动能，也就是运动的能量。在书"
            "碰到地面之前，几乎所有的能量都是动能。书落地的时候，能量并没有消失，而是变成了声音"
            "和一点点热。这就是能量守恒定律，它是整个科学中最重要的思想之一。",
            "最后是一个计算机的问题：计算机怎样在一个很长的有序列表里找到一个名字？它"
            "可以从头开始读每一个条目，但是这样很慢。二分查找要快得多。它先看中间的条目，把它和"
            "要找的名字比较。如果名字在字母表里更靠前，就保留列表的前一半，否则就保留后一半。每"
            "一步都去掉剩下部分的一半，所以即使列表很长，也只要几步就能找到。同样的思想也出现在数据"
            "库、游戏和调试程序中。",
        ),
        by_character=True,
    ),
}


def make_clips(folder: Path, languages: list[str]) -> list[tuple[str, str, Path, str]]:
    """(language, topic, wav, text) per paragraph of ``languages``, narrated by espeak-ng
    into ``folder`` (kept between runs: a file's name carries a hash of its voice and text)."""
    out: list[tuple[str, str, Path, str]] = []
    for code in languages:
        lecture = LECTURES[code]
        todo: list[tuple[str, Path]] = []
        for topic, text in zip(TOPICS, lecture.paragraphs, strict=True):
            key = hashlib.sha256(f"{lecture.voice}\n{text}".encode()).hexdigest()[:10]
            wav = folder / f"{code}-{topic}-{key}.wav"
            if not wav.is_file():
                todo.append((text, wav))
            out.append((code, topic, wav, text))
        if todo:
            folder.mkdir(parents=True, exist_ok=True)
            speak_all(todo, voice=lecture.voice)
    return out
