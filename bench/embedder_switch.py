"""What the first file in another language costs an English library: the switch to the
multilingual embedder embeds everything again (engine/library/meaning.py).

An English library of TutorialVQA's 76 lecture transcripts (../shared/eval/tutorialvqa/srt,
read at run time) is built on all-MiniLM-L6-v2; then one Spanish note is imported, which
switches it. Prints the library's size, the English import's time, the Spanish import's
time (the switch inside it) and the embedding rates, and peak memory.

    uv run python bench/embedder_switch.py [--work DIR]

Never passes or fails.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.paths import default_models_dir  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402

SPANISH = (
    "# La fotosíntesis\n\nLas plantas verdes capturan la luz del sol con la clorofila de sus "
    "hojas y la convierten en azúcar. El oxígeno que respiramos sale de este proceso.\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description="the cost of the switch to e5")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="switch-"))
    registry = ModelRegistry(default_models_dir())
    srt = args.data / "tutorialvqa" / "srt"
    spanish = work / "Ciencias" / "fotosintesis.md"
    spanish.parent.mkdir(parents=True, exist_ok=True)
    spanish.write_text(SPANISH, encoding="utf-8")
    with Library.open_own(work / "library", EngineConfig(threads=2), registry) as library:
        t0 = time.perf_counter()
        library.ingest([srt], course="TutorialVQA")
        english_s = time.perf_counter() - t0
        segments = library.indexer.vector_count()
        sentences = library.store.db.execute("SELECT COUNT(*) FROM sentence_vectors").fetchone()
        before = library.embedder_id
        t0 = time.perf_counter()
        report = library.ingest([spanish.parent])
        switch_s = time.perf_counter() - t0
        after = library.embedder_id
    print(f"library: 76 English lectures, {segments:,} windows, {sentences[0]:,} sentence rows")
    print(f"English import on {before}: {english_s:.1f} s")
    print(f"one Spanish note, switching to {after}: {switch_s:.1f} s")
    print(f"  said: {report.files[0].detail}")
    print(f"  {segments / switch_s:.1f} windows/s embedded again (their sentences included)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
