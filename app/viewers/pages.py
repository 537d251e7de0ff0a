"""Page images for the slide view and result rows.

``render_page`` draws a PDF page with PDFium, or a .pptx slide's text on a white card (no
.pptx renderer exists here), and keeps recent images in a small cache, so a result row's
thumbnail and the slide view re-render cheaply. It runs on worker threads too.

A card shows the slide's title and text as the import stored them (``Library.slide_pages``):
the file is not parsed a second time here, and a deck's title is the library's
(``Source.title``), whose rule for tools' placeholder titles lives in the engine alone.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
from PySide6.QtCore import (
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QImageIOHandler,
    QImageReader,
    QPainter,
)

# PDFium is not thread-safe in a process: the app must take the same lock as the import,
# which may be reading a deck on its own thread while a result row renders a thumbnail.
from engine.api import PDFIUM_LOCK, PHOTO_EXTENSIONS, Library, NotFoundError

log = logging.getLogger(__name__)

_CACHE_BYTES = 96 * 1024 * 1024
_MAX_WIDTH = 8000


class ViewerError(Exception):
    """A page cannot be shown: missing or unreadable file, or no such page. One line."""


# --- page images ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deck:
    sizes: tuple[tuple[float, float], ...]  # page width, height (points; 16:9 for .pptx)
    texts: tuple[tuple[str, str], ...] = ()  # .pptx, .odp: each slide's title and body
    picture: bool = False  # a photo or a scan: its one page is the picture itself


class _ImageCache:
    """Least-recently-used page images, bounded by their bytes."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._bytes = 0
        self._items: OrderedDict[tuple[str, int, int, int], QImage] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, int, int]) -> QImage | None:
        with self._lock:
            image = self._items.get(key)
            if image is not None:
                self._items.move_to_end(key)
            return image

    def put(self, key: tuple[str, int, int, int], image: QImage) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old.sizeInBytes()
            self._items[key] = image
            self._bytes += image.sizeInBytes()
            while self._bytes > self._budget and len(self._items) > 1:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= dropped.sizeInBytes()


_images = _ImageCache(_CACHE_BYTES)


def _stat(path: str) -> tuple[Path, int, int]:
    p = Path(path)
    try:
        st = p.stat()
    except OSError as e:
        raise ViewerError(f"cannot open {p.name}: {e.strerror or e}") from e
    if not p.is_file():
        raise ViewerError(f"cannot open {p.name}: not a file")
    return p, st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=64)
def _pdf_deck(path: str, mtime_ns: int, size: int) -> Deck:
    """Page sizes of a PDF (keyed by mtime and size, so an edit reloads it)."""
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(path)
        except pdfium.PdfiumError as e:
            raise ViewerError(f"cannot read {Path(path).name}: not a readable PDF") from e
        try:
            return Deck(tuple(doc.get_page_size(i) for i in range(len(doc))))
        finally:
            doc.close()


def _pptx_deck(p: Path, library: Library) -> Deck:
    """A .pptx's slides as the import stored them: title, then the rest of the text."""
    try:
        pages = library.slide_pages(str(p))
    except NotFoundError as e:
        raise ViewerError(f"cannot show {p.name}: it is not in the library") from e
    texts = []
    for page in pages:
        lines = page.text.split("\n")
        if page.title and lines and lines[0] == page.title:
            lines = lines[1:]  # the import stores the title as the text's first line
        texts.append((page.title, "\n".join(lines)))
    if not texts:
        raise ViewerError(f"cannot show {p.name}: no slides were read from it")
    return Deck(((16.0, 9.0),) * len(texts), tuple(texts))


@functools.lru_cache(maxsize=64)
def _picture_deck(path: str, mtime_ns: int, size: int) -> Deck:
    """A photo's one page, its size as shown (upright, by its EXIF orientation)."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    shown = reader.size()
    if not shown.isValid():
        raise ViewerError(f"cannot read {Path(path).name}: {reader.errorString()}")
    if reader.transformation() & QImageIOHandler.Transformation.TransformationRotate90:
        shown.transpose()
    return Deck(((float(shown.width()), float(shown.height())),), picture=True)


def deck_for(path: str, library: Library) -> tuple[Path, int, Deck]:
    """A deck's pages: a PDF's sizes, a .pptx's or .odp's slides from the library, or a
    photo's one page."""
    p, mtime_ns, size = _stat(path)
    suffix = p.suffix.lower()
    if suffix == ".pdf":
        return p, mtime_ns, _pdf_deck(str(p), mtime_ns, size)
    if suffix in (".pptx", ".odp"):
        return p, mtime_ns, _pptx_deck(p, library)
    if suffix in PHOTO_EXTENSIONS:
        return p, mtime_ns, _picture_deck(str(p), mtime_ns, size)
    raise ViewerError(f"cannot show {p.name} as pages (only .pdf, .pptx, .odp and photos)")


def check_page(p: Path, deck: Deck, page: int) -> None:
    if not 1 <= page <= len(deck.sizes):
        raise ViewerError(f"{p.name} has no page {page} (it has {len(deck.sizes)})")


def render_page(path: str, page: int, width: int, library: Library) -> QImage:
    """Page ``page`` (1-based) of a .pdf or .pptx as an image ``width`` pixels wide (a
    .pptx's slide text comes from ``library``).

    Thread-safe; recent images come from a cache keyed by path, mtime, page and width.

    Raises:
        ViewerError: the file is missing or unreadable, or has no such page.
    """
    width = max(1, min(int(width), _MAX_WIDTH))
    p, mtime_ns, deck = deck_for(path, library)
    check_page(p, deck, page)
    key = (str(p), mtime_ns, page, width)
    image = _images.get(key)
    if image is None:
        if deck.picture:
            image = _render_picture(p, width)
        elif deck.texts:
            image = _draw_card(deck, page, width)
        else:
            image = _render_pdf(p, page, width)
        _images.put(key, image)
    return image


def _render_pdf(p: Path, page: int, width: int) -> QImage:
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(p))
        except pdfium.PdfiumError as e:
            raise ViewerError(f"cannot read {p.name}: not a readable PDF") from e
        try:
            pdf_page = doc[page - 1]
            try:
                scale = width / max(1.0, pdf_page.get_width())
                bitmap = pdf_page.render(
                    scale=scale,  # pyright: ignore[reportArgumentType]
                    rev_byteorder=True,
                    force_bitmap_format=pdfium.raw.FPDFBitmap_BGRx,
                )
                image = QImage(
                    bytes(bitmap.buffer),
                    bitmap.width,
                    bitmap.height,
                    bitmap.stride,
                    QImage.Format.Format_RGBX8888,
                ).copy()  # own the pixels: the buffer belongs to PDFium
            finally:
                pdf_page.close()
        except pdfium.PdfiumError as e:
            raise ViewerError(f"cannot read page {page} of {p.name}: damaged PDF") from e
        finally:
            doc.close()
    if image.width() != width:  # rotated pages: PDFium's width is the unrotated one
        image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
    return image


def _render_picture(p: Path, width: int) -> QImage:
    """A photo upright, ``width`` pixels wide (decoded at that size, not in full first)."""
    reader = QImageReader(str(p))
    reader.setAutoTransform(True)
    size = reader.size()
    if size.isValid() and size.width() > 0:
        rotated = reader.transformation() & QImageIOHandler.Transformation.TransformationRotate90
        across, down = (size.height(), size.width()) if rotated else (size.width(), size.height())
        if rotated:  # the reader scales before it turns the picture
            reader.setScaledSize(QSize(max(1, round(width * down / across)), width))
        else:
            reader.setScaledSize(QSize(width, max(1, round(width * down / across))))
    image = reader.read()
    if image.isNull():
        raise ViewerError(f"cannot read {p.name}: {reader.errorString()}")
    return image


def _draw_card(deck: Deck, page: int, width: int) -> QImage:
    """A .pptx slide's title and text on a white 16:9 card (readable, not the design)."""
    if QGuiApplication.instance() is None:  # Qt aborts the process when fonts are used without
        raise ViewerError("cannot draw a .pptx slide before the application starts")
    title, body = deck.texts[page - 1]
    height = max(1, round(width * 9 / 16))
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.setPen(QColor("#c8c8c8"))
        painter.drawRect(0, 0, width - 1, height - 1)
        margin = width * 0.06
        font = QFont()
        font.setPixelSize(max(6, round(width / 20)))
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#1a1a1a"))
        title_box = QRectF(margin, margin * 0.8, width - 2 * margin, height * 0.22)
        flags = Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
        painter.drawText(title_box, int(flags | Qt.AlignmentFlag.AlignVCenter), title)
        font.setBold(False)
        font.setPixelSize(max(5, round(width / 34)))
        painter.setFont(font)
        painter.setPen(QColor("#333333"))
        body_box = QRectF(margin, height * 0.32, width - 2 * margin, height * 0.6)
        painter.drawText(body_box, int(flags | Qt.AlignmentFlag.AlignTop), body)
        font.setPixelSize(max(5, round(width / 60)))
        painter.setFont(font)
        painter.setPen(QColor("#8a8a8a"))
        footer = QRectF(margin, height * 0.92, width - 2 * margin, height * 0.06)
        painter.drawText(footer, int(Qt.AlignmentFlag.AlignRight), f"slide {page} (text only)")
    finally:
        painter.end()
    return image


def term_boxes(p: Path, page: int, terms: Sequence[str]) -> list[QRectF]:
    """Where ``terms`` are on a PDF page, as fractions of the page's width and height."""
    words = [t for t in dict.fromkeys(terms) if t.strip()]
    if not words or p.suffix.lower() != ".pdf":
        return []
    boxes: list[QRectF] = []
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(p))
        except pdfium.PdfiumError:
            return []
        try:
            pdf_page = doc[page - 1]
            if pdf_page.get_rotation() != 0:
                return []  # boxes are in unrotated page space: not worth the mapping
            w, h = pdf_page.get_size()
            text = pdf_page.get_textpage()
            for word in words:
                search = text.search(word, match_case=False, match_whole_word=True)
                while (found := search.get_next()) is not None and len(boxes) < 500:
                    index, count = found
                    for i in range(text.count_rects(index, count)):
                        left, bottom, right, top = text.get_rect(i)
                        boxes.append(
                            QRectF(left / w, (h - top) / h, (right - left) / w, (top - bottom) / h)
                        )
        except pdfium.PdfiumError:
            log.warning("cannot find words on page %d of %s", page, p.name, exc_info=True)
        finally:
            doc.close()
    return boxes
