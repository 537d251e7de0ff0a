"""The demo lecture as a new user first meets it: tiny.en hears its key terms right, and a
question plays from the start of the sentence that answers it, not from the middle of the
one before.

Everything is real: the committed demo course (resources/demo), the default embedder and
tiny.en transcribing its 6-minute video in a child process (about a minute, once).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from engine.config import EngineConfig
from engine.demo import DEMO_COURSE, DEMO_DIR, demo_files
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.types import SegmentKind, Timing

ROOT = Path(__file__).resolve().parents[2]
LECTURE = DEMO_DIR / "lecture-01-sorting.mp4"
# What a student searches for in a course on sorting: each must be in the transcript.
KEY_TERMS = (
    "merge sort",
    "quick sort",
    "pivot",
    "stable",
    "binary search",
    "hash table",
    "phone book",
    "playing cards",
    "divide and conquer",
    "partition",
    "collision",
    "insertion sort",
    "heap sort",
)
# What tiny.en made of the espeak-ng narration before: "merge sword", "the vivit".
MISHEARD = ("sword", "vivit")


def _load_make_demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_script", ROOT / "resources/make_demo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["demo_script"] = module  # dataclasses look their module up while loading
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["demo_script"]
    return module


@pytest.fixture(scope="module")
def demo_library(
    tmp_path_factory: pytest.TempPathFactory, models_dir: Path, embedder: OnnxEmbedder
) -> Iterator[Library]:
    """The whole demo course, its video transcribed by tiny.en."""
    folder = tmp_path_factory.mktemp("demo-lecture")
    library = Library.open(
        folder / "lib", EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
    )
    report = library.ingest(demo_files(), course=DEMO_COURSE)
    assert not report.errors
    yield library
    library.close()


def _words(text: str) -> str:
    """Lower case, words separated by one space, "quicksort" and "heapsort" as two words."""
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    return " " + re.sub(r"\b(quick|heap)sort", r"\1 sort", text).strip() + " "


def _count(text: str, term: str) -> int:
    return len(re.findall(rf"(?<= ){re.escape(term)}s?(?= )", text))


def test_the_transcript_says_the_key_terms(demo_library: Library) -> None:
    heard = _words(" ".join(line.text for line in demo_library.transcript(str(LECTURE))))
    script = _words(" ".join(s for _, section in _load_make_demo().LECTURE for s in section))
    for term in KEY_TERMS:
        said = _count(script, term)
        assert said > 0, f"the lecture never says {term!r}"
        # Each at least once, and the lecture's main terms mostly right.
        assert _count(heard, term) >= max(1, said // 2), (term, said, heard)
    for wrong in MISHEARD:
        assert wrong not in heard


def _line_heard_from(lines: list[Timing], ms: int) -> Timing:
    """The transcript line a listener hears first when playback starts at ``ms``."""
    return next(line for line in lines if line.end_ms > ms)


def test_a_question_plays_from_the_start_of_its_answer(demo_library: Library) -> None:
    demo = _load_make_demo()
    hits = demo_library.search("why is merge sort stable").results
    hit = next(h for h in hits if h.kind == SegmentKind.TRANSCRIPT)
    assert hit.start_ms is not None
    # The answer ("Merge sort has one more property... It is a stable sort. Stable means...")
    # starts at STABLE_ANSWER_MS in the video; the sentence before it is about memory.
    assert demo.STABLE_ANSWER_MS - 2000 <= hit.start_ms <= demo.STABLE_ANSWER_MS + 5000
    # Never in the middle of a sentence: what is heard first is a whole line, from its start.
    lines = sorted(demo_library.transcript(str(LECTURE)), key=lambda t: t.start_ms)
    first = _line_heard_from(lines, hit.start_ms)
    assert abs(first.start_ms - hit.start_ms) <= 300, (hit.start_ms, first)
    assert "merge sort" in _words(first.text)
