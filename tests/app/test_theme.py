"""One rule says whether the theme is dark (app/theme.py): the code view's colours, the
transcript's marks and the theme chosen in Settings ask it alike."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.dialogs.settings import dark_palette
from app.player.transcript import MARKS, TranscriptColumn, words_pattern
from app.theme import is_dark
from app.viewers.code_view import DARK_STYLE, LIGHT_STYLE, CodeView


def test_the_code_view_the_transcript_and_the_theme_agree_on_dark_and_light(
    qtbot: QtBot,
) -> None:
    light = QApplication.style().standardPalette()
    mixed = dark_palette()  # a dark desktop whose text boxes are white
    mixed.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    mixed.setColor(QPalette.ColorRole.Text, QColor("#000000"))
    assert is_dark(dark_palette()) and not is_dark(light)
    view, column = CodeView(), TranscriptColumn()
    qtbot.addWidget(view)
    qtbot.addWidget(column)
    column.delegate.pattern = words_pattern("pivot")
    for name, palette in {"dark": dark_palette(), "light": light, "mixed": mixed}.items():
        view.setPalette(palette)
        column.transcript_list.setPalette(palette)
        dark = is_dark(palette)
        assert view.style_name == (DARK_STYLE if dark else LIGHT_STYLE), name
        marked = column.delegate.document("the pivot", 300, "black").toHtml()
        assert MARKS[dark][0] in marked and MARKS[not dark][0] not in marked, name
