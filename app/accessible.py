"""What a screen reader says of a widget: its accessible name and description in one call,
with the tooltip a sighted user sees (which names the widget's key, if it has one).

Qt names a button by its text and a form's field by its label; an icon button, a box with a
placeholder, a list or a tree has no name unless it is given one, and on Linux and macOS a
combo box is named only by a label whose buddy it is: its own name reads as its current item
(tests/app/test_accessibility.py walks the window and fails on any that has none).
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QToolButton, QWidget


def describe(widget: QWidget, name: str, description: str, tooltip: str | None = None) -> None:
    """Name ``widget`` and say what it does; ``tooltip`` (when given) is shown on hover. A
    text box's clear button (Qt's own icon, named by nothing) is named too."""
    widget.setAccessibleName(name)
    widget.setAccessibleDescription(description)
    if tooltip is not None:
        widget.setToolTip(tooltip)
    if isinstance(widget, QLineEdit):
        for button in widget.findChildren(QToolButton):
            if not button.accessibleName():
                button.setAccessibleName("Clear")
                button.setAccessibleDescription(f"Empty the box “{name}”.")


def label_box(box: QComboBox, parent: QWidget) -> QLabel:
    """A hidden label naming ``box`` (by its accessible name) for Qt on Linux and macOS: there
    a screen reader names a combo box by its label only and reads its accessible name as its
    current item. ``parent``: the widget the box is laid out in (the label is its sibling)."""
    label = QLabel(box.accessibleName(), parent)
    label.setBuddy(box)
    label.hide()
    return label
