"""Whether the theme is dark: the one rule the code view's colours, the transcript's marks
and the Settings' theme go by, so they never disagree (on a dark desktop whose text boxes
are white, say)."""

from __future__ import annotations

from PySide6.QtGui import QPalette


def is_dark(palette: QPalette) -> bool:
    """True when text is drawn on a dark ground: the colour of the boxes text sits in
    (the Base role, which the code view and the transcript paint on), not the window's."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128
