"""The hostile-input corpus imported once: outcomes per kind, time, peak memory, the
slowest files. Prints the table the closing note of issue 15 quotes; then the hostile course
packs (tools/hostile/packs.py), each imported into a library: refused or not, in how long,
and whether the library's database stayed as it was. Never pass/fail.

    uv run python bench/hostile_inputs.py [--models DIR] [--keep DIR]

Generates the corpus (tools/hostile/corpus.py) in a temporary folder, imports it in a child
process (tools/hostile/importer.py: one Library.ingest, a file deleted and one rewritten
meanwhile) and reads its report. ``--keep`` writes corpus and library there instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.paths import default_models  # noqa: E402
from tools.hostile.corpus import generate  # noqa: E402
from tools.hostile.importer import format_table, outcome_table  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description="Import the hostile-input corpus once.")
    parser.add_argument("--models", type=Path, default=None, help="models folder")
    parser.add_argument("--keep", type=Path, default=None, help="write corpus and library here")
    args = parser.parse_args()
    models = args.models or default_models(os.environ)
    with tempfile.TemporaryDirectory(prefix="hostile-") as scratch:
        root = args.keep or Path(scratch)
        started = time.monotonic()
        cases = generate(root / "corpus")
        made = time.monotonic() - started
        folders = [str(p) for p in (root / "corpus", root / "library", models)]
        run = subprocess.run(
            [sys.executable, "tools/hostile/importer.py", *folders],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode != 0:
            print(run.stderr[-3000:], file=sys.stderr)
            return 1
        report = json.loads(run.stdout)
    files = report["files"]
    print(f"corpus: {len(cases)} inputs made in {made:.1f} s")
    print(
        f"import: {len(files)} files in {report['seconds']} s; import process peak "
        f"{report['peak_rss_mb']} MB, recognition child peak "
        f"{report['recognition_child_peak_rss_mb']} MB (sampled)"
    )
    print(format_table(outcome_table(files)))
    timed = sorted(files, key=lambda f: -sum(s for _, s in f["stages"]))
    print("slowest:")
    for f in timed[:6]:
        seconds = sum(s for _, s in f["stages"])
        detail = f" ({f['detail']})" if f["detail"] else ""
        print(f"  {seconds:6.1f} s  {f['outcome']:7s} {Path(f['path']).name}{detail}")
    _packs(models)
    return 0


def _packs(models: Path) -> None:
    """The hostile course packs (tools/hostile/packs.py), each imported into a library
    holding a course: refused with one line, and the library's database unchanged."""
    from engine.config import EngineConfig
    from engine.library import Library
    from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
    from engine.packs import PackError, export_pack, import_pack
    from tools.factories import make_note
    from tools.hostile.packs import generate as hostile_packs

    registry = ModelRegistry(models)
    embedder = registry.load_embedder(DEFAULT_EMBEDDER, 2)
    with tempfile.TemporaryDirectory(prefix="hostile-packs-") as scratch:
        root = Path(scratch)
        course = root / "Botany"
        make_note(course, "leaves", "Chlorophyll captures the sun's energy.")
        with Library.open(root / "library", EngineConfig(), lambda: embedder) as library:
            library.ingest([course])
            export_pack(library, "Botany", root / "good.cdxpack")
            before = "\n".join(library.store.conn.iterdump())
            rows = []
            for case in hostile_packs(root / "good.cdxpack", root / "packs"):
                started = time.monotonic()
                try:
                    import_pack(library, case.path)
                    outcome = "IMPORTED"
                except PackError as e:
                    outcome = str(e)
                seconds = time.monotonic() - started
                rows.append((case.path.name, seconds, outcome))
            unchanged = "\n".join(library.store.conn.iterdump()) == before
    refused = sum(1 for _, _, outcome in rows if outcome != "IMPORTED")
    print(f"course packs: {refused} of {len(rows)} refused; library unchanged: {unchanged}")
    for name, seconds, outcome in rows:
        print(f"  {seconds * 1000:6.1f} ms  {name:26s} {outcome[:90]}")


if __name__ == "__main__":
    sys.exit(main())
