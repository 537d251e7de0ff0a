"""Go to a time the user types (the player's G key): "1:30", "90", "90 s", "1:02:03"."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from engine.api import NumberError, clock, seconds_ms

PROMPT = "Go to (for example 1:30, 90 s or 1:02:03):"


def parse_time(text: str) -> int | None:
    """Milliseconds for ``text`` (h:mm:ss, m:ss or seconds, read as links and notes read
    them); None when it is not a time."""
    try:
        return seconds_ms(text, "the time")
    except NumberError:
        return None


def ask_time(parent: QWidget, position_ms: int, duration_ms: int) -> int | None:
    """Ask for a time, again while what is typed is not one; None when cancelled."""
    prompt, text = PROMPT, clock(position_ms)
    while True:
        text, ok = QInputDialog.getText(
            parent, "Go to a time", prompt, QLineEdit.EchoMode.Normal, text
        )
        if not ok:
            return None
        ms = parse_time(text)
        if ms is not None:
            return min(ms, duration_ms) if duration_ms > 0 else ms
        prompt = f"“{text.strip()}” is not a time. {PROMPT}"
