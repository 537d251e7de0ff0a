"""Render the Coursedex icon (coursedex.svg) to the raster files the installers need.

Usage: python resources/icons/render_icons.py OUT_DIR [--svg FILE]

Writes into OUT_DIR:
  coursedex-16.png ... coursedex-256.png   (16, 32, 48, 64, 128, 256 px; Linux hicolor sizes)
  coursedex.ico                            (Windows: the .exe and the Inno Setup installer)
  coursedex.icns                           (macOS: the .app bundle)

The .ico and .icns are written here rather than by Qt's image plugins because those store a
single size per file; both formats accept PNG payloads (ICO since Windows Vista, ICNS since
macOS 10.7), so each size is the same crisp PNG rendered from the SVG at that size, never a
downscaled bitmap. The committed coursedex.png (256 px) comes from this script too:
`python resources/icons/render_icons.py build/icons && cp build/icons/coursedex-256.png
resources/icons/coursedex.png`.

Needs only PySide6 (QtSvg), which the app already depends on; runs headless.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

PNG_SIZES = (16, 32, 48, 64, 128, 256)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types holding PNG data, by pixel size (Apple's icns type codes).
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
)
DEFAULT_SVG = Path(__file__).resolve().with_name("coursedex.svg")


def render_png(svg: Path, size: int) -> bytes:
    """Render `svg` into a transparent `size` x `size` PNG and return its bytes.

    Raises:
        ValueError: the SVG cannot be read.
    """
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QImageWriter, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"not a readable SVG: {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"png"))
    if not writer.write(image):
        raise ValueError(f"could not encode a {size} px PNG: {writer.errorString()}")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file whose entries are the given PNGs (size -> PNG bytes)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries = b""
    payload = b""
    for size in sizes:
        png = pngs[size]
        # Width/height 0 means 256 in the ICO directory.
        dim = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
        payload += png
    return header + entries + payload


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file with one PNG element per type in ICNS_TYPES."""
    body = b""
    for kind, size in ICNS_TYPES:
        png = pngs[size]
        body += kind + struct.pack(">I", 8 + len(png)) + png
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def render_all(svg: Path, out_dir: Path) -> list[Path]:
    """Write the PNGs, the ICO and the ICNS into `out_dir`; return the paths written."""
    # A QGuiApplication is needed for QPainter's text/raster paths on some platforms; offscreen
    # keeps this working on build machines with no display.
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication([])

    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = set(PNG_SIZES) | set(ICO_SIZES) | {size for _, size in ICNS_TYPES}
    pngs = {size: render_png(svg, size) for size in sorted(wanted)}
    written: list[Path] = []
    for size in PNG_SIZES:
        path = out_dir / f"coursedex-{size}.png"
        path.write_bytes(pngs[size])
        written.append(path)
    ico = out_dir / "coursedex.ico"
    ico.write_bytes(ico_bytes({size: pngs[size] for size in ICO_SIZES}))
    icns = out_dir / "coursedex.icns"
    icns.write_bytes(icns_bytes(pngs))
    written += [ico, icns]
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render the Coursedex icon to PNG, ICO and ICNS.")
    parser.add_argument("out_dir", type=Path, help="folder to write the icons into")
    parser.add_argument("--svg", type=Path, default=DEFAULT_SVG, help="source SVG")
    args = parser.parse_args(argv)
    try:
        written = render_all(args.svg, args.out_dir)
    except (OSError, ValueError) as e:
        print(f"render_icons: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
