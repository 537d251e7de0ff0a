"""The early exit in other languages: at each gate, the share of XQuAD dev questions gated
(they have an answer: a gated one shows nothing) and of off-topic questions answered (they
have none: each should show nothing), per language and across languages (``en>es``:
English questions, English off-topic ones, on the Spanish passages), on the multilingual
embedder. Two kinds of gate: a fixed cosine, and one that follows the query (its nearest
segment must stand out from its run by so much: engine/search/scale.py).

The off-topic questions are evaluate.OFF_TOPIC_QUERIES and our own Spanish and German
renderings of them (below). One pass per language: every question searched once with the
gate at 0.999, which records its best similarity and whether its words alone would keep it
(the gate fires only when both fail); a gate g then gates a question iff its best
similarity < g and its words do not keep it; its run is read off the vector index.

    uv run python bench/gate_languages.py [--langs en,es,de,en>es] [--work DIR]

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
from engine.search.scale import RUN, background  # noqa: E402

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
STANDOUTS = (0.035, 0.04, 0.045, 0.05, 0.055, 0.06, 0.065)
PROBE = SearchConfig(gate=0.999)
Probe = tuple[float, bool, float | None]  # best similarity, words do not keep it, its run


def _probe(library: Library, questions: list[str]) -> list[Probe]:
    """Each question's best similarity, whether its words alone would not keep it, and
    the median similarity of its run."""
    embedder, index = library.embedder(), library.indexer.index
    assert index is not None
    out: list[Probe] = []
    for question in questions:
        found = library.search(question, limit=10, config=PROBE)
        _ids, distances = index.search(embedder.embed([question], query=True)[0], RUN[1])
        run = background([1.0 - float(d) for d in distances])
        out.append((found.best_similarity or 0.0, found.gated, run))
    return out


FIXED = 0.83  # the fixed gate the run's is taken with (the lower of the two lets through)


def _gated(probes: list[Probe], gate: float, standout: bool) -> float:
    def shut(sim: float, run: float | None) -> bool:
        return sim < (gate if not standout else min(FIXED, 1.0 if run is None else run + gate))

    return sum(1 for sim, weak, run in probes if weak and shut(sim, run)) / max(len(probes), 1)


def _table(
    name: str, on: list[Probe], off: list[Probe], values: tuple[float, ...], standout: bool
) -> None:
    gated = "  ".join(f"{_gated(on, g, standout):5.1%}" for g in values)
    answered = "  ".join(f"{1 - _gated(off, g, standout):5.0%}" for g in values)
    print(f"{name:6} XQuAD questions gated   {gated}", flush=True)
    print(f"{name:6} off-topic answered      {answered}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description="the early exit's gate, per language")
    parser.add_argument("--langs", default="en,es,de,en>es")
    parser.add_argument("--model", default="multilingual-e5-small-int8")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="gate-"))
    registry = ModelRegistry(default_models_dir())
    probes: dict[str, tuple[list[Probe], list[Probe]]] = {}
    for pair in args.langs.split(","):
        asked, lang = pair.split(">") if ">" in pair else (pair, pair)
        folder = work / lang / "docs"
        if not folder.is_dir():
            _write_passages(args.data, lang, folder)
        queries = _read(args.data / "xquad" / f"{asked}.dev.queries.jsonl")
        config = EngineConfig(threads=2)
        where = work / lang / "library"
        with Library.open_own(where, config, registry, embedder=args.model) as library:
            if not library.sources():
                library.ingest([folder], course=f"xquad-{lang}")
            on = _probe(library, [q["query"] for q in queries])
            off = _probe(library, list(OFF_TOPIC.get(asked, OFF_TOPIC_QUERIES)))
        probes[pair] = (on, off)
    print("fixed cosine gate     " + "  ".join(f"{g:5.2f}" for g in GATES))
    for pair, (on, off) in probes.items():
        _table(pair, on, off, GATES, standout=False)
    print(f"gate: min({FIXED}, its run + " + "  ".join(f"{g:5.3f}" for g in STANDOUTS) + ")")
    for pair, (on, off) in probes.items():
        _table(pair, on, off, STANDOUTS, standout=True)


if __name__ == "__main__":
    main()
