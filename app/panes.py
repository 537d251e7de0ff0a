"""How wide the window's three panes start: the library panel, the results and the preview.

The preview must hold the player's control bar whole. At 1280 px, with the panel as wide
as a typical file name wants, the preview got 502 px where the bar asks for 545, and the
speed box lost its text ("1x sp"); the results give way first, then the panel. The
splitter's minimum stays lower, so the window can still be made narrow.
"""

from __future__ import annotations

from app.player.control_bar import ControlBar

PANEL_LEAST, RESULTS_LEAST, PREVIEW_LEAST = 160, 300, 340


def preview_wanted() -> int:
    """The width the preview wants: the player's control bar on one line, in this font (in
    a narrower preview its buttons wrap to a second line)."""
    bar = ControlBar()
    try:
        return max(PREVIEW_LEAST, bar.sizeHint().width())
    finally:
        bar.deleteLater()


def pane_widths(width: int, panel_wanted: int, preview: int = PREVIEW_LEAST) -> list[int]:
    """Library panel, results and preview for a window ``width`` wide, the panel as wide as
    it wants (a typical file name and its state, LibraryPanel.wanted_width) up to about a
    quarter of the window, and the preview ``preview`` wide if the others can give it room
    and keep their least widths: at 1280 px and a preview of 545, 333 / 402 / 545. It is
    not the preview's minimum: a narrow window (800 px) is still possible."""
    panel = max(PANEL_LEAST, min(panel_wanted, round(width * 0.26)))
    results = max(RESULTS_LEAST, min(520, round(width * 0.34)))
    short = preview - (width - panel - results)
    if short > 0:  # the results give way first, then the panel, down to their least
        given = min(short, results - RESULTS_LEAST)
        results -= given
        panel = max(PANEL_LEAST, panel - (short - given))
    return [panel, results, max(PREVIEW_LEAST, width - panel - results)]
