"""Which courses of the library panel are open, as the student left them.

The window keeps them between starts (``LibraryPanel.remember_open`` and ``open_courses``):
a course shows open or closed as it was left, from the next fill on. A course not known is
open when it holds at most ``FEW_FILES`` files: 900 notes would bury every other course.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from app.library.rows import PATH, course_rows

FEW_FILES = 20  # a course new to the panel opens when it holds at most this many files


class OpenCourses:
    """Course name: open, for the courses of ``tree`` (its top rows, named by ``PATH``)
    and those remembered but not shown (yet); follows the student opening and closing them."""

    def __init__(self, tree: QTreeWidget) -> None:
        self._tree = tree
        self._open: dict[str, bool] = {}
        tree.itemExpanded.connect(self._toggled)
        tree.itemCollapsed.connect(self._toggled)

    def remember(self, expanded: Iterable[str], collapsed: Iterable[str]) -> None:
        """These courses open, those closed: the rows shown now too."""
        self._open.update(dict.fromkeys(collapsed, False))
        self._open.update(dict.fromkeys(expanded, True))
        for item in course_rows(self._tree):
            name = str(item.data(0, PATH))
            if name in self._open:
                item.setExpanded(self._open[name])

    def known(self) -> tuple[list[str], list[str]]:
        """The courses open and those closed: as shown, and as remembered for those not
        shown (yet)."""
        known = self._open | self._shown()
        return [n for n, o in known.items() if o], [n for n, o in known.items() if not o]

    def keep_shown(self) -> None:
        """Remember the rows as shown, before they are cleared and filled anew."""
        self._open.update(self._shown())

    def opens(self, name: str, files: int) -> bool:
        """Whether a course of ``files`` files shows open."""
        return self._open.get(name, files <= FEW_FILES)

    def forget(self, name: str) -> None:
        self._open.pop(name, None)

    def _shown(self) -> dict[str, bool]:
        return {str(item.data(0, PATH)): item.isExpanded() for item in course_rows(self._tree)}

    def _toggled(self, item: QTreeWidgetItem) -> None:
        if item.parent() is None:
            self._open[str(item.data(0, PATH))] = item.isExpanded()
