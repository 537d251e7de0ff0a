"""What a narrow window or a 1.5x scale must leave of the player (issue 36, item 5): each
control of its bar as large as it asks to be, so no text is cut ("+…s", an empty speed box, a
stub of a volume slider), inside the bar and on the screen; and a transcript that wraps its
lines between words, never inside one ("proble m")."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QSlider, QSplitter, QWidget

from app.player.view import PlayerView

LEAST_VOLUME_WIDTH = 60  # px: a slider that can be dragged, not a stub


def cut_controls(player: PlayerView) -> list[str]:
    """The controls of ``player``'s bar that are not shown whole, each with why."""
    bar, window = player.controls, player.window()
    problems: list[str] = []
    for control in [*bar.focus_order(), bar.time_label]:
        name = control.accessibleName()
        box = QRect(control.mapTo(bar, QPoint(0, 0)), control.size())
        in_window = QRect(control.mapTo(window, QPoint(0, 0)), control.size())
        if not control.isVisible():
            problems.append(f"{name}: hidden")
        elif not bar.rect().contains(box) or not window.rect().contains(in_window):
            problems.append(f"{name}: at {in_window.getRect()}, off the bar or the window")
        elif control is bar.volume_slider and control.width() < LEAST_VOLUME_WIDTH:
            problems.append(f"{name}: {control.width()} px wide")
        elif not isinstance(control, QSlider) and control.width() < control.sizeHint().width():
            problems.append(f"{name}: {control.width()} px of {control.sizeHint().width()}")
    return problems


def broken_words(player: PlayerView) -> list[str]:
    """The transcript's lines as they are wrapped now, where a word is split between two
    lines ("proble|m")."""
    listing = player.transcript_list
    split: list[str] = []
    for row in range(listing.count()):
        item = listing.item(row)
        text = item.text()
        width = listing.visualItemRect(item).width() - 2 * player.transcript.delegate.MARGIN
        document = player.transcript.delegate.document(text, width, "black")
        block = document.begin()
        while block.isValid():
            layout, start = block.layout(), block.position()
            for n in range(layout.lineCount() - 1):
                end = layout.lineAt(n).textStart() + layout.lineAt(n).textLength()
                before, after = block.text()[end - 1 : end], block.text()[end : end + 1]
                if before.isalnum() and after.isalnum():
                    split.append(f"{block.text()[max(0, end - 12) : end]}|{after} ({start})")
            block = block.next()
    return split


def narrowest_preview(window: QWidget, player: PlayerView) -> None:
    """The preview as narrow as the window's panes let a user drag it, and the picture as
    wide as it goes beside the transcript."""
    outer = window.findChild(QSplitter)
    assert outer is not None
    outer.setSizes([10_000] * (outer.count() - 1) + [0])
    inner = player.findChild(QSplitter)
    assert inner is not None
    inner.setSizes([10_000, 0])
