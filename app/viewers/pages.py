"""Page images for the slide view and result rows.

``render_page`` draws a PDF page with PDFium, or a .pptx slide's text on a white card (no
.pptx renderer exists here), and keeps recent images in a small cache, so a result row's
thumbnail and the slide view re-render cheaply. It runs on worker threads too.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
from PySide6.QtCore import (
    QRectF,
    Qt,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QPainter,
)

# PDFium is not thread-safe in a process: the app must take the same lock as the import,
# which may be reading a deck on its own thread while a result row renders a thumbnail.
from engine.api import PDFIUM_LOCK

log = logging.getLogger(__name__)

_CACHE_BYTES = 96 * 1024 * 1024
_MAX_WIDTH = 8000


# titles that tools write into a document's properties, which say nothing about the deck
_PLACEHOLDER_TITLE = re.compile(
    r"^(untitled.*|powerpoint presentation|presentation\d*|slide \d+|microsoft .*"
    r"|.*\.(pptx?|docx?|pdf|key|odp))$",
    re.IGNORECASE,
)


class ViewerError(Exception):
    """A page cannot be shown: missing or unreadable file, or no such page. One line."""


# --- page images ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deck:
    title: str
    sizes: tuple[tuple[float, float], ...]  # page width, height (points; 16:9 for .pptx)
    texts: tuple[tuple[str, str], ...] = ()  # .pptx: each slide's title and body


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
def _deck(path: str, mtime_ns: int, size: int) -> Deck:
    """Title and page sizes of a deck (keyed by mtime and size, so an edit reloads it)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".pdf":
        with PDFIUM_LOCK:
            try:
                doc = pdfium.PdfDocument(path)
            except pdfium.PdfiumError as e:
                raise ViewerError(f"cannot read {p.name}: not a readable PDF") from e
            try:
                title = (doc.get_metadata_value("Title") or "").strip()[:120]
                sizes = tuple(doc.get_page_size(i) for i in range(len(doc)))
            finally:
                doc.close()
        return Deck(title if title and not _PLACEHOLDER_TITLE.match(title) else p.stem, sizes)
    if suffix == ".pptx":
        return _pptx_deck(p)
    raise ViewerError(f"cannot show {p.name} as pages (only .pdf and .pptx)")


def _pptx_deck(p: Path) -> Deck:
    from pptx import Presentation

    try:
        prs = Presentation(str(p))
        texts: list[tuple[str, str]] = []
        for slide in prs.slides:
            title_shape = slide.shapes.title
            title = title_shape.text_frame.text.strip() if title_shape is not None else ""
            body = [
                shape.text_frame.text.strip()  # type: ignore[attr-defined]
                for shape in slide.shapes
                if shape.has_text_frame
                and (title_shape is None or shape.shape_id != title_shape.shape_id)
            ]
            texts.append((title, "\n".join(b for b in body if b)))
        title = (prs.core_properties.title or "").strip()[:120]
    except Exception as e:  # python-pptx raises many kinds on a broken file
        raise ViewerError(f"cannot read {p.name}: not a readable .pptx") from e
    if not title or _PLACEHOLDER_TITLE.match(title):
        title = p.stem
    return Deck(title, ((16.0, 9.0),) * len(texts), tuple(texts))


def deck_for(path: str) -> tuple[Path, int, Deck]:
    p, mtime_ns, size = _stat(path)
    return p, mtime_ns, _deck(str(p), mtime_ns, size)


def check_page(p: Path, deck: Deck, page: int) -> None:
    if not 1 <= page <= len(deck.sizes):
        raise ViewerError(f"{p.name} has no page {page} (it has {len(deck.sizes)})")


def render_page(path: str, page: int, width: int) -> QImage:
    """Page ``page`` (1-based) of a .pdf or .pptx as an image ``width`` pixels wide.

    Thread-safe; recent images come from a cache keyed by path, mtime, page and width.

    Raises:
        ViewerError: the file is missing or unreadable, or has no such page.
    """
    width = max(1, min(int(width), _MAX_WIDTH))
    p, mtime_ns, deck = deck_for(path)
    check_page(p, deck, page)
    key = (str(p), mtime_ns, page, width)
    image = _images.get(key)
    if image is None:
        image = _render_pdf(p, page, width) if not deck.texts else _draw_card(deck, page, width)
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
