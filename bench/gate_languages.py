"""The early exit in other languages: at each gate, the share of XQuAD dev questions gated
(they have an answer: a gated one shows nothing) and of off-topic questions answered (they
have none: each should show nothing), per language, on the multilingual embedder.

The off-topic questions are evaluate.OFF_TOPIC_QUERIES and our own Spanish and German
renderings of them (below). One pass per language: every question searched once with the
gate at 0.999, which records its best similarity and whether its words alone would keep it
(the gate fires only when both fail); a gate g then gates a question iff its best
similarity < g and its words do not keep it.

    uv run python bench/gate_languages.py [--langs en,es,de] [--work DIR]

Libraries are built as bench/xquad.py builds them (its --work folders are reused). Never
passes or fails.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from xquad import _read, _write_passages  # noqa: E402

from engine.config import EngineConfig, SearchConfig  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.paths import default_models_dir  # noqa: E402
from engine.search.evaluate import OFF_TOPIC_QUERIES, default_data_dir  # noqa: E402

OFF_TOPIC_ES = (
    "cuánto tiempo hay que amasar la masa de pan",
    "mejor temperatura para asar un pollo",
    "cómo hago masa madre desde cero",
    "qué vino va con el salmón a la parrilla",
    "cuántos huevos lleva una carbonara para cuatro personas",
    "cómo arreglar una rueda pinchada de la bicicleta",
    "quién ganó el mundial de fútbol en 1998",
    "la regla del fuera de juego explicada",
    "cómo entrenar para un maratón en doce semanas",
    "vuelos baratos de londres a lisboa",
    "qué llevar para una semana de senderismo en los alpes",
    "cómo desatascar el fregadero de la cocina",
    "cada cuánto hay que regar las tomateras",
    "cómo quitar manchas de vino tinto de la alfombra",
    "la mejor manera de doblar una sábana bajera",
    "cómo cambiar el aceite del motor del coche",
    "a qué hora abre la panadería el domingo",
    "receta de lasaña de verduras con espinacas",
    "cómo enseñar a un cachorro a sentarse",
    "cómo tejer una bufanda para principiantes",
    "consejos para cultivar albahaca en la ventana",
    "cuánta propina dejar en un restaurante",
    "reglas del enroque en el ajedrez",
    "cómo cocer un huevo para que la yema quede blanda",
    "cuál es la capital de australia",
    "cómo hacer el nudo de una pajarita",
    "cuál es la mejor época para visitar japón",
    "cómo descalcificar una cafetera espresso",
    "cómo curar una sartén de hierro fundido",
    "cuál es la letra de cumpleaños feliz",
    "cómo tapar un agujero en la pared de pladur",
    "buenos ejercicios para el dolor lumbar en el gimnasio",
    "cómo hacer que las tortitas queden esponjosas",
    "cómo renuevo mi pasaporte",
    "qué plantas de interior no son peligrosas para los gatos",
    "cómo afilar un cuchillo de cocina con una piedra",
    "cómo tocar un acorde con cejilla en la guitarra",
    "qué tamaño de tabla de surf debe comprar un principiante",
    "cómo preparar café cold brew en casa",
    "cómo me deshago de las hormigas de la cocina",
)
OFF_TOPIC_DE = (
    "wie lange muss man brotteig kneten",
    "beste temperatur um ein hähnchen zu braten",
    "wie mache ich sauerteig selbst",
    "welcher wein passt zu gegrilltem lachs",
    "wie viele eier braucht eine carbonara für vier personen",
    "wie repariere ich einen platten fahrradreifen",
    "wer hat 1998 die fußball weltmeisterschaft gewonnen",
    "abseitsregel im fußball erklärt",
    "wie trainiere ich in zwölf wochen für einen marathon",
    "günstige flüge von london nach lissabon",
    "was packe ich für eine woche wandern in den alpen ein",
    "wie bekomme ich den abfluss der küchenspüle frei",
    "wie oft muss man tomatenpflanzen gießen",
    "wie entferne ich rotweinflecken aus dem teppich",
    "wie faltet man am besten ein spannbettlaken",
    "wie wechsle ich das öl im automotor",
    "wann öffnet die bäckerei am sonntag",
    "rezept für gemüselasagne mit spinat",
    "wie bringe ich einem welpen sitz bei",
    "wie stricke ich einen schal für anfänger",
    "tipps für basilikum auf der fensterbank",
    "wie viel trinkgeld gibt man im restaurant",
    "regeln der rochade beim schach",
    "wie kocht man ein ei damit das eigelb weich bleibt",
    "was ist die hauptstadt von australien",
    "wie bindet man eine fliege",
    "wann ist die beste reisezeit für japan",
    "wie entkalke ich eine espressomaschine",
    "wie brennt man eine gusseiserne pfanne ein",
    "wie lautet der text von happy birthday",
    "wie flicke ich ein loch in der rigipswand",
    "gute übungen gegen rückenschmerzen im fitnessstudio",
    "wie werden pfannkuchen schön fluffig",
    "wie verlängere ich meinen reisepass",
    "welche zimmerpflanzen sind für katzen ungiftig",
    "wie schärfe ich ein küchenmesser mit einem schleifstein",
    "wie greift man einen barréakkord auf der gitarre",
    "welche surfbrettgröße sollte ein anfänger kaufen",
    "wie macht man cold brew kaffee zu hause",
    "wie werde ich ameisen in der küche los",
)
OFF_TOPIC = {"en": OFF_TOPIC_QUERIES, "es": OFF_TOPIC_ES, "de": OFF_TOPIC_DE}
GATES = (0.78, 0.79, 0.80, 0.81, 0.82, 0.83, 0.84)
PROBE = SearchConfig(gate=0.999)


def _probe(library: Library, questions: list[str]) -> list[tuple[float, bool]]:
    """Each question's best similarity, and whether its words alone would not keep it."""
    out: list[tuple[float, bool]] = []
    for question in questions:
        found = library.search(question, limit=10, config=PROBE)
        out.append((found.best_similarity or 0.0, found.gated))
    return out


def _gated_share(probes: list[tuple[float, bool]], gate: float) -> float:
    return sum(1 for sim, weak in probes if weak and sim < gate) / max(len(probes), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description="the early exit's gate, per language")
    parser.add_argument("--langs", default="en,es,de")
    parser.add_argument("--model", default="multilingual-e5-small-int8")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="gate-"))
    registry = ModelRegistry(default_models_dir())
    print("gate  " + "  ".join(f"{g:.2f}" for g in GATES))
    for lang in args.langs.split(","):
        folder = work / lang / "docs"
        if not folder.is_dir():
            _write_passages(args.data, lang, folder)
        questions = [q["query"] for q in _read(args.data / "xquad" / f"{lang}.dev.queries.jsonl")]
        config = EngineConfig(threads=2)
        where = work / lang / "library"
        with Library.open_own(where, config, registry, embedder=args.model) as library:
            if not library.sources():
                library.ingest([folder], course=f"xquad-{lang}")
            on = _probe(library, questions)
            off = _probe(library, list(OFF_TOPIC.get(lang, OFF_TOPIC_QUERIES)))
        gated = "  ".join(f"{_gated_share(on, g):4.1%}" for g in GATES)
        answered = "  ".join(f"{1 - _gated_share(off, g):4.0%}" for g in GATES)
        print(f"{lang}  XQuAD questions gated      {gated}", flush=True)
        print(f"{lang}  off-topic answered         {answered}", flush=True)


if __name__ == "__main__":
    main()
