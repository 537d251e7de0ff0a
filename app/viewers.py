"""The slide view, the code view, and page images for both the slide view and result rows.

``render_page`` draws a PDF page with PDFium, or a .pptx slide's text on a white card (no
.pptx renderer exists here), and keeps recent images in a small cache, so a result row's
thumbnail and the slide view re-render cheaply. It runs on worker threads too.

The code view colours text with Pygments token types through a QSyntaxHighlighter. A big
file is shown at once as plain text; it is lexed on a worker thread and only the blocks that
come into view are coloured, so opening a 20k-line file does not stall the window.
"""

from __future__ import annotations

import bisect
import functools
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from pygments.lexer import Lexer
from pygments.lexers import JsonLexer, TextLexer, get_lexer_for_filename, guess_lexer
from pygments.style import StyleMeta
from pygments.styles import get_style_by_name
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound
from PySide6.QtCore import (
    QEvent,
    QObject,
    QRect,
    QRectF,
    QRunnable,
    QSize,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QImage,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPixmap,
    QResizeEvent,
    QShowEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

# PDFium is not thread-safe in a process: the app must take the same lock as the import,
# which may be reading a deck on its own thread while a result row renders a thumbnail.
from engine.ingest.slides import PDFIUM_LOCK

log = logging.getLogger(__name__)

_CACHE_BYTES = 96 * 1024 * 1024
_MAX_WIDTH = 8000
_RESIZE_DEBOUNCE_MS = 120
_SYNC_LEX_LINES = 1000  # bigger files are lexed a slice per event-loop turn, coloured as seen
_LEX_SLICE_S = 0.012
_VISIBLE_MARGIN_BLOCKS = 60  # coloured beyond the view, so scrolling shows colour at once
_MAX_TERM_MARKS = 5000
LIGHT_STYLE, DARK_STYLE = "default", "github-dark"


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
class _Deck:
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
def _deck(path: str, mtime_ns: int, size: int) -> _Deck:
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
        return _Deck(title if title and not _PLACEHOLDER_TITLE.match(title) else p.stem, sizes)
    if suffix == ".pptx":
        return _pptx_deck(p)
    raise ViewerError(f"cannot show {p.name} as pages (only .pdf and .pptx)")


def _pptx_deck(p: Path) -> _Deck:
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
    return _Deck(title, ((16.0, 9.0),) * len(texts), tuple(texts))


def _deck_for(path: str) -> tuple[Path, int, _Deck]:
    p, mtime_ns, size = _stat(path)
    return p, mtime_ns, _deck(str(p), mtime_ns, size)


def _check_page(p: Path, deck: _Deck, page: int) -> None:
    if not 1 <= page <= len(deck.sizes):
        raise ViewerError(f"{p.name} has no page {page} (it has {len(deck.sizes)})")


def render_page(path: str, page: int, width: int) -> QImage:
    """Page ``page`` (1-based) of a .pdf or .pptx as an image ``width`` pixels wide.

    Thread-safe; recent images come from a cache keyed by path, mtime, page and width.

    Raises:
        ViewerError: the file is missing or unreadable, or has no such page.
    """
    width = max(1, min(int(width), _MAX_WIDTH))
    p, mtime_ns, deck = _deck_for(path)
    _check_page(p, deck, page)
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


def _draw_card(deck: _Deck, page: int, width: int) -> QImage:
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


def _term_boxes(p: Path, page: int, terms: Sequence[str]) -> list[QRectF]:
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


def _clock(ms: int) -> str:
    seconds = max(0, ms) // 1000
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


# --- slide view -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _PageRequest:
    path: str
    page: int
    box: tuple[int, int]  # the room for the page, in device-independent pixels
    ratio: float  # device pixels per pixel
    terms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _PageShown:
    request: _PageRequest
    title: str = ""
    pages: int = 0
    image: QImage | None = None
    error: str = ""


class _Relay(QObject):
    done = Signal(object)  # emitted on a worker, delivered on the UI thread (queued)


class _Job(QRunnable):
    """Runs ``work`` unless ``wanted`` says the result is no longer needed."""

    def __init__(self, work: Callable[[], object], wanted: Callable[[], bool], relay: _Relay):
        super().__init__()
        self.work = work
        self.wanted = wanted
        self.relay = relay

    def run(self) -> None:
        if self.wanted():
            self.relay.done.emit(self.work())


def _fitted_width(size: tuple[float, float], box: tuple[int, int], scrollbar: int) -> int:
    """The page's pixel width: the view's width, except that a landscape page (a slide)
    also fits the view's height, and a portrait page leaves room for the scroll bar."""
    w, h = size
    room_w, room_h = box
    if w >= h:
        return max(16, min(room_w, int(room_h * w / h)))
    if room_w * h / w > room_h:
        return max(16, room_w - scrollbar)
    return max(16, room_w)


def _show_page_job(request: _PageRequest, scrollbar: int) -> _PageShown:
    try:
        p, _, deck = _deck_for(request.path)
        _check_page(p, deck, request.page)
        width = _fitted_width(deck.sizes[request.page - 1], request.box, scrollbar)
        image = render_page(request.path, request.page, round(width * request.ratio))
        boxes = _term_boxes(p, request.page, request.terms)
        if boxes:
            image = image.copy()
            painter = QPainter(image)
            try:
                painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Multiply)
                for box in boxes:
                    painter.fillRect(
                        QRectF(
                            box.x() * image.width() - 2,
                            box.y() * image.height() - 2,
                            box.width() * image.width() + 4,
                            box.height() * image.height() + 4,
                        ),
                        QColor("#ffe14d"),
                    )
            finally:
                painter.end()
        return _PageShown(request, deck.title, len(deck.sizes), image)
    except ViewerError as e:
        return _PageShown(request, error=str(e))
    except Exception as e:  # a worker reports every failure as a line, never a traceback
        log.warning("cannot show page %d of %s", request.page, request.path, exc_info=True)
        return _PageShown(request, error=f"cannot show this page: {type(e).__name__}: {e}")


class SlideView(QWidget):
    """A deck's page fitted to the view, Previous/Next (also PageUp/PageDown), and "Play
    where this slide is shown" when the page was found in a lecture video."""

    play_requested = Signal(str, int)  # video path, ms

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # made before the relay: children die in order, and the pool waits for its jobs
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.done.connect(self._shown)
        self._latest: _PageRequest | None = None
        self._path = ""
        self._page = 0
        self._pages = 0
        self._title = ""
        self._terms: tuple[str, ...] = ()
        self._shown_in: tuple[tuple[str, int], ...] = ()
        self._shown_in_page = 0

        self.page_label = QLabel()
        self.page_label.setTextFormat(Qt.TextFormat.PlainText)
        self.page_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.prev_button = QPushButton("Previous")
        self.next_button = QPushButton("Next")
        self.prev_button.setToolTip("Previous page (Page Up)")
        self.next_button.setToolTip("Next page (Page Down)")
        self.prev_button.clicked.connect(lambda: self._step(-1))
        self.next_button.clicked.connect(lambda: self._step(1))
        self.play_button = QToolButton()
        self.play_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.play_button.setIcon(
            self.style().standardIcon(self.style().StandardPixmap.SP_MediaPlay)
        )
        self.play_button.clicked.connect(self._play_first)
        self.play_button.hide()

        self.image_label = QLabel()
        self.image_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image_label.setWordWrap(True)
        self.image_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setWidget(self.image_label)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._scroll.setFrameShape(QScrollArea.Shape.NoFrame)

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        bar.addWidget(self.page_label, 1)
        bar.addWidget(self.play_button)
        bar.addWidget(self.prev_button)
        bar.addWidget(self.next_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(bar)
        column.addWidget(self._scroll, 1)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(_RESIZE_DEBOUNCE_MS)
        self._resize_timer.timeout.connect(self._request)
        self._update_controls()

    @property
    def current_path(self) -> str:
        return self._path

    @property
    def current_page(self) -> int:
        return self._page

    def show_page(
        self,
        path: str,
        page: int,
        shown_in: Sequence[tuple[str, int]] = (),
        terms: Sequence[str] = (),
    ) -> None:
        """Show ``page`` (1-based) of a deck; ``shown_in`` lists (video, ms) where it is
        shown; ``terms`` are marked on the page. Failures show as a line in the view."""
        if path != self._path:
            self._pages = 0
            self._title = Path(path).stem
        self._path = path
        self._page = page
        self._terms = tuple(terms)
        self._shown_in = tuple(shown_in)
        self._shown_in_page = page
        self._latest = None  # asked again: render again (the file may be back or changed)
        self._fill_play_button()
        self._update_controls()
        self._request()

    def _fill_play_button(self) -> None:
        old = self.play_button.menu()
        self.play_button.setMenu(None)  # type: ignore[arg-type]
        if old is not None:
            old.deleteLater()
        if not self._shown_in:
            return
        video, ms = self._shown_in[0]
        self.play_button.setText(f"Play where this slide is shown ({_clock(ms)})")
        self.play_button.setToolTip(f"{Path(video).name} at {_clock(ms)}")
        if len(self._shown_in) > 1:
            menu = QMenu(self.play_button)
            for other, at in self._shown_in:
                action = QAction(f"{Path(other).name} at {_clock(at)}", menu)
                action.triggered.connect(
                    lambda _=False, v=other, t=at: self.play_requested.emit(v, t)
                )
                menu.addAction(action)
            self.play_button.setMenu(menu)
            self.play_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)

    def _play_first(self) -> None:
        if self._shown_in:
            self.play_requested.emit(*self._shown_in[0])

    def _step(self, delta: int) -> None:
        target = self._page + delta
        if self._path and target >= 1 and (self._pages == 0 or target <= self._pages):
            self._page = target
            self._update_controls()
            self._request()

    def _update_controls(self) -> None:
        self.prev_button.setEnabled(bool(self._path) and self._page > 1)
        self.next_button.setEnabled(bool(self._path) and 0 < self._page < self._pages)
        self.play_button.setVisible(bool(self._shown_in) and self._page == self._shown_in_page)
        if not self._path:
            self.page_label.setText("")
        elif self._pages:
            self.page_label.setText(f"{self._title} — page {self._page} of {self._pages}")
        else:
            self.page_label.setText(f"{self._title} — page {self._page}")

    def _request(self) -> None:
        if not self._path:
            return
        room = self._scroll.size()  # not the viewport: it shrinks when a scroll bar shows
        terms = self._terms if self._page == self._shown_in_page else ()
        request = _PageRequest(
            self._path,
            self._page,
            (max(16, room.width()), max(16, room.height())),
            self.devicePixelRatioF(),
            terms,
        )
        if request == self._latest:
            return
        self._latest = request
        scrollbar = self._scroll.verticalScrollBar().sizeHint().width()
        self._pool.start(
            _Job(
                lambda: _show_page_job(request, scrollbar),
                lambda: self._latest == request,  # skip pages paged past before drawing
                self._relay,
            )
        )

    def _shown(self, shown: _PageShown) -> None:
        if shown.request != self._latest:
            return
        if shown.error or shown.image is None:
            self.image_label.setPixmap(QPixmap())
            self.image_label.setMinimumHeight(0)
            self.image_label.setText(shown.error or "cannot show this page")
            self._update_controls()
            return
        self._title = shown.title
        self._pages = shown.pages
        pixmap = QPixmap.fromImage(shown.image)
        pixmap.setDevicePixelRatio(shown.request.ratio)
        self.image_label.setText("")
        self.image_label.setPixmap(pixmap)
        self.image_label.setMinimumHeight(round(pixmap.height() / shown.request.ratio))
        self._update_controls()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_PageUp, Qt.Key.Key_Left):
            self._step(-1)
        elif event.key() in (Qt.Key.Key_PageDown, Qt.Key.Key_Right):
            self._step(1)
        else:
            super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._path:
            self._resize_timer.start()


# --- code view --------------------------------------------------------------------------

_Span = tuple[int, int, _TokenType]  # start column, length (UTF-16 units), token type
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 units in Qt, one in Python
_PLAIN = (Token.Text, Token.Text.Whitespace)


def _lexer(filename: str, text: str) -> Lexer:
    options: dict[str, Any] = {"stripnl": False, "stripall": False, "ensurenl": False}
    if filename.lower().endswith(".ipynb"):
        return JsonLexer(**options)
    try:
        return get_lexer_for_filename(filename, text[:4096], **options)
    except ClassNotFound:
        pass
    try:
        return guess_lexer(text[:4096], **options)
    except ClassNotFound:
        return TextLexer(**options)


class _Lexing:
    """Pygments tokens of a text cut at line ends, in Qt's columns, gathered a time slice
    at a time on the UI thread (a worker thread would hold the GIL against the UI)."""

    def __init__(self, text: str, lexer: Lexer) -> None:
        self.lines: list[list[_Span]] = [[] for _ in range(text.count("\n") + 1)]
        self.done = False
        self._astral = _ASTRAL.search(text) is not None
        self._tokens = lexer.get_tokens_unprocessed(text)
        self._line = 0
        self._col = 0

    @property
    def complete_lines(self) -> int:
        """Lines whose tokens are all known (the last one may still grow otherwise)."""
        return len(self.lines) if self.done else self._line

    def run(self, seconds: float | None = None) -> bool:
        """Lex for about ``seconds`` (None: to the end); True once the text is done."""
        deadline = None if seconds is None else time.perf_counter() + seconds
        lines, astral = self.lines, self._astral
        line, col = self._line, self._col
        try:
            for n, (_, ttype, value) in enumerate(self._tokens):
                for i, part in enumerate(value.split("\n")):
                    if i:
                        line += 1
                        col = 0
                    if part:
                        length = len(part) + len(_ASTRAL.findall(part)) if astral else len(part)
                        if ttype not in _PLAIN and line < len(lines):
                            lines[line].append((col, length, ttype))
                        col += length
                if deadline is not None and n % 256 == 255 and time.perf_counter() > deadline:
                    self._line, self._col = line, col
                    return False
        except Exception:  # a lexer bug leaves the rest of the file plain, never the view broken
            log.warning("syntax colouring stopped at line %d", line + 1, exc_info=True)
        self._line, self._col = line, col
        self.done = True
        return True


def _mix(a: QColor, b: QColor, share_b: float) -> QColor:
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * share_b,
        a.greenF() + (b.greenF() - a.greenF()) * share_b,
        a.blueF() + (b.blueF() - a.blueF()) * share_b,
    )


def _is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5


class _Highlighter(QSyntaxHighlighter):
    """Colours each block from the spans the lexer found for its line, in a Pygments style."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.lexing: _Lexing | None = None
        self.style_name = ""
        self._style: StyleMeta | None = None
        self._formats: dict[_TokenType, QTextCharFormat | None] = {}

    def set_style(self, name: str) -> None:
        self.style_name = name
        self._style = get_style_by_name(name)
        self._formats.clear()

    def _format(self, ttype: _TokenType) -> QTextCharFormat | None:
        if ttype in self._formats:
            return self._formats[ttype]
        fmt: QTextCharFormat | None = None
        if self._style is not None:
            style = self._style.style_for_token(ttype)
            plain = self._style.style_for_token(Token.Text)
            if (style["color"], style["bold"], style["italic"]) != (
                plain["color"],
                plain["bold"],
                plain["italic"],
            ):
                fmt = QTextCharFormat()
                if style["color"]:
                    fmt.setForeground(QColor(f"#{style['color']}"))
                if style["bold"]:
                    fmt.setFontWeight(QFont.Weight.Bold)
                if style["italic"]:
                    fmt.setFontItalic(True)
        self._formats[ttype] = fmt
        return fmt

    def highlightBlock(self, text: str) -> None:
        lexing = self.lexing
        if lexing is None:
            return
        number = self.currentBlock().blockNumber()
        if number >= lexing.complete_lines:
            return
        for start, length, ttype in lexing.lines[number]:
            fmt = self._format(ttype)
            if fmt is not None:
                self.setFormat(start, length, fmt)


class _Gutter(QWidget):
    def __init__(self, editor: _Editor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_gutter(self, event)


class _Editor(QPlainTextEdit):
    """A read-only plain-text editor with line numbers in a gutter on the left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.marked_line = 0  # 1-based; its number is drawn bold
        self.gutter = _Gutter(self)
        self.blockCountChanged.connect(self._fit_gutter)
        self.updateRequest.connect(self._scroll_gutter)
        self._fit_gutter()

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 14 + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def _fit_gutter(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scroll_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        box = self.contentsRect()
        self.gutter.setGeometry(QRect(box.left(), box.top(), self.gutter_width(), box.height()))

    def paint_gutter(self, gutter: QWidget, event: QPaintEvent) -> None:
        palette = self.palette()
        painter = QPainter(gutter)
        try:
            painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.Window))
            dim = _mix(
                palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text), 0.5
            )
            bold = QFont(self.font())
            bold.setBold(True)
            block = self.firstVisibleBlock()
            top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
            height = self.fontMetrics().height()
            right = gutter.width() - 6
            while block.isValid() and top <= event.rect().bottom():
                bottom = top + round(self.blockBoundingRect(block).height())
                if block.isVisible() and bottom >= event.rect().top():
                    number = block.blockNumber() + 1
                    marked = number == self.marked_line
                    painter.setFont(bold if marked else self.font())
                    painter.setPen(palette.color(QPalette.ColorRole.Text) if marked else dim)
                    painter.drawText(
                        0, top, right, height, int(Qt.AlignmentFlag.AlignRight), str(number)
                    )
                block = block.next()
                top = bottom
        finally:
            painter.end()


class CodeView(QWidget):
    """A file shown read-only with line numbers and Pygments colours, the matched line
    marked and centred with the cursor on it, and the query's words marked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lex_timer = QTimer(self)
        self._lex_timer.setInterval(0)
        self._lex_timer.timeout.connect(self._lex_slice)
        self._line: int | None = None
        self._terms: tuple[str, ...] = ()
        self._text = ""
        self._lazy = False  # colours arrive after the text, block by block as seen
        self._coloured: set[int] = set()
        self._center_pending = False
        self._moving_cursor = False

        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setContentsMargins(6, 4, 6, 4)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.editor = _Editor()
        self.editor.setReadOnly(True)
        self.editor.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.editor.setFont(font)
        self.editor.document().setDefaultFont(font)
        self.editor.setTabStopDistance(4 * self.editor.fontMetrics().horizontalAdvance(" "))
        self.editor.updateRequest.connect(self._colour_visible)
        self.editor.cursorPositionChanged.connect(self._cursor_moved)
        self.editor.verticalScrollBar().actionTriggered.connect(self._user_scrolled)
        self._highlighter = _Highlighter(self.editor.document())
        self._highlighter.set_style(self._style_for_palette())

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.header)
        column.addWidget(self.editor, 1)

    @property
    def current_line(self) -> int | None:
        """The matched line shown (1-based), or None."""
        return self._line

    @property
    def style_name(self) -> str:
        """The Pygments style in use: a light one on a light palette, else a dark one."""
        return self._highlighter.style_name

    def show_code(
        self, text: str, filename: str, line: int | None = None, terms: Sequence[str] = ()
    ) -> None:
        """Show ``text`` (the file ``filename``) with ``line`` (1-based) marked and centred
        and the words ``terms`` marked (case-insensitive, whole words)."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        self._text = text
        self._terms = tuple(t for t in terms if t.strip())
        lexing = _Lexing(text, _lexer(filename, text))
        self._lazy = len(lexing.lines) > _SYNC_LEX_LINES
        self._coloured.clear()
        if not self._lazy:
            lexing.run()
        self._highlighter.lexing = lexing
        self.editor.setPlainText(text)  # the highlighter colours every lexed block here
        self._line = None if line is None else max(1, min(line, self.editor.blockCount()))
        self.header.setText(filename if self._line is None else f"{filename}:{self._line}")
        self.editor.marked_line = self._line or 0
        self._mark()
        self._move_cursor()
        if self._lazy:
            self._lex_timer.start()
        else:
            self._lex_timer.stop()

    def show_error(self, message: str) -> None:
        """Show one line saying why a file cannot be shown."""
        self._lex_timer.stop()
        self._line = None
        self._text = ""
        self._highlighter.lexing = None
        self.editor.marked_line = 0
        self.editor.setPlainText("")
        self.editor.setExtraSelections([])
        self.header.setText(message.splitlines()[0] if message.strip() else "cannot show this file")

    def _lex_slice(self) -> None:
        lexing = self._highlighter.lexing
        if lexing is None or lexing.run(_LEX_SLICE_S):
            self._lex_timer.stop()
        self._colour_visible()

    def _colour_visible(self) -> None:
        """Colour the blocks in view (and a margin) that are not coloured yet."""
        lexing = self._highlighter.lexing
        if not self._lazy or lexing is None:
            return
        known = lexing.complete_lines
        editor = self.editor
        block = editor.firstVisibleBlock()
        for _ in range(_VISIBLE_MARGIN_BLOCKS):
            if not block.previous().isValid():
                break
            block = block.previous()
        top = editor.blockBoundingGeometry(block).translated(editor.contentOffset()).top()
        limit = editor.viewport().height() + _VISIBLE_MARGIN_BLOCKS * editor.fontMetrics().height()
        while block.isValid() and top <= limit:
            number = block.blockNumber()
            if number >= known:
                break
            if number not in self._coloured:
                self._coloured.add(number)
                self._highlighter.rehighlightBlock(block)
            top += editor.blockBoundingRect(block).height()
            block = block.next()

    def _mark(self) -> None:
        """The matched line across the full width, then every whole-word match of a term."""
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        dark = _is_dark(palette)
        marks: list[QTextEdit.ExtraSelection] = []
        document = self.editor.document()
        if self._line is not None:
            mark = QTextEdit.ExtraSelection()
            mark.format.setBackground(
                _mix(base, palette.color(QPalette.ColorRole.Highlight), 0.35 if dark else 0.22)
            )
            mark.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            mark.cursor = QTextCursor(document.findBlockByNumber(self._line - 1))
            marks.append(mark)
        if self._terms:
            words = sorted(set(self._terms), key=len, reverse=True)
            pattern = re.compile(
                r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE
            )
            term_colour = _mix(base, QColor("#ffd400"), 0.45 if dark else 0.6)
            astral = [m.start() for m in _ASTRAL.finditer(self._text)]
            for n, found in enumerate(pattern.finditer(self._text)):
                if n >= _MAX_TERM_MARKS:
                    break
                start, end = found.span()
                if astral:  # Qt counts an astral character as two positions
                    start += bisect.bisect_left(astral, start)
                    end += bisect.bisect_left(astral, end)
                mark = QTextEdit.ExtraSelection()
                mark.format.setBackground(term_colour)
                cursor = QTextCursor(document)
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                mark.cursor = cursor
                marks.append(mark)
        self.editor.setExtraSelections(marks)

    def _move_cursor(self) -> None:
        block = self.editor.document().findBlockByNumber((self._line or 1) - 1)
        self._moving_cursor = True
        try:
            self.editor.setTextCursor(QTextCursor(block))
        finally:
            self._moving_cursor = False
        self._center_pending = self._line is not None
        self._center()

    def _center(self) -> None:
        if self._center_pending and self._line is not None:
            self.editor.centerCursor()
            self._colour_visible()

    def _cursor_moved(self) -> None:
        if not self._moving_cursor:
            self._center_pending = False  # the user moved: leave the view where they put it

    def _user_scrolled(self, _action: int) -> None:
        self._center_pending = False

    def _style_for_palette(self) -> str:
        # our own palette: a palette change reaches this widget before its children
        return DARK_STYLE if _is_dark(self.palette()) else LIGHT_STYLE

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self._follow_palette()

    def _follow_palette(self) -> None:
        name = self._style_for_palette()
        if name == self._highlighter.style_name:
            return
        self._highlighter.set_style(name)
        if self._lazy:
            self._coloured.clear()
            self._colour_visible()
        else:
            self._highlighter.rehighlight()
        self._mark()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._center()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._center()
