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
and a course's line is counted from its rows.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QFont, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QHeaderView, QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from app.library.row_menu import RowAsks, row_menu
from app.library.rows import (
    IS_COURSE,
    KIND,
    LANGUAGE,
    LECTURES,
    MISSING,
    NOT_INDEXED,
    PATH,
    PROGRESS,
    REMOVING,
    ROOT,
    ProgressDelegate,
    by_course,
    course_line,
    file_state,
    languages_line,
    live_why,
    mark,
    name_tooltip,
    set_language,
    short_state,
    typical_width,
)
from engine.api import Course, Source, SourceKind, shown_name

_STATE_SHARE = 0.4  # the most of the panel's width the state column may take
_NAME_MIN = 100  # what the names keep of a narrow panel before the states get any
_ONE_COLUMN = 200  # narrower than this, states show only as the names' colour and tooltip
FEW_FILES = 20  # a course new to the panel opens when it holds at most this many files


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
        self.itemActivated.connect(self._activated)
        self.setItemDelegate(ProgressDelegate(self))
        self.itemExpanded.connect(self._course_toggled)
        self.itemCollapsed.connect(self._course_toggled)
        self._open: dict[str, bool] = {}  # course name: open, as the student left it
        self._files: dict[str, QTreeWidgetItem] = {}
        self._records: dict[str, Course] = {}  # each course row's record, by name
        self._live: dict[str, tuple[str, float | None]] = {}  # state, share done
        self._removing: set[str] = set()
        self._importing = False
        self._menu_open = False
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
        self._open.update(self._shown_open())
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
            item.setExpanded(self._opens(course.name, item.childCount()))
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
                item.setExpanded(self._opens(course.name, len(files)))

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
        self._open.pop(name, None)

    # --- which courses are open, kept between starts ------------------------------------

    def remember_open(self, expanded: Iterable[str], collapsed: Iterable[str]) -> None:
        """The courses the student left open or closed (the window keeps them between
        starts): they show so from the next fill on. A course not among them is open when it
        holds at most ``FEW_FILES`` files: 900 notes would bury every other course."""
        self._open.update(dict.fromkeys(collapsed, False))
        self._open.update(dict.fromkeys(expanded, True))
        for item in self._courses():
            name = str(item.data(0, PATH))
            if name in self._open:
                item.setExpanded(self._open[name])

    def open_courses(self) -> tuple[list[str], list[str]]:
        """The courses open and those closed, to remember: as shown, and as remembered for
        those not shown (yet)."""
        known = self._open | self._shown_open()
        return [n for n, o in known.items() if o], [n for n, o in known.items() if not o]

    def _shown_open(self) -> dict[str, bool]:
        return {str(item.data(0, PATH)): item.isExpanded() for item in self._courses()}

    def _opens(self, name: str, files: int) -> bool:
        return self._open.get(name, files <= FEW_FILES)

    def _course_toggled(self, item: QTreeWidgetItem) -> None:
        if item.parent() is None:
            self._open[str(item.data(0, PATH))] = item.isExpanded()

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
        child.setText(0, shown_name(source.path))
        child.setText(1, state)
        child.setData(0, PATH, source.path)
        child.setData(0, IS_COURSE, False)
        child.setData(0, KIND, source.kind.value)
        child.setData(0, PROGRESS, None)
        set_language(child, source.language)  # before its tooltip, which names it
        child.setToolTip(0, name_tooltip(child, source.path, why))
        child.setToolTip(1, why)
        mark(child, state, self.palette())
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
        """The state column as wide as its text, up to a share of the panel; names get the
        rest, so no state, however long, can squeeze them out."""
        width = self.viewport().width()
        self.setColumnHidden(1, width < _ONE_COLUMN)
        if width < _ONE_COLUMN:
            return
        wanted = max(self.sizeHintForColumn(1), self.header().sectionSizeHint(1))
        limit = min(int(width * _STATE_SHARE), width - _NAME_MIN)
        self.header().resizeSection(1, max(0, min(wanted, limit)))

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
        items = (self.topLevelItem(i) for i in range(self.topLevelItemCount()))
        return [item for item in items if item is not None]

    @staticmethod
    def _children(course: QTreeWidgetItem) -> list[QTreeWidgetItem]:
        children = (course.child(i) for i in range(course.childCount()))
        return [child for child in children if child is not None]

    def _selection_changed(self) -> None:
        self.course_selected.emit(self.selected_course())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Delete (or Backspace, as on a Mac) removes the current row, after asking;
        Shift+F10 opens its menu, as the Menu key does (Qt makes no menu event of it)."""
        item = self.currentItem()
        if item is not None and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.remove_requested.emit(str(item.data(0, PATH)), bool(item.data(0, IS_COURSE)))
            return
        shift = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.key() == Qt.Key.Key_F10 and shift == Qt.KeyboardModifier.ShiftModifier:
            self._keyboard_menu()
            return
        super().keyPressEvent(event)

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        """Enter or a double-click: play a lecture, open any other file in its application."""
        if item.data(0, IS_COURSE):
            return
        path = str(item.data(0, PATH))
        if SourceKind(item.data(0, KIND)) in LECTURES:
            self.play_requested.emit(path)
        else:
            self.open_requested.emit(path)

    def menu_for(self, item: QTreeWidgetItem) -> QMenu:
        """The context menu of a row (built, not shown)."""
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
        return row_menu(self, item, asks, self.position_of)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """A menu from the keyboard is the current row's, at that row; one from the mouse is
        the row's under the pointer. The keyboard's event carries the current row's place in
        the panel's own coordinates, not its viewport's (the header's height apart): read as
        a viewport point it named the next row, whose file Remove would then have removed."""
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            self._keyboard_menu()
            return
        point = self.viewport().mapFromGlobal(event.globalPos())
        item = self.itemAt(point)
        if item is not None:
            self._show_menu(item, event.globalPos())

    def _keyboard_menu(self) -> None:
        item = self.currentItem()
        if item is None or not item.isSelected():
            selected = self.selectedItems()
            item = selected[0] if selected else item
        if item is None:
            return
        self.scrollToItem(item)
        cell = self.visualItemRect(item)
        name = self.visualRect(self.indexFromItem(item, 0))  # past the tree's indent
        self._show_menu(item, self.viewport().mapToGlobal(QPoint(name.left(), cell.bottom())))

    def _show_menu(self, item: QTreeWidgetItem, at: QPoint) -> None:
        """One menu at a time: a platform that also makes a menu event of the key that
        opened one (Shift+F10 on some) does not stack a second."""
        if self._menu_open:
            return
        self._menu_open = True
        menu = self.menu_for(item)
        try:
            menu.exec(at)
        finally:
            self._menu_open = False
            menu.deleteLater()
