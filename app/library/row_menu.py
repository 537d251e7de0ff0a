"""The context menu of a library panel row: play or resume a lecture, open the file, show
its folder, export a transcript or a handout, set its language, remove it; a course's: show
its folder, export its flashcards or its course pack, set its language, remove it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QMenu, QTreeWidgetItem, QWidget

from app.library.rows import IS_COURSE, KIND, LECTURES, MISSING, PATH, ROOT, TRANSCRIBED
from engine.api import SourceKind, clock


@dataclass(frozen=True, slots=True)
class RowAsks:
    """What a row's menu asks for, each with the row's path (a course: its folder, name)."""

    play: Callable[[str], None]  # where it was left
    play_from_start: Callable[[str], None]
    open: Callable[[str], None]  # in its own application
    reveal: Callable[[str], None]  # show in its folder
    export: Callable[[str], None]  # the transcript
    remove: Callable[[str, bool], None]  # (target, is_course), after asking
    study: Callable[[str, str], None]  # ("handout", lecture), ("flashcards"|"pack", course)
    language: Callable[[str, bool], None]  # (target, is_course): ask which, then set it


def row_menu(
    parent: QWidget,
    item: QTreeWidgetItem,
    asks: RowAsks,
    position_of: Callable[[str], int | None],
) -> QMenu:
    """The context menu of a course's or a file's row (built, not shown); ``position_of``
    says where a lecture was left."""
    target = str(item.data(0, PATH))
    menu = QMenu(parent)
    if item.data(0, IS_COURSE):
        root = str(item.data(0, ROOT) or "")
        reveal = menu.addAction("Show in folder")
        reveal.triggered.connect(lambda: asks.reveal(root))
        reveal.setEnabled(bool(root))
        menu.addAction("Export flashcards…").triggered.connect(
            lambda: asks.study("flashcards", target)
        )
        menu.addAction("Export course pack…").triggered.connect(lambda: asks.study("pack", target))
        menu.addAction("Language…").triggered.connect(lambda: asks.language(target, True))
        menu.addSeparator()
        remove = menu.addAction(f"Remove course “{target}” from the library…")
        remove.triggered.connect(lambda: asks.remove(target, True))
        return menu
    kind = SourceKind(item.data(0, KIND))
    there = item.text(1) != MISSING
    if kind in LECTURES:
        left_at = position_of(target) if there else None
        play = menu.addAction(f"Resume at {clock(left_at)}" if left_at else "Play")
        play.triggered.connect(lambda: asks.play(target))
        play.setEnabled(there)
        if left_at:
            menu.addAction("Play from the start").triggered.connect(
                lambda: asks.play_from_start(target)
            )
    opened = menu.addAction("Open original file")
    opened.triggered.connect(lambda: asks.open(target))
    opened.setEnabled(there)
    menu.addAction("Show in folder").triggered.connect(lambda: asks.reveal(target))
    if kind in TRANSCRIBED:
        export = menu.addAction("Export transcript…")
        export.triggered.connect(lambda: asks.export(target))
        export.setEnabled(item.text(1) in ("indexed", MISSING))
        handout = menu.addAction("Export handout…")
        handout.triggered.connect(lambda: asks.study("handout", target))
        handout.setEnabled(export.isEnabled())
    language = menu.addAction("Language…")  # read or heard again: it must be there
    language.triggered.connect(lambda: asks.language(target, False))
    language.setEnabled(there)
    menu.addSeparator()
    menu.addAction(f"Remove “{Path(target).name}” from the library…").triggered.connect(
        lambda: asks.remove(target, False)
    )
    return menu
