"""Files dropped anywhere on the window are imported: course packs through their own import,
the rest as files and folders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QWidget

TakePacks = Callable[[Sequence[Path]], list[Path]]  # the packs imported, the rest returned
ImportPaths = Callable[[Sequence[Path]], None]


class DropTarget(QObject):
    """Takes the drags and drops that reach ``window`` (an event filter on it) and imports
    what is dropped, course packs through ``take_packs``, the rest through ``import_paths``."""

    def __init__(self, window: QWidget, take_packs: TakePacks, import_paths: ImportPaths) -> None:
        super().__init__(window)
        self.take_packs = take_packs
        self.import_paths = import_paths
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.DragEnter:
            drag: QDragEnterEvent = event  # type: ignore[assignment]
            if drag.mimeData().hasUrls():
                drag.acceptProposedAction()
            return True
        if kind == QEvent.Type.Drop:
            self._dropped(event)  # type: ignore[arg-type]
            return True
        return super().eventFilter(watched, event)

    def _dropped(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            if files := self.take_packs(paths):  # a course pack: its own import
                self.import_paths(files)
