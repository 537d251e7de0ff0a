"""The player's keys: which they are, the rule for text boxes, and Help > Keyboard shortcuts.

The player's shortcuts work in its whole window. A text box takes the keys it types with
(Qt's shortcut override), so letters type there. The search box lets Space, Left and Right
through to the player while it is empty or has not been typed in since a lecture was opened.
Right after a lecture opens (Enter on a hit) it lets all the player's single keys through
(F, Space, ], [, M, C, N, P…): until the box changes, the query it shows is the one playing
and F there means full screen, not "f". The first edit ends that, and so does going to the
box to type (a click, Tab, Ctrl+L, which selects the query, or Esc, which clears it): from
then on every letter of a question types, none is lost to the player.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMenu,
    QMenuBar,
    QVBoxLayout,
    QWidget,
)

FASTER_KEY, SLOWER_KEY = "]", "["
VOLUME_UP_KEY, VOLUME_DOWN_KEY = "+", "-"
VOLUME_STEP = 10  # percent, a key press or an arrow on the volume slider
COPY_LINK_KEY = "Ctrl+Shift+C"
GO_TO_KEY = "G"
NOTE_KEY = "B"  # a bookmark: N is the next match
SEEK_BAR_KEYS = "Left, Right; Home, End; 0 to 9"

# (keys, what they do); a key name is shown in bold, "or" between them
SHORTCUTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Space", "K"), "Play or pause"),
    (("Left", "J"), "Back 10 seconds"),
    (("Right", "L"), "Forward 10 seconds"),
    (("N",), "Next match of the search in this lecture"),
    (("P",), "Previous match of the search"),
    (("R",), "Replay from the start of the passage found"),
    (("F",), "Full screen on or off"),
    (("Esc",), "Leave full screen (in the search box: clear it)"),
    (("M",), "Mute or unmute"),
    ((VOLUME_UP_KEY, VOLUME_DOWN_KEY), f"Louder or softer ({VOLUME_STEP}% a press)"),
    ((FASTER_KEY, SLOWER_KEY), "Faster or slower"),
    (("0 to 9",), "Go to the start, a tenth, … nine tenths of the lecture"),
    ((GO_TO_KEY,), "Go to a time you type (1:30, 90 s, 1:02:03)"),
    ((COPY_LINK_KEY,), "Copy a link to this moment"),
    (
        (NOTE_KEY,),
        "Add a note here: at the moment playing, on the slide's page, at the file's line "
        "(Enter saves it, Esc cancels)",
    ),
    (("C",), "Subtitles on the picture on or off"),
    (("Ctrl+F", "Ctrl+L"), "Go to the search box"),
    (
        ("Up", "Down"),
        "In the search box: move through the results (Up when it is empty: earlier searches)",
    ),
    (("Enter",), "In the search box: open the result"),
    (("Enter", "Shift+Enter"), "In the transcript's find box: next or previous line found"),
    (("Tab", "Shift+Tab"), "Move through the player's controls (Space presses a button)"),
)
TEXT_BOX_RULE = (
    "The player's keys work wherever the focus is, except while you type in a text box: "
    "there letters type, and Space, Left and Right edit the text. Right after Enter opens a "
    "lecture, the player's keys (F, Space, M, N, P…) work in the search box too, until you "
    "type in it, click it, or clear it with Esc: from then on every letter types. Space, "
    "Left and Right also play, pause and skip while the search box is empty. "
    "Esc never clears anything outside the search box."
)
PASSED_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Left, Qt.Key.Key_Right)
PLAIN = (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)


Shortcuts = Sequence[tuple[tuple[str, ...], str]]


def shortcuts_html(window_keys: Shortcuts = ()) -> str:
    """The player's keys, then ``window_keys`` (the window's menus and panes), then the rule."""
    rows = "".join(
        "<tr><td>"
        + " or ".join(f"<b>{html.escape(k)}</b>" for k in keys)
        + f"</td><td>{html.escape(what)}</td></tr>"
        for keys, what in (*SHORTCUTS, *window_keys)
    )
    return f'<table cellspacing="6">{rows}</table><p>{html.escape(TEXT_BOX_RULE)}</p>'


def menu_keys(menu_bar: QMenuBar) -> list[tuple[tuple[str, ...], str]]:
    """Every menu item's keys as (keys, "Menu > Item"), but those the player's list has."""
    listed = {key for keys, _what in SHORTCUTS for key in keys}
    out: list[tuple[tuple[str, ...], str]] = []
    for top in menu_bar.actions():
        menu = top.menu()
        for action in menu.actions() if isinstance(menu, QMenu) else ():
            keys = tuple(
                k.toString(QKeySequence.SequenceFormat.PortableText) for k in action.shortcuts()
            )
            if keys and not set(keys) <= listed:
                item = action.text().replace("&", "").rstrip("…")
                out.append((keys, f"{top.text().replace('&', '')} > {item}"))
    return out


class ShortcutsDialog(QDialog):
    """Help > Keyboard shortcuts: the keys, and the rule for the search box. The window
    passes its own keys (``window_keys``: read from its menus, so the list cannot drift)."""

    def __init__(self, parent: QWidget | None = None, window_keys: Shortcuts = ()) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.text = shortcuts_html(window_keys)
        label = QLabel(self.text)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(buttons)
        self.resize(520, 460)


class SearchBoxKeys(QObject):
    """Lets the player's keys through from the search box (the module's rule): Space, Left
    and Right while it is empty or not typed in since a lecture opened; every single key of
    the player (``player_keys``) from the lecture's opening (``opened``) to the box's first
    change, click or selection."""

    def __init__(self, player_showing: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._player_showing = player_showing
        self.typed = False
        self.player_keys: frozenset[Qt.Key] = frozenset()
        self._playing_keys = False  # the player's single keys pass the box
        self._boxes: list[QLineEdit] = []

    def watch(self, box: QLineEdit) -> None:
        if box in self._boxes:
            return
        self._boxes.append(box)
        box.installEventFilter(self)
        box.textEdited.connect(self._edited)  # typing, pasting, deleting: not setText()
        box.textChanged.connect(self._changed)  # Esc's clear, an earlier search put back

    def opened(self) -> None:
        """A lecture opened: the box's keys are the player's again, as after Enter."""
        self.typed = False
        self._playing_keys = True

    def _edited(self, _text: str) -> None:
        self.typed = True

    def _changed(self, _text: str) -> None:
        self._playing_keys = False

    def _passes(self, box: QLineEdit, key: int) -> bool:
        if key in PASSED_KEYS and (not self.typed or not box.text()):
            return True
        return (
            self._playing_keys
            and key in self.player_keys
            and bool(box.text())
            and not box.hasSelectedText()  # Ctrl+L or Tab selected it: a new question
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress:
            self._playing_keys = False  # a click in the box: the user means to type
            return False
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        if (
            event.modifiers() in PLAIN
            and isinstance(watched, QLineEdit)
            and self._passes(watched, event.key())
            and self._player_showing()
        ):
            event.ignore()  # not the box's: the player's shortcut takes it
            return True
        return False


def add_shortcuts(
    widget: QWidget,
    table: Sequence[tuple[Sequence[str], Callable[[], object]]],
    active: Callable[[], bool],
) -> frozenset[Qt.Key]:
    """``widget``'s window-wide keys: each key of a row runs its action while ``active()``.
    Returns the single keys among them (no Ctrl, Alt or Shift)."""
    single: set[Qt.Key] = set()
    for keys, action in table:
        for key in keys:
            sequence = QKeySequence(key)
            shortcut = QShortcut(sequence, widget)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda action=action: active() and action())
            combination = sequence[0]  # pyright: ignore[reportIndexIssue]  (no stub)
            if sequence.count() == 1 and combination.keyboardModifiers() in PLAIN:
                single.add(combination.key())
    return frozenset(single)


class ControlKeys(QObject):
    """A control with the focus keeps the keys it works with (Space presses a focused button,
    the arrows move the volume slider) instead of the player's window-wide shortcuts."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._keys: dict[QWidget, frozenset[Qt.Key]] = {}

    def watch(self, control: QWidget, keys: Sequence[Qt.Key]) -> None:
        self._keys[control] = frozenset(keys)
        control.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and isinstance(watched, QWidget)
            and event.modifiers() in PLAIN
            and Qt.Key(event.key()) in self._keys.get(watched, frozenset())
        ):
            event.accept()  # the control's own key: no shortcut takes it
            return True
        return False
