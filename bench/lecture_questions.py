"""Questions on our own narrated lectures, per language: does the right lecture come first, and
does it play from the answering sentence?

    uv run python bench/lecture_questions.py [--langs en,es,de,fr,ja] [--cross en:es]
        [--model all-minilm-l6-v2-int8 --model multilingual-e5-small-int8] [--heard]

The lectures and questions are bench/lectures/*.toml (bench/lectures/README.md). espeak-ng
narrates each lecture sentence by sentence, 600 ms of silence after each, and ffmpeg joins
them (tools.lecture_media.make_narration), so every sentence's start is known to the
millisecond; the audio is kept in ``--cache`` (outside the repository), as are the models.

Each language's lectures are imported into a fresh temporary library through the real
import with the default speech settings (the language is detected per file, then heard by
the model that fits it), embedded by the first ``--model``; every question is asked with the
default search (no reranker: none is installed by default); then the library is re-embedded
by each further ``--model`` (Library.reindex: the same transcripts, nothing heard again) and
the questions are asked again. ``--cross en:es`` asks the English questions of the Spanish
lectures too (the lectures are parallel, so they answer at the same sentence).

Per set of questions:
- empty: the share answered with nothing (the early exit: no segment close enough to the
  question, on the embedder's calibrated scale, and few of its words in any sentence);
- NDCG@10 and Hit@1 at the lecture level: results collapsed to their files in rank order,
  one right lecture (NDCG@10 = 1/log2(rank + 1));
- seek@3s: the share of questions whose first result is the right lecture and starts playing
  (its start_ms, what the player seeks to) within 3 s of the answering sentence's start;
- err p50: the median |start_ms - sentence start| of the first results on the right
  lecture (with the early exit off: how close the seek is, whether or not the gate fired);
- p50/p95 query latency of Library.search (after one warm-up query per model);
- NDCG*, seek*: NDCG@10 and seek@3s with the early exit off (what the empty ones would have found).
Also the language each lecture was heard in, and the share of lectures heard in their own.
Never passes or fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lecture_set import CROSS_FROM, LANGUAGES, LectureSet, Question, load  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.media.probe import probe  # noqa: E402
from engine.models import Embedder  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.results import SearchResult, moment_ms  # noqa: E402
from engine.types import SegmentKind  # noqa: E402
from tools.lecture_media import make_narration  # noqa: E402

MODELS = ("all-minilm-l6-v2-int8", "multilingual-e5-small-int8")
GAP_MS = 600
SEEK_MS = 3_000


@dataclass(frozen=True, slots=True)
class Narrated:
    path: Path  # in the course folder, named <language>-<n>.mp3 (no answer in the name)
    lecture: str  # its Lecture.id
    starts: list[int]  # each sentence's start, ms


@dataclass(frozen=True, slots=True)
class Scores:
    asked: int
    gated: float  # share answered with nothing: the early exit found no close segment
    ndcg: float
    hit1: float
    seek: float
    seek_err_ms: float  # median, first results on the right lecture, gate off (nan: none)
    p50_ms: float
    p95_ms: float
    ndcg_ungated: float  # NDCG@10 with the early exit off
    seek_ungated: float  # seek@3s with the early exit off


def default_cache() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("coursedex", appauthor=False)) / "bench-lectures"


def narrate(data: LectureSet, cache: Path, course: Path) -> list[Narrated]:
    """Each lecture's audio (made once into ``cache``, keyed by its voice and text) copied
    into ``course`` under a neutral name, with its sentence starts."""
    course.mkdir(parents=True, exist_ok=True)
    out = []
    for n, lecture in enumerate(data.lectures, start=1):
        said = json.dumps([data.voice, GAP_MS, lecture.sentences], ensure_ascii=False)
        key = hashlib.sha256(said.encode()).hexdigest()[:12]
        audio = cache / f"{data.language}-{lecture.id}-{key}.mp3"
        starts_file = audio.with_suffix(".json")
        if not starts_file.is_file():
            cache.mkdir(parents=True, exist_ok=True)
            starts = make_narration(audio, lecture.sentences, voice=data.voice, gap_ms=GAP_MS)
            starts_file.write_text(json.dumps(starts))
        path = course / f"{data.language}-{n}.mp3"
        shutil.copyfile(audio, path)
        out.append(Narrated(path, lecture.id, json.loads(starts_file.read_text())))
    return out


def _rank(results: list[SearchResult], path: Path) -> int | None:
    """The rank of ``path`` among the results' files, in their order (None: not in the top 10)."""
    ranked = list(dict.fromkeys(r.source for r in results))[:10]
    return ranked.index(str(path)) + 1 if str(path) in ranked else None


@dataclass(slots=True)
class _Tally:
    ndcg: float = 0.0
    hit1: float = 0.0
    seek: float = 0.0
    errors: list[float] = field(default_factory=list)  # ms, first results on the right lecture

    def add(self, results: list[SearchResult], gold: Narrated, sentence: int) -> None:
        rank = _rank(results, gold.path)
        self.ndcg += 1 / math.log2(rank + 1) if rank else 0.0
        self.hit1 += rank == 1
        start = moment_ms(results[0].place) if rank == 1 else None
        if start is not None:
            self.errors.append(abs(start - gold.starts[sentence]))
            self.seek += self.errors[-1] <= SEEK_MS


def score(library: Library, questions: tuple[Question, ...], lectures: list[Narrated]) -> Scores:
    by_id = {n.lecture: n for n in lectures}
    ungate = replace(library.config.search, gate=0.0)
    library.search(questions[0].text, limit=10)  # warm-up: the first loads the model
    shipped, ungated = _Tally(), _Tally()
    gated = 0
    took: list[float] = []
    for q in questions:
        t0 = time.perf_counter()
        outcome = library.search(q.text, limit=10)
        took.append((time.perf_counter() - t0) * 1000)
        gold = by_id[q.lecture]
        shipped.add(outcome.results, gold, q.sentence)
        gated += outcome.gated
        if outcome.gated:  # what it would have found: the gate's cost on these questions
            outcome = library.search(q.text, limit=10, config=ungate)
        ungated.add(outcome.results, gold, q.sentence)
    took.sort()
    n = len(questions)
    return Scores(
        n,
        gated / n,
        shipped.ndcg / n,
        shipped.hit1 / n,
        shipped.seek / n,
        statistics.median(ungated.errors) if ungated.errors else math.nan,
        took[len(took) // 2],
        took[min(len(took) - 1, int(0.95 * len(took)))],
        ungated.ndcg / n,
        ungated.seek / n,
    )


def print_row(model: str, name: str, s: Scores) -> None:
    print(
        f"{model:28s} {name:6s} {s.asked:5d} {s.gated:6.0%} {s.ndcg:8.3f} {s.hit1:6.3f} "
        f"{s.seek:8.3f} {s.seek_err_ms / 1000:7.1f} s {s.p50_ms:7.0f} {s.p95_ms:7.0f} "
        f"{s.ndcg_ungated:8.3f} {s.seek_ungated:8.3f}",
        flush=True,
    )


HEADER = (
    f"{'model':28s} {'set':6s} {'asked':>5s} {'empty':>6s} {'NDCG@10':>8s} {'Hit@1':>6s} "
    f"{'seek@3s':>8s} {'err p50':>9s} {'p50 ms':>7s} {'p95 ms':>7s} {'NDCG*':>8s} {'seek*':>8s}"
    "    (* with the early exit off)"
)


def heard(library: Library, data: LectureSet, lectures: list[Narrated], show: bool) -> int:
    """Print the language each lecture was heard in; returns how many were heard in theirs."""
    right = 0
    line = []
    for n in lectures:
        source = library.source(str(n.path))
        language = source.language if source is not None else None
        model = source.speech_model if source is not None else None
        right += language == data.language
        line.append(f"{n.path.stem} ({n.lecture}) {language} by {model}")
        if show:
            segments = library.segments_of(str(n.path))
            text = " ".join(s.text for s in segments if s.kind is SegmentKind.TRANSCRIPT)
            print(f"  {n.path.stem} heard: {text}")
    print(f"{data.language}: heard in " + "; ".join(line), flush=True)
    return right


def run_language(
    language: str,
    cross: list[str],
    embedders: list[Embedder],
    registry: ModelRegistry,
    args: argparse.Namespace,
    rows: list[tuple[str, str, Scores]],
) -> tuple[int, int]:
    """Import one language's lectures, ask its questions (and ``cross``'s of them) with
    every embedder; returns (lectures heard in their language, lectures)."""
    data = load(language)
    work = Path(tempfile.mkdtemp(prefix=f"lecture-questions-{language}-"))
    try:
        lectures = narrate(data, args.cache / "audio", work / "course")
        # TODO(issue 33): EngineConfig(multilingual_embedder=None) here once it exists, so the
        # library never switches the embedder itself when a non-English lecture arrives.
        config = EngineConfig(threads=args.threads, embedder=embedders[0].name, reranker=None)
        first = embedders[0]
        with Library.open(
            work / "library", config, lambda: first, models=registry, reranker=lambda: None
        ) as library:
            t0 = time.perf_counter()
            report = library.ingest([work / "course"], course=f"lectures-{language}")
            took = time.perf_counter() - t0
            for failed in report.errors:
                print(f"{language}: {failed.path} failed: {failed.detail}")
            audio_s = sum(probe(n.path).duration_ms for n in lectures) / 1000
            print(
                f"{language}: imported {len(lectures)} lectures in {took:.0f} s "
                f"({audio_s:.0f} s of audio)"
            )
            right = heard(library, data, lectures, args.heard)
            sets = [(language, data.questions)]
            sets += [(f"{c}>{language}", load(c).questions) for c in cross]
            for i, embedder in enumerate(embedders):
                if i:
                    library.reindex(embedder)
                for name, questions in sets:
                    scores = score(library, questions, lectures)
                    rows.append((embedder.name, name, scores))
                    print_row(embedder.name, name, scores)
        return right, len(lectures)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--langs", default=",".join(LANGUAGES))
    parser.add_argument(
        "--cross", default=f"{CROSS_FROM}:es", help="Q:L pairs: Q's questions on L's lectures"
    )
    parser.add_argument(
        "--model", action="append", help=f"embedder (repeat to compare; default {MODELS})"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument(
        "--heard", action="store_true", help="print what was heard (its windows: they overlap)"
    )
    args = parser.parse_args(argv)
    registry = ModelRegistry(args.cache / "models")
    embedders: list[Embedder] = [
        registry.load_embedder(name, args.threads) for name in args.model or MODELS
    ]
    cross: dict[str, list[str]] = {}
    for pair in filter(None, args.cross.split(",")):
        asked, _, lectures = pair.partition(":")
        cross.setdefault(lectures, []).append(asked)
    langs = [lang for lang in args.langs.split(",") if lang]
    print(
        f"threads {args.threads}; seek@3s: first result on the right lecture, starting "
        f"within {SEEK_MS / 1000:.0f} s of the answering sentence"
    )
    print(HEADER)
    rows: list[tuple[str, str, Scores]] = []
    right = total = 0
    for language in langs:
        r, t = run_language(language, cross.get(language, []), embedders, registry, args, rows)
        right, total = right + r, total + t
    print(f"\nlectures heard in their own language: {right}/{total} ({right / max(total, 1):.0%})")
    print(HEADER)
    order = {e.name: i for i, e in enumerate(embedders)}
    for model, name, scores in sorted(rows, key=lambda row: order[row[0]]):
        print_row(model, name, scores)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
