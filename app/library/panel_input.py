"""What the user does with a row of the library panel, beside selecting it: Enter or a
double-click plays a lecture or opens any other file, Delete (or Backspace) removes the row
after asking, and a right-click, the Menu key or Shift+F10 opens the row's menu
(app/library/row_menu.py) at the row, one menu at a time.

The panel (app/library/panel.py) hands its key and menu events here and emits what is asked
through the signals it gives as ``RowAsks``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QKeyEvent
from PySide6.QtWidgets import QMenu, QTreeWidget, QTreeWidgetItem

from app.library.row_menu import RowAsks, row_menu
from app.library.rows import IS_COURSE, KIND, LECTURES, PATH
from engine.api import SourceKind


class PanelInput:
    """The keys, activation and menus of ``tree``'s rows; ``position_of`` says where a
    lecture was left (read when a menu is built, as the window may set it later)."""

    def __init__(
        self, tree: QTreeWidget, asks: RowAsks, position_of: Callable[[str], int | None]
    ) -> None:
        self._tree = tree
        self._asks = asks
        self._position_of = position_of
        self._menu_open = False

    def key_pressed(self, event: QKeyEvent) -> bool:
        """Delete (or Backspace, as on a Mac) removes the current row, after asking;
        Shift+F10 opens its menu, as the Menu key does (Qt makes no menu event of it).
        False: the key is not one of these."""
        item = self._tree.currentItem()
        if item is not None and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self._asks.remove(str(item.data(0, PATH)), bool(item.data(0, IS_COURSE)))
            return True
        shift = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.key() == Qt.Key.Key_F10 and shift == Qt.KeyboardModifier.ShiftModifier:
            self.keyboard_menu()
            return True
        return False

    def activated(self, item: QTreeWidgetItem, _column: int) -> None:
        """Enter or a double-click: play a lecture, open any other file in its application."""
        if item.data(0, IS_COURSE):
            return
        path = str(item.data(0, PATH))
        if SourceKind(item.data(0, KIND)) in LECTURES:
            self._asks.play(path)
        else:
            self._asks.open(path)

    def menu_for(self, item: QTreeWidgetItem) -> QMenu:
        """The context menu of a row (built, not shown)."""
        return row_menu(self._tree, item, self._asks, self._position_of)

    def context_menu(self, event: QContextMenuEvent) -> None:
        """A menu from the keyboard is the current row's, at that row; one from the mouse is
        the row's under the pointer. The keyboard's event carries the current row's place in
        the panel's own coordinates, not its viewport's (the header's height apart): read as
        a viewport point it named the next row, whose file Remove would then have removed."""
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            self.keyboard_menu()
            return
        tree = self._tree
        point = tree.viewport().mapFromGlobal(event.globalPos())
        item = tree.itemAt(point)
        if item is not None:
            self._show_menu(item, event.globalPos())

    def keyboard_menu(self) -> None:
        tree = self._tree
        item = tree.currentItem()
        if item is None or not item.isSelected():
            selected = tree.selectedItems()
            item = selected[0] if selected else item
        if item is None:
            return
        tree.scrollToItem(item)
        cell = tree.visualItemRect(item)
        name = tree.visualRect(tree.indexFromItem(item, 0))  # past the tree's indent
        self._show_menu(item, tree.viewport().mapToGlobal(QPoint(name.left(), cell.bottom())))

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
