"""engine.languages: a user's word for a language, and the language of a text."""

from __future__ import annotations

import pytest

from engine.errors import CoursedexError
from engine.languages import (
    LANGUAGES,
    language_name,
    parse_language,
    text_language,
    texts_language,
)

# A lecture's sentences in each language (written for this test).
PARAGRAPHS = {
    "en": "Photosynthesis turns the energy of light into chemical energy that the plant "
    "stores as sugar. The leaves take carbon dioxide from the air.",
    "es": "La fotosíntesis convierte la energía de la luz en energía química que la planta "
    "almacena como azúcar. Las hojas toman dióxido de carbono del aire.",
    "de": "Die Photosynthese wandelt die Energie des Lichts in chemische Energie um, die "
    "die Pflanze als Zucker speichert. Die Blätter nehmen Kohlendioxid aus der Luft auf.",
    "fr": "La photosynthèse transforme l'énergie de la lumière en énergie chimique que la "
    "plante stocke sous forme de sucre. Les feuilles prennent le dioxyde de carbone de l'air.",
    "zh": "光合作用把光能转化为化学能，植物把这些能量储存为糖。叶子从空气中吸收二氧化碳，"
    "根从土壤中吸收水分。",
    "ja": "光合成は光のエネルギーを化学エネルギーに変え、植物はそれを糖として蓄えます。"
    "葉は空気から二酸化炭素を取り込みます。",
    "ru": "Фотосинтез превращает энергию света в химическую энергию, которую растение "
    "запасает в виде сахара. Листья берут углекислый газ из воздуха.",
    "ar": "يحول التمثيل الضوئي طاقة الضوء إلى طاقة كيميائية يخزنها النبات على شكل سكر. "
    "تأخذ الأوراق ثاني أكسيد الكربون من الهواء.",
}


@pytest.mark.parametrize("code", sorted(PARAGRAPHS))
def test_a_paragraph_is_found_in_its_language(code: str) -> None:
    assert text_language(PARAGRAPHS[code]) == code


@pytest.mark.parametrize("text", ["", "Merge sort", "def f(x):\n    return x + 1\n", "12:30 → 45"])
def test_too_little_text_gets_no_guess(text: str) -> None:
    assert text_language(text) is None


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("es", "es"),
        ("ES", "es"),
        (" es-MX ", "es"),
        ("Spanish", "es"),
        ("español", "es"),
        ("cmn", "zh"),
        ("zh-Hans", "zh"),
        ("German", "de"),
        ("yue", "yue"),
    ],
)
def test_a_users_word_for_a_language(typed: str, code: str) -> None:
    assert parse_language(typed) == code


@pytest.mark.parametrize("typed", ["", "xx", "klingon", "e" * 500])
def test_an_unknown_language_is_refused_with_a_short_message(typed: str) -> None:
    with pytest.raises(CoursedexError, match="unknown language") as caught:
        parse_language(typed)
    assert len(str(caught.value)) < 160


def test_names() -> None:
    assert language_name("es") == "Spanish"
    assert language_name(None) == "unknown"
    assert language_name("qq") == "qq"
    assert len(LANGUAGES) == 100  # Whisper large-v3 added Cantonese


def test_a_files_texts_are_told_together() -> None:
    spanish = PARAGRAPHS["es"]
    assert texts_language([spanish, PARAGRAPHS["de"]]) == text_language(
        f"{spanish}\n{PARAGRAPHS['de']}"
    )
    assert texts_language(["Merge sort"]) is None
