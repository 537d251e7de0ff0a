"""The search pane's widgets as they are made: the search box, the course and kind filters
and the status line, each named and described for a screen reader. What they do together
(searching as one types, showing results) is app/search/pane.py's."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit, QSizePolicy, QToolButton

from app.accessible import describe
from app.search.status_line import StatusLine
from engine.api import KIND_NAMES, SegmentKind


def search_box(keys: str) -> QLineEdit:
    """The box a question is typed in (``keys``: those that focus it, for its tooltip),
    with a clear button a screen reader names."""
    box = QLineEdit(placeholderText="Search your courses (Up: earlier searches)")
    box.setClearButtonEnabled(True)
    describe(
        box,
        "Search",
        "Type a question or words; Enter opens the top result, Down moves to the "
        "results, Up in an empty box recalls earlier searches, Esc clears.",
        f"Search your courses ({keys})",
    )
    name_clear_button(box)
    return box


def name_clear_button(box: QLineEdit) -> None:
    """The box's clear button is Qt's own, an icon named by nothing: a screen reader
    would say "button"."""
    for action in box.actions():
        if action.objectName() == "_q_qlineeditclearaction":
            action.setText("Clear search")
            action.setToolTip("Clear the search (Esc)")
    for button in box.findChildren(QToolButton):
        describe(button, "Clear search", "Empty the search box (Esc).")


def filter_boxes() -> tuple[QComboBox, QComboBox]:
    """The course filter (all courses until the library's are set) and the kind filter
    (its items' data: a SegmentKind's value, None for all kinds)."""
    course_box, kind_box = QComboBox(), QComboBox()
    course_box.addItem("All courses", None)
    kind_box.addItem("All kinds", None)
    describe(course_box, "Course", "Search one course or all of them.")
    describe(
        kind_box,
        "Kind",
        "Search speech, on-screen text, slides, code, notes files, or My notes: the notes "
        "you added at a moment, a page or a line.",
    )
    for kind in SegmentKind:
        kind_box.addItem(KIND_NAMES[kind], kind.value)  # Qt keeps enums as plain str
    for box in (course_box, kind_box):
        box.setMinimumContentsLength(8)  # a long course name must not widen the pane
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    return course_box, kind_box


def status_line() -> StatusLine:
    """The line under the results: two lines high always, so the list above does not jump
    as messages come and go."""
    status = StatusLine()
    status.setWordWrap(True)
    status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    status.fit_height()
    status.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    return status
