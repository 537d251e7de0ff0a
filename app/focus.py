"""A key to each part of the window: focus the part (or the first widget in it that Tab
stops on), and say which key it is in what a screen reader reads and in tooltips."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QStackedWidget, QTabWidget, QWidget


def takes_tab(widget: QWidget) -> bool:
    """Whether Tab may stop on ``widget`` now (shown, enabled, and taking Tab focus)."""
    return (
        widget.isVisible()
        and widget.isEnabled()
        and bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
        and widget.focusProxy() is None
    )


def tab_chain(window: QWidget, parts: Sequence[QWidget]) -> list[QWidget]:
    """The widgets Tab stops on inside ``parts``, part by part, each in Qt's focus chain
    order."""
    in_qt_order: list[QWidget] = []
    widget = window.nextInFocusChain()
    while widget is not None and widget is not window and widget not in in_qt_order:
        in_qt_order.append(widget)
        widget = widget.nextInFocusChain()
    chain: list[QWidget] = []
    for part in parts:
        chain += [w for w in in_qt_order if (w is part or part.isAncestorOf(w)) and takes_tab(w)]
    return chain


def reveal(part: QWidget) -> None:
    """Show the tab that holds ``part`` (the Notes panel, behind the library's tab)."""
    widget: QWidget | None = part
    while widget is not None:
        stack = widget.parentWidget()
        tabs = stack.parentWidget() if isinstance(stack, QStackedWidget) else None
        if isinstance(tabs, QTabWidget) and tabs.indexOf(widget) >= 0:
            tabs.setCurrentWidget(widget)
        widget = stack


def focus_into(part: QWidget) -> None:
    """Give the focus to ``part``, or to the first widget inside it that Tab stops on (its
    tab shown first)."""
    reveal(part)
    if takes_tab(part):
        part.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return
    window = part.window()
    for widget in tab_chain(window, (part,)):
        widget.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return


def mention_key(widget: QWidget, keys: QKeySequence, *, tooltip: bool) -> None:
    """Say which key reaches ``widget``: in what a screen reader says of it, and in its
    tooltip when ``tooltip`` (not on a list or a pane: it would follow the pointer over
    every row)."""
    shown = keys.toString(QKeySequence.SequenceFormat.NativeText)
    said = widget.accessibleDescription()
    widget.setAccessibleDescription(f"{said} Key: {shown}." if said else f"Key: {shown}.")
    if tooltip:
        tip = widget.toolTip()
        widget.setToolTip(f"{tip} ({shown})" if tip else shown)
