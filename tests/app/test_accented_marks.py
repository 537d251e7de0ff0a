"""A Spanish question's words are marked in the previews whatever their accents (issue 33).

The engine folds a question's words ("dióxido" -> "dioxido") before it hands them to a
preview, so the transcript beside the player and the notes/code view must find "dióxido",
"energía" and "célula" for them; before, they marked only the words without accents
("carbono"), while the result's snippet had them all in bold. Real widgets, offscreen.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.player.transcript import TranscriptColumn, marked_html, words_pattern
from app.viewers.code_view import CodeView
from app.word_marks import word_spans
from engine.api import Timing, shown_words
from engine.words import fold

NOTES = (
    "# La ecuación\n"
    "Seis moléculas de dióxido de carbono y seis de agua producen una molécula de glucosa.\n"
)
LINES = [
    Timing(0, 6_000, "En esta clase estudiamos la respiración celular."),
    Timing(6_000, 16_000, "Las mitocondrias producen la energía de la célula."),
    Timing(16_000, 24_000, "La célula consume oxígeno y libera dióxido de carbono."),
    Timing(24_000, 30_000, "Nosotros expulsamos ese gas al respirar."),
]


def _marked(view: CodeView) -> list[str]:
    return [
        s.cursor.selectedText() for s in view.editor.extraSelections() if s.cursor.hasSelection()
    ]


def test_the_notes_view_marks_accented_words_for_the_engine_s_folded_terms(
    qtbot: QtBot,
) -> None:
    terms = shown_words("moléculas de dióxido de carbono", "es")
    assert terms == ["moleculas", "dioxido", "carbono"]  # what the window hands the view
    view = CodeView()
    qtbot.addWidget(view)
    view.show_code(NOTES, "apuntes.md", 2, terms)
    # Whole words, as for code: "molécula" is another word than "moleculas".
    assert _marked(view) == ["moléculas", "dióxido", "carbono"]


def test_the_transcript_marks_and_counts_lines_whatever_the_accents(qtbot: QtBot) -> None:
    column = TranscriptColumn()
    qtbot.addWidget(column)
    terms = " ".join(shown_words("¿de dónde sacan la energía las células?", "es"))
    assert fold("energía") in terms.split()
    column.set_lecture("/lectures/respiracion.mp4", LINES, [], terms)
    # "celulas" (the question's plural) starts no word of these lines: only "energía" is found.
    assert column.matches == [6_000]
    html = marked_html(LINES[1].text, words_pattern(column.find_box.text()), "#ff0", "#000")
    assert ">energía</span>" in html and "célula</span>" not in html

    # Typed in the find box with its accent, or without: the same lines ("celular" too).
    for typed in ("célula", "celula", "CÉLULA"):
        column.find_box.setText(typed)
        assert column.matches == [0, 6_000, 16_000], typed
    column.find_box.setText("dióxido")
    assert column.matches == [16_000]
    column.find_box.setText("oxigeno")
    assert column.matches == [16_000]


def test_a_mark_covers_a_decomposed_accent_and_ascii_text_is_unchanged() -> None:
    decomposed = "la energi\u0301a de la ce\u0301lula"  # accents as combining marks
    pattern = words_pattern("energia celula")
    assert [decomposed[a:b] for a, b in word_spans(decomposed, pattern)] == [
        "energi\u0301a",
        "ce\u0301lula",
    ]
    plain = "Merge sort splits; quicksort sorts."
    pattern = words_pattern("sort")
    assert [plain[a:b] for a, b in word_spans(plain, pattern)] == ["sort", "sorts"]
    assert word_spans(plain, None) == []
