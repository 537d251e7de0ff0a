"""Time from launching ``coursedex gui`` to its window on screen, and to the model loaded.

    uv run python bench/app_start.py [--runs 5] [--app dist/coursedex/coursedex] [--cold]

``--app`` launches a frozen build instead of the source tree; ``--cold`` empties the page
cache before each run (root only: ``/proc/sys/vm/drop_caches``), so every launch reads the
app's files from disk, as the first start after installing or rebooting does.

Each run starts the app as a user would (a new process, the real launcher) on a library
that already holds the demo course's text files, under Xvfb when there is no display, and
reads back when the window was first shown and when the search model finished loading
(the app writes both to the file named by COURSEDEX_STARTUP_REPORT). Prints p50/p95/max.
Never pass/fail.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.main import STARTUP_REPORT_ENV  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.demo import DEMO_COURSE, demo_files  # noqa: E402
from engine.ingest.kinds import classify  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.paths import default_models  # noqa: E402
from engine.types import SourceKind  # noqa: E402


def _display() -> tuple[dict[str, str], subprocess.Popen[bytes] | None]:
    env = dict(os.environ)
    if env.get("DISPLAY"):
        return env, None
    if shutil.which("Xvfb") is None:
        env["QT_QPA_PLATFORM"] = "offscreen"
        return env, None
    server = subprocess.Popen(
        ["Xvfb", ":97", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    env["DISPLAY"] = ":97"
    env["QT_QPA_PLATFORM"] = "xcb"
    return env, server


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--app", type=Path, help="a frozen build's executable to launch")
    parser.add_argument("--cold", action="store_true", help="drop the page cache before each run")
    args = parser.parse_args()
    command = [str(args.app.resolve())] if args.app else [sys.executable, "-m", "app.launcher"]
    print(f"launching {' '.join(command)}{' (cold: page cache dropped)' if args.cold else ''}")
    work = Path(tempfile.mkdtemp(prefix="coursedex-start-"))
    models = default_models(os.environ)
    registry = ModelRegistry(models)
    config = EngineConfig()
    library_dir = work / "library"
    texts = [p for p in demo_files() if classify(p) not in (SourceKind.VIDEO, SourceKind.AUDIO)]
    with Library.open(
        library_dir, config, lambda: registry.load_embedder(), models=registry
    ) as lib:
        lib.ingest(texts, course=DEMO_COURSE)
        lib.set_flag("demo-offered")
    env, server = _display()
    env["COURSEDEX_SETTINGS"] = str(work / "settings.json")
    shown: list[float] = []
    loaded: list[float] = []
    try:
        for run in range(args.runs):
            report = work / f"start-{run}.txt"
            env[STARTUP_REPORT_ENV] = str(report)
            if args.cold:
                subprocess.run(["sync"], check=True)
                Path("/proc/sys/vm/drop_caches").write_text("3\n")
            started = time.time()
            proc = subprocess.Popen(
                [
                    *command,
                    "gui",
                    "--library",
                    str(library_dir),
                    "--models",
                    str(models),
                    "--no-demo",
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            events: dict[str, float] = {}
            deadline = time.monotonic() + 60
            while len(events) < 2 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.02)
                if report.exists():
                    for line in report.read_text().splitlines():
                        name, _, stamp = line.partition(" ")
                        events[name] = float(stamp)
            proc.terminate()
            proc.wait(10)
            if "shown" not in events:
                print(f"run {run + 1}: the window never showed (exit {proc.returncode})")
                continue
            shown.append(events["shown"] - started)
            if "model" in events:
                loaded.append(events["model"] - started)
            print(
                f"run {run + 1}: window shown {shown[-1]:.2f} s, "
                f"model loaded {loaded[-1] if 'model' in events else float('nan'):.2f} s"
            )
    finally:
        if server is not None:
            server.terminate()
        shutil.rmtree(work, ignore_errors=True)
    for name, values in (("window shown", shown), ("model loaded", loaded)):
        if values:
            print(
                f"{name:>13}: p50 {statistics.median(values):.2f} s  "
                f"p95 {_percentile(values, 0.95):.2f} s  max {max(values):.2f} s  "
                f"({len(values)} runs)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
