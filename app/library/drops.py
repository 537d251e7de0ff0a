"""Files dropped anywhere on the window are imported; while they are dragged over it, a hint
covers the window saying what a drop does (without one, nothing told the user the window
takes them until they let go)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QPalette
from PySide6.QtWidgets import QLabel, QWidget

DROP_HINT = (
    "Drop to import: lecture videos, slide decks, code, notes or a course pack.\n"
    "A folder becomes a course."
)

TakePacks = Callable[[Sequence[Path]], list[Path]]  # the packs imported, the rest returned
ImportPaths = Callable[[Sequence[Path]], None]


class DropTarget(QObject):
    """Takes the drags and drops that reach ``window`` (an event filter on it): shows
    ``hint`` over ``covered`` while files are over the window, and imports what is dropped,
    course packs through ``take_packs``, the rest through ``import_paths``."""

    def __init__(
        self,
        window: QWidget,
        covered: QWidget,
        take_packs: TakePacks,
        import_paths: ImportPaths,
    ) -> None:
        super().__init__(window)
        self.take_packs = take_packs
        self.import_paths = import_paths
        self.covered = covered
        self.hint = QLabel(DROP_HINT, covered)
        self.hint.setObjectName("dropHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setAutoFillBackground(True)
        # Not a place to drop on itself: the drag goes on to the window under it.
        self.hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        font = self.hint.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.hint.setFont(font)
        self.hint.hide()
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            drag: QDragEnterEvent = event  # type: ignore[assignment]
            if drag.mimeData().hasUrls():
                drag.acceptProposedAction()
                if kind == QEvent.Type.DragEnter:
                    self._show_hint()
            return True
        if kind == QEvent.Type.DragLeave:
            self.hint.hide()
            return True
        if kind == QEvent.Type.Drop:
            self.hint.hide()
            self._dropped(event)  # type: ignore[arg-type]
            return True
        return super().eventFilter(watched, event)

    def _show_hint(self) -> None:
        """The hint over the whole of ``covered``, in the theme's highlight colours."""
        palette = self.hint.palette()
        theme = self.covered.palette()
        palette.setColor(QPalette.ColorRole.Window, theme.color(QPalette.ColorRole.Highlight))
        text = theme.color(QPalette.ColorRole.HighlightedText)
        palette.setColor(QPalette.ColorRole.WindowText, text)
        self.hint.setPalette(palette)
        self.hint.setGeometry(self.covered.rect())
        self.hint.raise_()
        self.hint.show()

    def _dropped(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            if files := self.take_packs(paths):  # a course pack: its own import
                self.import_paths(files)
