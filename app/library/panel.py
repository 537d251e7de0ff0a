"""The library side panel: courses, their files, and each file's state.

A file's state is what the library says (queued, indexing, indexed, error) until an import
reports on it live ("transcribing 43%"); the read of its course after the import puts the
stored state back. A file the last import did not finish reads "not indexed" (it is queued
in the library, to resume when the user says so), an indexed file that is gone from disk
"missing". The state column shows a word or two; the reason is in its tooltip, so a long
error never takes the width the names need.

The panel is filled whole once (:meth:`LibraryPanel.refresh`); after that it follows the
library row by row (:meth:`~LibraryPanel.update_courses`, ``remove_file``, ``remove_course``,
``set_file_state``, driven by app/library/changes.py): a row, once shown, stays the same row,
and a course's line is counted from its rows. What a row shows is app/library/rows.py, which
courses are open app/library/open_courses.py, a row's keys and menu app/library/panel_input.py.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QFont, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QHeaderView, QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from app.library.open_courses import FEW_FILES, OpenCourses
from app.library.panel_input import PanelInput
from app.library.row_menu import RowAsks
from app.library.rows import (
    IS_COURSE,
    LANGUAGE,
    MISSING,
    NOT_INDEXED,
    PATH,
    PROGRESS,
    REMOVING,
    ROOT,
    ProgressDelegate,
    by_course,
    course_line,
    course_rows,
    file_state,
    fit_state_column,
    languages_line,
    live_why,
    mark,
    name_tooltip,
    short_state,
    show_file,
    typical_width,
)
from engine.api import Course, Source, shown_name

__all__ = ["FEW_FILES", "LibraryPanel"]


class LibraryPanel(QTreeWidget):
    """Courses with their files; selecting a course asks the window to filter by it."""

    course_selected = Signal(object)  # course name, or None for every course
    remove_requested = Signal(str, bool)  # course name or file path, is_course
    play_requested = Signal(str)  # a lecture's path: play it where it was left
    play_from_start = Signal(str)  # a lecture's path
    open_requested = Signal(str)  # a file's path: open it in its own application
    reveal_requested = Signal(str)  # a file's or a course folder's path: show its folder
    export_requested = Signal(str)  # a lecture's path: save its transcript
    # ("handout", a lecture's path), or ("flashcards" or "pack", a course's name)
    study_requested = Signal(str, str)
    language_requested = Signal(str, bool)  # a file's path or a course's name, is_course

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Library", "State"])
        self.setColumnCount(2)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)  # a name's start tells most
        self.itemSelectionChanged.connect(self._selection_changed)
        asks = RowAsks(
            self.play_requested.emit,
            self.play_from_start.emit,
            self.open_requested.emit,
            self.reveal_requested.emit,
            self.export_requested.emit,
            self.remove_requested.emit,
            self.study_requested.emit,
            self.language_requested.emit,
        )
        self._input = PanelInput(self, asks, lambda path: self.position_of(path))
        self.itemActivated.connect(self._input.activated)
        self.setItemDelegate(ProgressDelegate(self))
        self._open = OpenCourses(self)  # which courses are open, as the student left them
        self._files: dict[str, QTreeWidgetItem] = {}
        self._records: dict[str, Course] = {}  # each course row's record, by name
        self._live: dict[str, tuple[str, float | None]] = {}  # state, share done
        self._removing: set[str] = set()
        self._importing = False
        # Where a lecture was left (ms), for its menu; the window sets the player's memory.
        self.position_of: Callable[[str], int | None] = lambda _path: None

    @property
    def importing(self) -> bool:
        """Whether an import runs (queued files are then waiting, not left unfinished)."""
        return self._importing or bool(self._live)

    def set_importing(self, importing: bool) -> None:
        self._importing = importing

    def refresh(
        self, courses: Sequence[Course], sources: Sequence[Source], missing: Collection[str]
    ) -> None:
        """Rebuild from the whole library's records, keeping which courses are open;
        ``missing`` holds the indexed files gone from disk (:func:`missing_paths`, read on a
        worker). Only at the start and for a change rows cannot follow: :meth:`update_courses`."""
        self._open.keep_shown()
        selected = self.selected_course()
        self.blockSignals(True)
        self.clear()
        self._files.clear()
        self._records.clear()
        files_of = by_course(sources)
        for course in sorted(courses, key=lambda c: c.name.casefold()):
            item = self._course_row(course)
            for source in sorted(files_of.get(course.name, []), key=lambda s: s.path.casefold()):
                self._fill_file(QTreeWidgetItem(item), source, source.path not in missing)
            self._summarise(item)
            item.setExpanded(self._open.opens(course.name, item.childCount()))
            if course.name == selected:
                item.setSelected(True)
        for path, (text, share) in self._live.items():
            self.set_file_state(path, text, share)
        self.blockSignals(False)
        self._fit_columns()

    def update_courses(
        self, courses: Sequence[Course], sources: Sequence[Source], missing: Collection[str]
    ) -> None:
        """Bring the rows of these courses (all their files' records given) in line: a row
        added, changed or taken away where its file was; the other rows stay as they are."""
        with self._rows_going():
            self._update_courses(courses, by_course(sources), missing)
        self._fit_columns()

    def _update_courses(
        self,
        courses: Sequence[Course],
        files_of: dict[str, list[Source]],
        missing: Collection[str],
    ) -> None:
        for course in courses:
            item = self.item_of_course(course.name)
            new = item is None
            if item is None:
                item = self._course_row(course)
            else:
                self._describe_course(item, course)
            files = sorted(files_of.get(course.name, []), key=lambda s: s.path.casefold())
            paths = {s.path for s in files}
            for child in self._children(item):
                if str(child.data(0, PATH)) not in paths:
                    self._take(child)
            # Both in path order: each file's row is at ``at``, or goes there.
            for at, source in enumerate(files):
                row = self._files.get(source.path)
                if row is not None and row.parent() is not item:  # moved to this course
                    self._take(row)
                    row = None
                if row is None:
                    row = QTreeWidgetItem()
                    item.insertChild(at, row)
                elif item.child(at) is not row:  # out of order: put in its place
                    item.removeChild(row)
                    item.insertChild(at, row)
                self._fill_file(row, source, source.path not in missing)
                if source.path in self._live:
                    self.set_file_state(source.path, *self._live[source.path])
            self._summarise(item)
            if new:  # a course of a few files shows them as they import
                item.setExpanded(self._open.opens(course.name, len(files)))

    def remove_file(self, path: str) -> None:
        """The file is no longer in the library: its row goes, its course's count follows."""
        row = self._files.get(path)
        if row is not None:
            course = row.parent()
            with self._rows_going():
                self._take(row)
            if course is not None:
                self._summarise(course)
        self._live.pop(path, None)
        self._removing.discard(path)

    def remove_course(self, name: str) -> None:
        item = self.item_of_course(name)
        if item is not None:
            with self._rows_going():
                for child in self._children(item):
                    self._take(child)
                self.takeTopLevelItem(self.indexOfTopLevelItem(item))
        self._records.pop(name, None)
        self._removing.discard(name)
        self._open.forget(name)

    def remember_open(self, expanded: Iterable[str], collapsed: Iterable[str]) -> None:
        """The courses the student left open or closed (the window keeps them between
        starts): they show so from the next fill on (app/library/open_courses.py)."""
        self._open.remember(expanded, collapsed)

    def open_courses(self) -> tuple[list[str], list[str]]:
        """The courses open and those closed, to remember."""
        return self._open.known()

    def courses(self) -> list[Course]:
        """The library's courses, as last read."""
        return list(self._records.values())

    def file_count(self) -> int:
        return len(self._files)

    def _course_row(self, course: Course) -> QTreeWidgetItem:
        """A new course row, in its place by name."""
        names = [str(i.data(0, PATH)).casefold() for i in self._courses()]
        item = QTreeWidgetItem([course.name, ""])
        self.insertTopLevelItem(bisect.bisect(names, course.name.casefold()), item)
        bold = QFont(self.font())
        bold.setBold(True)
        item.setFont(0, bold)
        item.setData(0, IS_COURSE, True)
        self._describe_course(item, course)
        return item

    def _describe_course(self, item: QTreeWidgetItem, course: Course) -> None:
        self._records[course.name] = course
        item.setData(0, PATH, course.name)
        item.setData(0, ROOT, course.root or "")
        item.setToolTip(0, course.root or course.name)

    @contextmanager
    def _rows_going(self) -> Iterator[None]:
        """Rows taken away must not move the selection (Qt would select a row beside, and a
        course selected filters the search): what stays of it stays, with no signal."""
        kept = self.selectedItems()
        quiet = self.blockSignals(True)
        try:
            yield
        finally:
            alive = [item for item in kept if item.treeWidget() is self]
            if self.selectedItems() != alive:
                self.clearSelection()
                for item in alive:
                    item.setSelected(True)
            self.blockSignals(quiet)

    def _take(self, row: QTreeWidgetItem) -> None:
        path = str(row.data(0, PATH))
        if self._files.get(path) is row:
            del self._files[path]
        parent = row.parent()
        if parent is not None:
            parent.removeChild(row)

    def _fill_file(self, child: QTreeWidgetItem, source: Source, exists: bool) -> None:
        state, why = file_state(source, importing=self.importing, exists=exists)
        if source.path in self._removing:
            state, why = REMOVING, f"{shown_name(source.path)} is removed once the import ends"
        show_file(child, source, state, why, self.palette())
        self._files[source.path] = child

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the theme changed: grey anew
            for item in self._files.values():
                mark(item, item.text(1), self.palette())

    def _summarise(self, item: QTreeWidgetItem) -> None:
        """A course's state column, counted from its rows (rows.course_line), and in its
        tooltip the languages of its files."""
        children = self._children(item)
        states = [child.text(1) for child in children]
        waiting = sum(c.text(1) == "queued" or c.data(0, PROGRESS) is not None for c in children)
        text, tip = course_line(states, item.data(0, PATH) in self._removing, waiting)
        item.setText(1, text)
        item.setToolTip(1, tip + languages_line(c.data(0, LANGUAGE) for c in children))

    def wanted_width(self) -> int:
        """Wide enough for a typical name and state, in the user's font (rows.typical_width)."""
        return typical_width(self)

    def _fit_columns(self) -> None:
        fit_state_column(self)  # the names keep their room (rows.fit_state_column)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def set_file_state(self, path: str, text: str, share: float | None = None) -> None:
        """Show an import's live state of one file (kept until ``clear_live``): its words,
        and while it is worked on its share done (rows.WORKING: not known), drawn as a bar
        along its row."""
        self._live[path] = (text, share)
        item = self._files.get(path)
        if item is None:
            return
        if item.data(0, PROGRESS) != share:
            item.setData(0, PROGRESS, share)
        if item.toolTip(1) == (why := live_why(path, text)):
            return
        before, state = item.text(1), short_state(text)
        item.setText(1, state)
        # Both tooltips say the live state: the name's said "queued" while the row said error.
        item.setToolTip(0, name_tooltip(item, path, why))
        item.setToolTip(1, why)
        mark(item, state, self.palette())
        course = item.parent()
        counted = {"error", MISSING, NOT_INDEXED, "queued"}  # in the course's line
        if course is not None and ({before, state} & counted or share is None):
            self._summarise(course)  # a problem or a file to import came or went
        self._fit_columns()

    def clear_live(self) -> None:
        """The import ended: stored states show again (unfinished files as not indexed)."""
        for path in self._live:
            if (item := self._files.get(path)) is not None:
                item.setData(0, PROGRESS, None)
        self._live.clear()
        self._importing = False

    def set_removing(self, target: str, removing: bool = True) -> None:
        """Mark a course or file as waiting for the import to end before it is removed."""
        if removing:
            self._removing.add(target)
        else:
            self._removing.discard(target)
        for item in [*self._courses(), *self._files.values()]:
            if item.data(0, PATH) == target and removing:
                item.setText(1, REMOVING)

    def state_of(self, path: str) -> str | None:
        item = self._files.get(path)
        return None if item is None else item.text(1)

    def item_of(self, path: str) -> QTreeWidgetItem | None:
        """The row of a file, or of a course by its name."""
        return self._files.get(path) or self.item_of_course(path)

    def paths_of(self, course: str) -> list[str]:
        """The files of a course, as its rows show them."""
        item = self.item_of_course(course)
        return [] if item is None else [str(c.data(0, PATH)) for c in self._children(item)]

    def item_of_course(self, name: str) -> QTreeWidgetItem | None:
        return next((i for i in self._courses() if i.data(0, PATH) == name), None)

    def selected_course(self) -> str | None:
        items = self.selectedItems()
        if not items:
            return None
        item = items[0]
        while (parent := item.parent()) is not None:
            item = parent
        return item.data(0, PATH)

    def select_course(self, name: str | None) -> None:
        self.clearSelection()
        for item in self._courses():
            if item.data(0, PATH) == name:
                item.setSelected(True)

    def _courses(self) -> list[QTreeWidgetItem]:
        return course_rows(self)

    @staticmethod
    def _children(course: QTreeWidgetItem) -> list[QTreeWidgetItem]:
        children = (course.child(i) for i in range(course.childCount()))
        return [child for child in children if child is not None]

    def _selection_changed(self) -> None:
        self.course_selected.emit(self.selected_course())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Delete, Backspace and Shift+F10 on the current row (app/library/panel_input.py)."""
        if not self._input.key_pressed(event):
            super().keyPressEvent(event)

    def menu_for(self, item: QTreeWidgetItem) -> QMenu:
        """The context menu of a row (built, not shown)."""
        return self._input.menu_for(item)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self._input.context_menu(event)
