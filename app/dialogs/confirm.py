"""Questions before what cannot be undone (remove, replace a file, delete a model): No is
the default button, so a stray Enter, typed while the box popped up, keeps everything."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def confirmed(
    parent: QWidget | None,
    title: str,
    text: str,
    icon: QMessageBox.Icon = QMessageBox.Icon.Question,
) -> bool:
    """Ask ``text`` with Yes and No, No the default (Enter) and Esc; True for Yes."""
    no = QMessageBox.StandardButton.No
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Yes | no, parent)
    box.setDefaultButton(no)
    box.setEscapeButton(no)
    try:
        return box.exec() == QMessageBox.StandardButton.Yes
    finally:
        box.deleteLater()
