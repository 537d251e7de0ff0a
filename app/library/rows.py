"""What a row of the library panel holds and shows: the data roles, a stored file's state
and its explanation, a course's line counted from its files' states, the widths the names
and the states get, and the delegate that draws a file's import progress on its row."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QTreeWidget,
    QTreeWidgetItem,
)

from app.languages import language_tag, named_language
from engine.api import Source, SourceKind, SourceStatus, plural, shown_name

PATH = Qt.ItemDataRole.UserRole  # a file row's source path; a course row's course name
IS_COURSE = Qt.ItemDataRole.UserRole + 1
KIND = Qt.ItemDataRole.UserRole + 2  # a file row's SourceKind value
ROOT = Qt.ItemDataRole.UserRole + 3  # a course row's folder, or "" (loose files)
PROGRESS = Qt.ItemDataRole.UserRole + 4  # an importing file's share done, 0..1; WORKING
LANGUAGE = Qt.ItemDataRole.UserRole + 5  # a file row's language code, or None: not known
WORKING = -1.0  # the file is being imported, its share not known (yet)
TYPICAL_NAME = "lecture-03-dynamic-programming.mp4"
TYPICAL_STATE = "transcribing 40%"
_STATE_SHARE = 0.4  # the most of the panel's width the state column may take
_NAME_MIN = 100  # what the names keep of a narrow panel before the states get any
_ONE_COLUMN = 200  # narrower than this, states show only as the names' colour and tooltip

KIND_LABEL = {
    SourceKind.VIDEO: "video",
    SourceKind.AUDIO: "audio",
    SourceKind.SUBTITLES: "subtitles",
    SourceKind.SLIDES: "slides",
    SourceKind.CODE: "code",
    SourceKind.NOTES: "notes",
}
LECTURES = (SourceKind.VIDEO, SourceKind.AUDIO)
TRANSCRIBED = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)
NOT_INDEXED = "not indexed"
MISSING = "missing"
REMOVING = "to be removed"
ALREADY_IN = "already in"  # a duplicate's live state: "already in “Course”: same content as …"
_UNFINISHED = (SourceStatus.QUEUED, SourceStatus.INDEXING)
PROBLEM_COLOUR = QColor("#d9534f")  # an error: readable on the light and the dark theme


def file_state(source: Source, *, importing: bool, exists: bool) -> tuple[str, str]:
    """What the state column shows for a stored file, and the tooltip that explains it."""
    name = shown_name(source.path)
    if source.status == SourceStatus.ERROR:
        return "error", f"{name} could not be indexed: {source.error or 'unknown error'}"
    if source.status in _UNFINISHED and not importing:
        return NOT_INDEXED, (
            f"The import stopped before {name} was indexed (it was cancelled, or Coursedex "
            "quit). Resume it when the bar offers it (after a cancel, at each start)."
        )
    if source.status == SourceStatus.INDEXED and not exists:
        return MISSING, (
            f"{name} is no longer at {source.path}: it was moved or deleted. Put it back, "
            "or remove it from the library."
        )
    return source.status.value, f"{name}: {source.status.value}"


def mark(item: QTreeWidgetItem, state: str, palette: QPalette) -> None:
    """A file that needs the user's eye has a coloured name, seen even when the panel is too
    narrow for the state column: red for an error, grey when not indexed or missing."""
    if state == "error":
        item.setForeground(0, QBrush(PROBLEM_COLOUR))
    elif state in (NOT_INDEXED, MISSING, REMOVING):
        item.setForeground(0, palette.brush(QPalette.ColorRole.PlaceholderText))
    else:
        item.setForeground(0, QBrush())
    font = item.font(0)
    font.setItalic(state == MISSING)
    item.setFont(0, font)


def set_language(item: QTreeWidgetItem, code: str | None) -> None:
    """Keep a file row's language, for its tag (drawn by ProgressDelegate), its name's
    tooltip (:func:`name_tooltip`) and a screen reader ("Spanish" as the name's
    description)."""
    item.setData(0, LANGUAGE, code)
    item.setData(0, Qt.ItemDataRole.AccessibleDescriptionRole, named_language(code) or None)


def languages_line(codes: Iterable[str | None]) -> str:
    """A course's languages for its tooltip, most files first, then by name: "\nIn
    Spanish (3 files), English (1 file)"; "" when none is known."""
    counts = Counter(named_language(code) for code in codes if code)
    ordered = sorted(counts.items(), key=lambda named: (-named[1], named[0]))
    parts = [f"{name} ({plural(n, 'file')})" for name, n in ordered]
    return f"\nIn {', '.join(parts)}" if parts else ""


def by_course(sources: Iterable[Source]) -> dict[str, list[Source]]:
    by_course: dict[str, list[Source]] = {}
    for source in sources:
        by_course.setdefault(source.course, []).append(source)
    return by_course


def missing_paths(sources: Sequence[Source]) -> set[str]:
    """The indexed files no longer on disk: one ``stat`` a file, so a worker's job (a slow
    or sleeping network drive must not freeze the window)."""
    indexed = (s.path for s in sources if s.status == SourceStatus.INDEXED)
    return {path for path in indexed if not Path(path).exists()}


def short_state(text: str) -> str:
    """A live state as the column shows it: an error's reason goes to the tooltip, and so
    does the file holding a duplicate's content (the column names its course)."""
    if text.startswith(ALREADY_IN):
        return text[: text.find("”") + 1]
    return "error" if text.startswith("error") else text


def live_why(path: str, text: str) -> str:
    """The tooltip of an import's live state of a file: an error says why, as a stored
    error does (:func:`file_state`)."""
    name = shown_name(path)
    if text.startswith("error: "):
        return f"{name} could not be indexed: {text.removeprefix('error: ')}"
    return f"{name}: {text}"


def name_tooltip(item: QTreeWidgetItem, path: str, why: str) -> str:
    """A file row's name tooltip: its kind and path, its state's words ``why``, and its
    language when known (the row's data, set by :func:`set_language`)."""
    kind = KIND_LABEL[SourceKind(item.data(0, KIND))]
    language = named_language(item.data(0, LANGUAGE))
    return f"{kind}: {path}\n{why}" + (f"\nLanguage: {language}" if language else "")


def show_file(
    row: QTreeWidgetItem, source: Source, state: str, why: str, palette: QPalette
) -> None:
    """A file's row from its record: its name, ``state`` with ``why`` in the tooltips, its
    kind and language, no progress; coloured by :func:`mark`."""
    row.setText(0, shown_name(source.path))
    row.setText(1, state)
    row.setData(0, PATH, source.path)
    row.setData(0, IS_COURSE, False)
    row.setData(0, KIND, source.kind.value)
    row.setData(0, PROGRESS, None)
    set_language(row, source.language)  # before its tooltip, which names it
    row.setToolTip(0, name_tooltip(row, source.path, why))
    row.setToolTip(1, why)
    mark(row, state, palette)


def typical_width(view: QTreeView) -> int:
    """Wide enough for a typical file name under its course, with a live state beside it,
    in the view's font (a larger system font asks for more)."""
    metrics = view.fontMetrics()
    name = metrics.horizontalAdvance(TYPICAL_NAME) + 2 * view.indentation()
    state = metrics.horizontalAdvance(TYPICAL_STATE)
    frame = 2 * view.frameWidth() + view.verticalScrollBar().sizeHint().width()
    return name + state + frame + 4 * metrics.averageCharWidth()  # the cells' margins


def fit_state_column(view: QTreeView) -> None:
    """The state column as wide as its text, up to a share of the view; names get the
    rest, so no state, however long, can squeeze them out. A narrow view shows the names
    only (the state is in their colour and tooltip)."""
    width = view.viewport().width()
    view.setColumnHidden(1, width < _ONE_COLUMN)
    if width < _ONE_COLUMN:
        return
    wanted = max(view.sizeHintForColumn(1), view.header().sectionSizeHint(1))
    limit = min(int(width * _STATE_SHARE), width - _NAME_MIN)
    view.header().resizeSection(1, max(0, min(wanted, limit)))


def course_rows(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    """The course rows of the panel (its top level)."""
    items = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
    return [item for item in items if item is not None]


def course_line(states: Sequence[str], removing: bool, importing: int = 0) -> tuple[str, str]:
    """A course's state column and its tooltip, from its files' states: ``4 files``;
    ``4 files, 2 errors`` when one kind of problem, ``4 files, 3 problems`` when several
    (each counted in the tooltip); ``300 files, 120 to import`` while ``importing`` of
    them wait or are worked on (a closed course says so too)."""
    states = [short_state(state) for state in states]
    problems = {
        word: states.count(state)
        for state, word in (("error", "error"), (MISSING, MISSING), (NOT_INDEXED, NOT_INDEXED))
        if state in states
    }
    counts = [plural(n, word) if word == "error" else f"{n} {word}" for word, n in problems.items()]
    total = plural(len(states), "file")
    if len(counts) == 1:
        text = f"{total}, {counts[0]}"
    elif counts:
        text = f"{total}, {plural(sum(problems.values()), 'problem')}"
    else:
        text = total
    if importing:
        counts.insert(0, f"{importing} to import")
        text = f"{total}, {counts[0]}"
    return (REMOVING if removing else text), ", ".join([total, *counts])


class ProgressDelegate(QStyledItemDelegate):
    """Draws an importing file's progress as a thin bar along the bottom of its row, across
    the columns shown: a panel too narrow for the state column still shows it. Only the
    track while the share is not known."""

    BAR = 3  # px; every row is that much taller, so the bar never covers a name

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self.view = view

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        size = super().sizeHint(option, index)
        tag = language_tag(index.data(LANGUAGE)) if index.column() == 0 else ""
        extra = self._tag_width(QFontMetrics(self.view.font()), tag) if tag else 0
        return QSize(size.width() + extra, size.height() + self.BAR)

    @staticmethod
    def _tag_width(metrics: QFontMetrics, tag: str) -> int:
        return metrics.horizontalAdvance(tag) + 3 * metrics.averageCharWidth()

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        tag = language_tag(index.data(LANGUAGE)) if index.column() == 0 else ""
        if tag:
            self._paint_tagged(painter, option, index, tag)
        else:
            super().paint(painter, option, index)
        name = index.sibling(index.row(), 0)
        share = name.data(PROGRESS)
        if not isinstance(share, float):
            return
        cell: QRect = option.rect  # pyright: ignore[reportAttributeAccessIssue]
        left = self.view.visualRect(QModelIndex(name)).left()
        bar = QRect(left, cell.bottom() - self.BAR + 1, self.view.viewport().width() - left, 3)
        palette = self.view.palette()
        painter.save()
        painter.setClipRect(cell)
        painter.fillRect(bar, palette.color(QPalette.ColorRole.Mid))
        if share >= 0:
            done = QRect(bar.left(), bar.top(), round(bar.width() * min(share, 1.0)), bar.height())
            painter.fillRect(done, palette.color(QPalette.ColorRole.Highlight))
        painter.restore()

    def _paint_tagged(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
        tag: str,
    ) -> None:
        """A name with its language's tag at the cell's right end, in a thin frame: the name
        is elided before the tag, so a long name never hides it (nor the tag the name)."""
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        metrics = QFontMetrics(item.font)
        style = self.view.style()
        cell: QRect = item.rect
        text = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, item, self.view)
        width = self._tag_width(metrics, tag)
        room = max(0, min(text.width(), cell.right() - width - text.left()))
        elided = metrics.elidedText(item.text, Qt.TextElideMode.ElideRight, room)
        item.text = elided
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, item, painter, self.view)
        pad = metrics.averageCharWidth() // 2
        box = QRect(cell.right() - width + pad, text.top(), width - 2 * pad, text.height())
        box = box.adjusted(0, 2, 0, -2)
        selected = bool(item.state & QStyle.StateFlag.State_Selected)
        roles = QPalette.ColorRole
        role = roles.HighlightedText if selected else roles.PlaceholderText
        painter.save()
        painter.setPen(self.view.palette().color(role))
        painter.drawRoundedRect(box, 3, 3)
        painter.drawText(box, int(Qt.AlignmentFlag.AlignCenter), tag)
        painter.restore()
