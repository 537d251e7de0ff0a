"""A platform's "Download all" zip imported (issue 35): its time whole, the share spent taking
its members out, against the same files imported as a folder; and the same zip again
(unchanged). Never pass/fail.

    uv run python bench/course_zip_import.py [--models DIR] [--copies 1 4]

The zip is tools/course_zips.py's Moodle shape (slides, a PowerPoint, notes, a notebook, a
Word handout, an OpenDocument text and deck, an RTF file, a saved page, an e-book chapter, a
whiteboard photo, a nested code zip, a 2 s video with its subtitles, a broken PDF, an unknown
file); ``--copies
N`` puts N such courses' week folders in one zip (their files made distinct), for a larger
download. Each import goes into a new library whose embedder is already loaded; files are
told English (no language detection), screen text off (the test video has none).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
import zipfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig  # noqa: E402
from engine.importing.planning import plan  # noqa: E402
from engine.importing.progress import Outcome  # noqa: E402
from engine.importing.unpacking import ARCHIVES_FOLDER, unpack  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models import Embedder  # noqa: E402
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry  # noqa: E402
from engine.paths import default_models  # noqa: E402
from engine.plain_text import human_size  # noqa: E402
from tools.course_zips import MOODLE_COURSE, moodle_members, write_zip  # noqa: E402


def _config() -> EngineConfig:
    config = EngineConfig()
    return replace(config, media=replace(config.media, language="en", screen_text=False))


def _distinct(name: str, data: bytes, i: int) -> bytes:
    """``data`` made the i-th part's own, so no copy is a duplicate of another (a video is
    its own by its subtitles: the library hashes both)."""
    suffix = Path(name).suffix
    if suffix == ".pdf":
        return data + f"%part {i}\n".encode()
    if suffix in (".md", ".srt", ".xyz", ".rtf", ".html"):
        return data + f"\npart {i}\n".encode()
    if suffix == ".jpg":  # after the picture's end: a reader never sees it
        return data + f"part {i}".encode()
    if suffix == ".ipynb":
        return data.replace(b"# Hashing", f"# Hashing part {i}".encode())
    if suffix in (".pptx", ".zip", ".docx", ".odt", ".odp", ".epub"):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            parts = {n: zf.read(n) for n in zf.namelist()}
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            for n, b in {**parts, f"part-{i}.txt": b"part"}.items():
                zf.writestr(n, b)
        return buffer.getvalue()
    return data


def _course_zip(path: Path, work: Path, copies: int) -> Path:
    base = moodle_members(work)
    members: dict[str, bytes] = {}
    for i in range(copies):
        for name, data in base.items():
            part = name.replace(f"{MOODLE_COURSE}/", f"{MOODLE_COURSE}/Part {i + 1} ")
            members[part] = _distinct(name, data, i)
    return write_zip(path, members)


def _timed_import(
    target: Path, paths: list[Path], embedder: Embedder, models: ModelRegistry
) -> tuple[float, dict[str, int]]:
    with Library.open(target, _config(), lambda: embedder, models=models) as library:
        started = time.perf_counter()
        report = library.ingest(paths)
        seconds = time.perf_counter() - started
    return seconds, {o.value: report.count(o) for o in Outcome if report.count(o)}


def main() -> int:
    parser = argparse.ArgumentParser(description="A course zip's import time.")
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    models = ModelRegistry(args.models or default_models(os.environ))
    embedder = models.load_embedder(DEFAULT_EMBEDDER, min(4, os.cpu_count() or 2))
    embedder.embed(["warm up"])
    print("copies  zip size  files  unpack s  zip import s  folder import s  again s  outcomes")
    for copies in args.copies:
        with tempfile.TemporaryDirectory(prefix="coursedex-zipbench-") as tmp:
            work = Path(tmp)
            archive = _course_zip(work / "course.zip", work / "made", copies)
            started = time.perf_counter()
            opened = unpack(plan([archive]), work / "probe" / ARCHIVES_FOLDER, _config().limits)
            unpack_s = time.perf_counter() - started
            folder = work / "folder"
            with zipfile.ZipFile(archive) as zf:
                zf.extractall(folder)  # our own zip: nothing hostile in it
            _timed_import(work / "lib-warm", [folder], embedder, models)  # caches, imports
            folder_s, _ = _timed_import(work / "lib-folder", [folder], embedder, models)
            zip_s, outcomes = _timed_import(work / "lib-zip", [archive], embedder, models)
            with Library.open(work / "lib-zip", _config(), lambda: embedder, models=models) as lib:
                started = time.perf_counter()
                lib.ingest([archive])
                again_s = time.perf_counter() - started
            print(
                f"{copies:6d}  {human_size(archive.stat().st_size):>8s}  {len(opened.files):5d}"
                f"  {unpack_s:8.2f}  {zip_s:12.2f}  {folder_s:15.2f}  {again_s:7.2f}  {outcomes}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
