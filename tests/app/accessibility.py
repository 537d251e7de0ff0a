"""A walk of a window's accessibility tree as a screen reader sees it (QAccessible), and
the interactive parts in it that have no name.

A part is named when QAccessible gives it a name, or, for a combo box, when it has a label:
on Linux and macOS Qt reports a combo box's current item as its name (its accessible name is
not read there) and names it through its label, so its text is always there and proves
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QWidget

Role = QAccessible.Role
INTERACTIVE = frozenset({
    Role.Button, Role.CheckBox, Role.RadioButton, Role.ComboBox, Role.EditableText,
    Role.SpinBox, Role.Slider, Role.Dial, Role.List, Role.Tree, Role.Table, Role.MenuItem,
    Role.PageTab, Role.ButtonMenu, Role.ButtonDropDown, Role.ListItem, Role.TreeItem,
    Role.Link,
})  # fmt: skip
# Parts whose name does not say what they do or hold: they need a description too.
DESCRIBED = frozenset({
    Role.ComboBox, Role.EditableText, Role.SpinBox, Role.Slider, Role.Dial, Role.List,
    Role.Tree, Role.Table,
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Part:
    path: str  # the objects from the window down, e.g. MainWindow/…/SearchPane/QLineEdit
    role: QAccessible.Role
    name: str
    description: str
    widget: bool  # a QWidget (else an item, a menu's action)
    shown: bool
    depth: int
    in_combo: bool  # a combo box's popup list: announced as the combo box's, with its items

    @property
    def interactive(self) -> bool:
        return self.role in INTERACTIVE

    def line(self) -> str:
        hidden = "" if self.shown else " (hidden)"
        text = f"{'  ' * self.depth}{self.role.name}{hidden}: {self.name!r}"
        return text + (f" — {self.description}" if self.description else "")


def _label(obj: QObject | None, role: QAccessible.Role, index: int) -> str:
    if obj is None:
        return f"{role.name}[{index}]"
    name = obj.objectName()
    kind = type(obj).__name__
    return f"{kind}#{name}" if name and not name.startswith("qt_") else kind


def _name(iface: QAccessibleInterface) -> str:
    if iface.role() == Role.ComboBox:
        labelled = iface.relations(QAccessible.RelationFlag.Label)
        return next((i.text(QAccessible.Text.Name) for i, _ in labelled), "")
    return iface.text(QAccessible.Text.Name).strip()


def walk(
    iface: QAccessibleInterface | None, path: str = "", depth: int = 0, in_combo: bool = False
) -> list[Part]:
    """Every part under ``iface`` (itself first), hidden ones too: they show in another
    state of the window and must be named then."""
    if iface is None or not iface.isValid():
        return []
    obj = iface.object()
    role = iface.role()
    here = path or _label(obj, role, 0)
    part = Part(
        here,
        role,
        _name(iface),
        iface.text(QAccessible.Text.Description).strip(),
        isinstance(obj, QWidget),
        not iface.state().invisible,
        depth,
        in_combo,
    )
    parts = [part]
    for index in range(iface.childCount()):
        child = iface.child(index)
        if child is None:
            continue
        label = _label(child.object(), child.role(), index)
        parts += walk(child, f"{here}/{label}", depth + 1, role == Role.ComboBox)
    return parts


def walk_widget(widget: QWidget) -> list[Part]:
    return walk(QAccessible.queryAccessibleInterface(widget))


def unnamed(parts: list[Part]) -> list[str]:
    """The interactive parts without a name, and the widgets of DESCRIBED roles without a
    description, each with its path."""
    parts = [p for p in parts if not p.in_combo]
    missing = [
        f"{p.role.name} without a name: {p.path}" for p in parts if p.interactive and not p.name
    ]
    missing += [
        f"{p.role.name} without a description: {p.path}"
        for p in parts
        if p.role in DESCRIBED and p.widget and not p.description
    ]
    return missing


def report(title: str, parts: list[Part]) -> str:
    """The walk as text, one part a line, indented by depth (what the test prints)."""
    return "\n".join([f"== {title}", *(p.line() for p in parts)])
