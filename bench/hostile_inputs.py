"""The hostile-input corpus imported once: outcomes per kind, time, peak memory, the
slowest files. Prints the table the closing note of issue 15 quotes. Never pass/fail.

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
