"""Each library's share of the frozen app, so a build shows where its size goes.

    python installer/size_report.py [dist/coursedex] [--files N]

installer/build.sh prints it at the end of every build. Files are grouped by the package or
library they come from (PySide6's Qt, PyAV's FFmpeg, OpenCV, onnxruntime, the models, ...);
sizes are the files' own (links count nothing), in MB as du -m counts them (2^20 bytes).
``--files N`` also lists the N largest files, to see what to cut next.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections import defaultdict
from pathlib import Path

MIB = 2**20
# (label, patterns on the path inside _internal/); the first group that matches takes a file.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("models (speech, embeddings, reranker)", ("models/*",)),
    ("OCR models (rapidocr)", ("rapidocr_onnxruntime/*.onnx", "rapidocr_onnxruntime/*/*.onnx")),
    (
        "Qt's FFmpeg (Qt Multimedia)",
        (
            "PySide6/Qt/lib/libav*",
            "PySide6/Qt/lib/libsw*",
            "PySide6/Qt/lib/libQt6FFmpeg*",
            "PySide6/Qt/plugins/multimedia/*",
        ),
    ),
    ("Qt WebEngine (must be absent)", ("*WebEngine*", "*/resources/qtwebengine*")),
    (
        "Qt QML and Quick",
        (
            "PySide6/Qt/qml/*",
            "PySide6/Qt/lib/libQt6Qml*",
            "PySide6/Qt/lib/libQt6Quick*",
            "PySide6/QtQml*",
            "PySide6/QtQuick*",
        ),
    ),
    ("Qt's ICU (libicu*)", ("PySide6/Qt/lib/libicu*",)),
    ("Qt other libraries", ("PySide6/Qt/lib/*",)),
    ("Qt plugins", ("PySide6/Qt/plugins/*",)),
    ("PySide6 bindings + shiboken6", ("PySide6/*", "shiboken6/*")),
    ("PyAV + its FFmpeg (av, av.libs)", ("av/*", "av.libs/*")),
    ("OpenCV (cv2 + its libs)", ("cv2/*", "opencv_python*.libs/*")),
    ("onnxruntime", ("onnxruntime/*", "onnxruntime.libs/*")),
    ("ctranslate2 (speech engine)", ("ctranslate2/*", "ctranslate2.libs/*")),
    ("numpy", ("numpy/*", "numpy.libs/*")),
    ("Pillow", ("PIL/*", "pillow.libs/*")),
    ("pypdfium2 (PDF)", ("pypdfium2*",)),
    ("tokenizers", ("tokenizers/*", "tokenizers.libs/*")),
    ("tree-sitter grammars", ("tree_sitter*",)),
    ("yt-dlp + its helpers", ("yt_dlp*", "Cryptodome/*", "curl_cffi*", "brotli*", "mutagen/*")),
    (
        "Python (libpython, stdlib)",
        ("libpython*", "base_library.zip", "python3*/*", "lib-dynload/*"),
    ),
    ("system libraries", ("lib*.so*",)),
    ("demo course, icons", ("resources/*",)),
)


def group_of(rel: str) -> str:
    for label, patterns in GROUPS:
        if any(fnmatch.fnmatchcase(rel, p) for p in patterns):
            return label
    top = rel.split("/", 1)[0]
    return "other: app, engine, Python packages" if top != rel else "other: top-level files"


def sizes(dist: Path) -> tuple[dict[str, int], list[tuple[int, str]]]:
    """Bytes per group and every file's (bytes, path inside the bundle)."""
    internal = dist / "_internal"
    per_group: dict[str, int] = defaultdict(int)
    files: list[tuple[int, str]] = []
    for path in sorted(dist.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(internal if path.is_relative_to(internal) else dist).as_posix()
        size = path.stat().st_size
        per_group[group_of(rel) if path.is_relative_to(internal) else "the program"] += size
        files.append((size, path.relative_to(dist).as_posix()))
    return per_group, files


def main() -> int:
    parser = argparse.ArgumentParser(description="Each library's share of the frozen app.")
    parser.add_argument("dist", nargs="?", default="dist/coursedex", type=Path)
    parser.add_argument("--files", type=int, default=0, help="also list the N largest files")
    args = parser.parse_args()
    if not (args.dist / "_internal").is_dir():
        print(f"size_report: {args.dist} is not a frozen app (no _internal/)", file=sys.stderr)
        return 1
    per_group, files = sizes(args.dist)
    total = sum(per_group.values())
    print(f"{'library':<42} {'MB':>7} {'share':>6}")
    for label, size in sorted(per_group.items(), key=lambda kv: -kv[1]):
        print(f"{label:<42} {size / MIB:7.1f} {100 * size / total:5.1f}%")
    print(f"{'total':<42} {total / MIB:7.1f}")
    if args.files:
        print(f"\nlargest {args.files} files:")
        for size, rel in sorted(files, reverse=True)[: args.files]:
            print(f"{size / MIB:7.1f}  {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
