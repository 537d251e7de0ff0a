"""The slide view: a deck's page fitted to the view, rendered off the UI thread (on the
window's task runner, app/tasks.py), with "Play where this slide is shown" when a lecture
shows it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QImage,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

# PDFium is not thread-safe in a process: the app must take the same lock as the import,
# which may be reading a deck on its own thread while a result row renders a thumbnail.
from app.accessible import describe
from app.notes.editor import note_button
from app.tasks import Tasks
from app.viewers.pages import ViewerError, check_page, deck_for, render_page, term_boxes
from engine.api import Library, clock

log = logging.getLogger(__name__)


_RESIZE_DEBOUNCE_MS = 120

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


def _show_page_job(request: _PageRequest, scrollbar: int, library: Library) -> _PageShown:
    try:
        p, _, deck = deck_for(request.path, library)
        check_page(p, deck, request.page)
        width = _fitted_width(deck.sizes[request.page - 1], request.box, scrollbar)
        image = render_page(request.path, request.page, round(width * request.ratio), library)
        boxes = term_boxes(p, request.page, request.terms)
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
        source = library.source(request.path)
        title = source.title if source is not None else p.stem
        return _PageShown(request, title, len(deck.sizes), image)
    except ViewerError as e:
        return _PageShown(request, error=str(e))
    except Exception as e:  # a worker reports every failure as a line, never a traceback
        log.warning("cannot show page %d of %s", request.page, request.path, exc_info=True)
        return _PageShown(request, error=f"cannot show this page: {type(e).__name__}: {e}")


class _TitleLabel(QLabel):
    """ "Deck title — page 2 of 8": when it does not fit, the title is shortened with an
    ellipsis and the page number stays whole (the full text is in the tooltip)."""

    SEPARATOR = " — "

    def shown_text(self, width: int | None = None) -> str:
        """What is drawn in ``width`` pixels (default: the label's own width)."""
        text = self.text()
        room = (self.contentsRect().width() if width is None else width) - 2
        metrics = self.fontMetrics()
        if metrics.horizontalAdvance(text) <= room or self.SEPARATOR not in text:
            return metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)
        title, page = text.rsplit(self.SEPARATOR, 1)
        tail = self.SEPARATOR + page
        title = metrics.elidedText(
            title, Qt.TextElideMode.ElideRight, room - metrics.horizontalAdvance(tail)
        )
        return (title or "…") + tail

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        page = self.text().rsplit(self.SEPARATOR, 1)[-1]
        hint = super().minimumSizeHint()
        return QSize(
            self.fontMetrics().horizontalAdvance("…" + self.SEPARATOR + page) + 4, hint.height()
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
            painter.drawText(
                self.contentsRect(),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                self.shown_text(),
            )
        finally:
            painter.end()


class SlideView(QWidget):
    """A deck's page fitted to the view, Previous/Next (also PageUp/PageDown), and "Play
    where this slide is shown" when the page was found in a lecture video."""

    play_requested = Signal(str, int)  # video path, ms

    def __init__(self, library: Library, tasks: Tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self._latest: _PageRequest | None = None
        self._path = ""
        self._page = 0
        self._pages = 0
        self._title = ""
        self._terms: tuple[str, ...] = ()
        self._shown_in: tuple[tuple[str, int], ...] = ()
        self._shown_in_page = 0
        self._build_controls()
        self.image_label = QLabel()
        self.image_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image_label.setWordWrap(True)
        self.image_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setWidget(self.image_label)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self._lay_out()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(_RESIZE_DEBOUNCE_MS)
        self._resize_timer.timeout.connect(self._request)
        self._update_controls()

    def _build_controls(self) -> None:
        """The title, Previous and Next, "Play where this slide is shown" and Add note."""
        self.page_label = _TitleLabel()
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
        describe(  # named before it has text; the name takes its time once it has one
            self.play_button,
            "Play where this slide is shown",
            "Play the lecture from the moment this slide is on screen.",
        )

        self.note_button = note_button("Add a note on this page")

    def _lay_out(self) -> None:
        # The title has a line of its own: beside the buttons a narrow preview cut it off.
        self.page_label.setContentsMargins(6, 4, 6, 0)
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 0, 6, 4)
        bar.addWidget(self.play_button)
        bar.addWidget(self.note_button)
        bar.addStretch(1)
        bar.addWidget(self.prev_button)
        bar.addWidget(self.next_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.page_label)
        column.addLayout(bar)
        column.addWidget(self._scroll, 1)

    @property
    def current_path(self) -> str:
        return self._path

    @property
    def current_page(self) -> int:
        return self._page

    @property
    def title(self) -> str:
        """The deck's title (its file's name until the library says)."""
        return self._title

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
        self._fit_play_text()
        describe(
            self.play_button,
            f"Play where this slide is shown ({clock(ms)})",
            f"Play {Path(video).name} from {clock(ms)}.",
            f"{Path(video).name} at {clock(ms)}",
        )
        if len(self._shown_in) > 1:
            menu = QMenu(self.play_button)
            for other, at in self._shown_in:
                action = QAction(f"{Path(other).name} at {clock(at)}", menu)
                action.triggered.connect(
                    lambda _=False, v=other, t=at: self.play_requested.emit(v, t)
                )
                menu.addAction(action)
            self.play_button.setMenu(menu)
            self.play_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)

    def _fit_play_text(self) -> None:
        """ "Play where this slide is shown (01:23)" where the bar has room beside the other
        buttons, else "Play (01:23)" (its tooltip says the rest): never a cut "Play where …"."""
        if not self._shown_in:
            return
        at = clock(self._shown_in[0][1])
        full = f"Play where this slide is shown ({at})"
        others = (self.note_button, self.prev_button, self.next_button)
        room = self.width() - sum(w.sizeHint().width() for w in others) - 5 * 6 - 12
        self.play_button.setText(full)
        if self.play_button.sizeHint().width() > room:
            self.play_button.setText(f"Play ({at})")
        self.play_button.setToolTip(full)

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
        self.note_button.setEnabled(bool(self._path))
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
        library = self.library

        def show() -> _PageShown | None:
            if self._latest != request:
                return None  # paged past before it was drawn: not worth drawing
            return _show_page_job(request, scrollbar, library)

        self.tasks.run(show, self._shown)

    def _shown(self, shown: _PageShown | None) -> None:
        if shown is None or shown.request != self._latest:
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
        self._fit_play_text()
        if self._path:
            self._resize_timer.start()
