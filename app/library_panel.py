"""The library side panel: courses, their files, and each file's state.

A file's state is what the library says (queued, indexing, indexed, error with its reason)
until an import reports on it live ("transcribing 43%"); the next refresh after the import
puts the stored state back.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHeaderView, QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from engine.api import Course, Source, SourceKind, SourceStatus

_PATH = Qt.ItemDataRole.UserRole  # a file row's source path; a course row's course name
_IS_COURSE = Qt.ItemDataRole.UserRole + 1

KIND_LABEL = {
    SourceKind.VIDEO: "video",
    SourceKind.AUDIO: "audio",
    SourceKind.SUBTITLES: "subtitles",
    SourceKind.SLIDES: "slides",
    SourceKind.CODE: "code",
    SourceKind.NOTES: "notes",
}


def status_text(source: Source) -> str:
    if source.status == SourceStatus.ERROR:
        return f"error: {source.error or 'unknown'}"
    return source.status.value


class LibraryPanel(QTreeWidget):
    """Courses with their files; selecting a course asks the window to filter by it."""

    course_selected = Signal(object)  # course name, or None for every course
    remove_requested = Signal(str, bool)  # course name or file path, is_course

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Library", "State"])
        self.setColumnCount(2)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.itemSelectionChanged.connect(self._selection_changed)
        self._files: dict[str, QTreeWidgetItem] = {}
        self._live: dict[str, str] = {}

    def refresh(self, courses: Sequence[Course], sources: Sequence[Source]) -> None:
        """Rebuild from the library's records, keeping which courses are open."""
        expanded = {item.data(0, _PATH) for item in self._courses() if item.isExpanded()}
        first_fill = self.topLevelItemCount() == 0
        selected = self.selected_course()
        self.blockSignals(True)
        self.clear()
        self._files.clear()
        by_course: dict[str, list[Source]] = {}
        for source in sources:
            by_course.setdefault(source.course, []).append(source)
        bold = QFont(self.font())
        bold.setBold(True)
        for course in sorted(courses, key=lambda c: c.name.casefold()):
            files = sorted(by_course.get(course.name, []), key=lambda s: s.path.casefold())
            item = QTreeWidgetItem(self, [course.name, f"{len(files)} files"])
            item.setData(0, _PATH, course.name)
            item.setData(0, _IS_COURSE, True)
            item.setToolTip(0, course.name)
            item.setFont(0, bold)
            problems = sum(1 for s in files if s.status == SourceStatus.ERROR)
            if problems:
                item.setText(1, f"{len(files)} files, {problems} with errors")
            for source in files:
                child = QTreeWidgetItem(item, [Path(source.path).name, status_text(source)])
                child.setData(0, _PATH, source.path)
                child.setData(0, _IS_COURSE, False)
                child.setToolTip(0, f"{KIND_LABEL[source.kind]}: {source.path}")
                child.setToolTip(1, status_text(source))
                self._files[source.path] = child
            item.setExpanded(first_fill or course.name in expanded)
            if course.name == selected:
                item.setSelected(True)
        for path, text in self._live.items():
            self.set_file_state(path, text)
        self.blockSignals(False)

    def set_file_state(self, path: str, text: str) -> None:
        """Show an import's live state of one file (kept until ``clear_live``)."""
        self._live[path] = text
        item = self._files.get(path)
        if item is not None:
            item.setText(1, text)
            item.setToolTip(1, text)

    def clear_live(self) -> None:
        self._live.clear()

    def state_of(self, path: str) -> str | None:
        item = self._files.get(path)
        return None if item is None else item.text(1)

    def selected_course(self) -> str | None:
        items = self.selectedItems()
        if not items:
            return None
        item = items[0]
        while (parent := item.parent()) is not None:
            item = parent
        return item.data(0, _PATH)

    def select_course(self, name: str | None) -> None:
        self.clearSelection()
        for item in self._courses():
            if item.data(0, _PATH) == name:
                item.setSelected(True)

    def _courses(self) -> list[QTreeWidgetItem]:
        items = (self.topLevelItem(i) for i in range(self.topLevelItemCount()))
        return [item for item in items if item is not None]

    def _selection_changed(self) -> None:
        self.course_selected.emit(self.selected_course())

    def _menu(self, point: QPoint) -> None:
        item = self.itemAt(point)
        if item is None:
            return
        target = str(item.data(0, _PATH))
        is_course = bool(item.data(0, _IS_COURSE))
        menu = QMenu(self)
        what = f"course “{target}”" if is_course else f"“{Path(target).name}”"
        menu.addAction(f"Remove {what} from the library…").triggered.connect(
            lambda: self.remove_requested.emit(target, is_course)
        )
        menu.exec(self.viewport().mapToGlobal(point))
