"""A file's language in the window (issue 33), on a real library: the library panel tags a
Spanish file "ES" and names Spanish in its tooltip and for a screen reader, a Spanish hit's
row says Spanish where an English one says nothing of its language, and Language… in a
row's menu sets a file's language and imports it again on the import bar, saying first what
will happen; Esc leaves everything as it was."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLineEdit, QMenu, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from app.library.language import DETECT, LanguageDialog, what_happens
from app.library.rows import LANGUAGE
from app.window import MainWindow
from engine.api import EngineConfig, Library, ModelRegistry, SourceKind
from tests.app.media import PlayerMedia

IMPORT_TIMEOUT_MS = 60_000
SPANISH = (
    "La fotosíntesis convierte la luz del sol en energía química. Las plantas usan el agua y "
    "el dióxido de carbono para producir glucosa y oxígeno en los cloroplastos de sus hojas."
)
ENGLISH = (
    "The mitochondrion is the powerhouse of the cell: it turns glucose and oxygen into the "
    "energy the cell uses, and its own small genome comes from the mother."
)


@pytest.fixture
def library(detecting_library: Library) -> Library:
    """The import finds each file's language itself, as by default (tests/conftest.py)."""
    return detecting_library


def course(folder: Path) -> tuple[Path, Path]:
    """Biología: Spanish notes on photosynthesis and English notes on cells."""
    folder.mkdir(parents=True)
    spanish = folder / "fotosintesis.md"
    spanish.write_text(f"# La fotosíntesis\n\n{SPANISH}\n", encoding="utf-8")
    english = folder / "cells.md"
    english.write_text(f"# Cells\n\n{ENGLISH}\n", encoding="utf-8")
    return spanish, english


def set_language(library: Library, target: Path | str, language: str | None) -> None:
    """As the window does it: the library records it, the files it names import again."""
    library.resume(paths=library.set_language(str(target), language).again)


@pytest.fixture
def biology(library: Library, tmp_path: Path) -> tuple[Path, Path]:
    """The course imported: the import finds each text's language."""
    spanish, english = course(tmp_path / "Biología")
    library.ingest([tmp_path / "Biología"])
    found = {p.name: s.language for p in (spanish, english) if (s := library.source(str(p)))}
    assert found == {"fotosintesis.md": "es", "cells.md": "en"}
    return spanish, english


def shown(qtbot: QtBot, library: Library) -> MainWindow:
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def row(window: MainWindow, path: Path | str) -> QTreeWidgetItem:
    item = window.panel.item_of(str(path))
    assert item is not None, path
    return item


def test_the_panel_tags_a_spanish_file_and_names_its_language(
    qtbot: QtBot, library: Library, biology: tuple[Path, Path]
) -> None:
    spanish, english = biology
    window = shown(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of(str(spanish)) is not None)
    es, en = row(window, spanish), row(window, english)
    assert es.data(0, LANGUAGE) == "es" and en.data(0, LANGUAGE) == "en"
    assert "Language: Spanish" in es.toolTip(0) and "Language: English" in en.toolTip(0)
    description = Qt.ItemDataRole.AccessibleDescriptionRole
    assert es.data(0, description) == "Spanish" and en.data(0, description) == "English"
    assert es.text(0) == "fotosintesis.md" and es.text(1) == "indexed"  # the tag is drawn
    # The tag takes room beside the name (English, the window's language, has none).
    tag = window.panel.fontMetrics().horizontalAdvance("ES")
    assert tag_room(window, es) > tag_room(window, en) + tag
    course_tip = row(window, "Biología").toolTip(1)  # most files first, then by name
    assert course_tip.endswith("\nIn English (1 file), Spanish (1 file)"), course_tip


def tag_room(window: MainWindow, item: QTreeWidgetItem) -> int:
    """How much wider than its name a row's name cell asks to be."""
    hint = window.panel.sizeHintForIndex(window.panel.indexFromItem(item, 0)).width()
    return hint - window.panel.fontMetrics().horizontalAdvance(item.text(0))


def test_a_spanish_hit_says_spanish_and_an_english_one_says_nothing(
    qtbot: QtBot, library: Library, biology: tuple[Path, Path]
) -> None:
    spanish, english = biology
    window = shown(qtbot, library)
    window.search_pane.search.setText("fotosíntesis")  # keyClicks aborts on í
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == str(spanish))
    shown_row = window.row_widget(0)
    assert shown_row is not None and "Notes · Biología · Spanish" in shown_row.text.text()
    window.search_pane.search.clear()
    qtbot.keyClicks(window.search_pane.search, "mitochondrion powerhouse")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == str(english))
    shown_row = window.row_widget(0)
    assert shown_row is not None and "Notes · Biología<" in shown_row.text.text()
    assert "English" not in shown_row.text.text()


def typed(dialog: LanguageDialog) -> QLineEdit:
    """The box's line, where a language is typed."""
    line = dialog.box.lineEdit()
    assert line is not None
    return line


def open_language_dialog(qtbot: QtBot, window: MainWindow, target: str) -> LanguageDialog:
    """Language… from the row's menu, as a click on it would."""
    menu: QMenu = window.panel.menu_for(row(window, target))
    action = next(a for a in menu.actions() if a.text() == "Language…")
    assert action.isEnabled()
    action.trigger()
    qtbot.waitUntil(lambda: window.library_actions.languages.dialog is not None)
    dialog = window.library_actions.languages.dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def test_the_import_bar_says_when_meaning_search_starts_reading_any_language(
    qtbot: QtBot, models_dir: Path, tmp_path: Path
) -> None:
    """The first Spanish file of an English library switches its embedder: the engine's
    result for that file says so, and the bar's line after the import shows it (it was
    said only by the command line). The library loads its own embedder, as the app's."""
    spanish, english = course(tmp_path / "Biología")
    shutil.move(english, tmp_path / english.name)
    library = Library.open_own(tmp_path / "lib", EngineConfig(), ModelRegistry(models_dir))
    window = shown(qtbot, library)
    with qtbot.waitSignal(window.imported, timeout=IMPORT_TIMEOUT_MS):
        window.import_paths([tmp_path / english.name], course="Biología")
    assert window.import_bar.status.text() == "Import finished: 1 indexed"
    with qtbot.waitSignal(window.imported, timeout=IMPORT_TIMEOUT_MS):
        window.import_paths([spanish], course="Biología")
    said = window.import_bar.status.text()
    assert said.startswith(
        "Import finished: 1 indexed. fotosintesis.md: meaning search now reads any language "
        "(multilingual-e5-small-int8; "
    ), said
    window.close_without_asking()
    library.close()


def test_language_sets_a_files_language_and_imports_it_again(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    spanish, _english = course(tmp_path / "Biología")
    library.ingest([tmp_path / "Biología"])
    set_language(library, spanish, "en")  # detection got it wrong
    window = shown(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of(str(spanish)) is not None)
    dialog = open_language_dialog(qtbot, window, str(spanish))
    assert dialog.box.currentText() == "English"  # the current one, picked
    assert dialog.box.itemText(0) == DETECT
    dialog.box.setFocus()
    typed(dialog).selectAll()
    qtbot.keyClicks(typed(dialog), "spani")  # typed, as in a search
    qtbot.waitUntil(lambda: "read again as Spanish text" in dialog.note.text())
    assert dialog.note.text().startswith("Spanish: “fotosintesis.md” is read again")
    with qtbot.waitSignal(window.imported, timeout=IMPORT_TIMEOUT_MS):
        qtbot.keyClick(typed(dialog), Qt.Key.Key_Return)  # Enter sets it
    source = library.source(str(spanish))
    assert source is not None and source.language == "es"
    said = window.import_bar.status.text()  # after the import's report
    assert "“fotosintesis.md” set to Spanish, 1 file imported again" in said
    qtbot.waitUntil(lambda: row(window, spanish).data(0, LANGUAGE) == "es")
    assert "Language: Spanish" in row(window, spanish).toolTip(0)


def test_esc_leaves_the_language_as_it_was(
    qtbot: QtBot, library: Library, biology: tuple[Path, Path]
) -> None:
    spanish, _english = biology
    window = shown(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of(str(spanish)) is not None)
    dialog = open_language_dialog(qtbot, window, "Biología")  # the course's menu has it too
    assert dialog.box.currentText() == DETECT  # two languages: none is the course's
    assert "2 files are read again and their language found" in dialog.note.text()
    dialog.box.setFocus()
    qtbot.keyClick(dialog.box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.library_actions.languages.dialog is None)
    assert not window.importing
    source = library.source(str(spanish))
    assert source is not None and source.language == "es"


def test_an_unknown_language_cannot_be_set(
    qtbot: QtBot, library: Library, biology: tuple[Path, Path]
) -> None:
    spanish, _english = biology
    window = shown(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of(str(spanish)) is not None)
    dialog = open_language_dialog(qtbot, window, str(spanish))
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    typed(dialog).setText("Klingon")
    assert not ok.isEnabled() and "No language is called “Klingon”" in dialog.note.text()
    typed(dialog).setText("ge")
    assert not ok.isEnabled() and "could be" in dialog.note.text()
    typed(dialog).setText("español")  # a native name reads too
    assert ok.isEnabled() and dialog.language() == "es"
    dialog.reject()


def test_the_note_says_a_lecture_is_transcribed_again_and_about_how_long(
    lecture_library: Library,
) -> None:
    lecture = next(s for s in lecture_library.sources() if s.kind == SourceKind.VIDEO)
    assert lecture.duration_ms is not None
    hour = [replace(lecture, duration_ms=60 * 60_000, language="fr")]  # an hour's, in French
    note = what_happens(hour, "es", is_course=False)
    assert note.startswith("Spanish: “lecture.mp4” is transcribed again in Spanish (about ")
    english = what_happens(hour, "en", is_course=False)
    minutes = [int(n.split("(about ")[1].split(" min")[0]) for n in (note, english)]
    assert minutes[0] > minutes[1] > 0  # English is heard by the faster model
    assert "(under a minute)" in what_happens([lecture], None, is_course=False)
    assert "heard again and its language detected" in what_happens([lecture], None, False)
    # The language it was found in, confirmed: kept, nothing heard again.
    assert what_happens(hour, "fr", is_course=False) == (
        "French: “lecture.mp4” is in French already; nothing is heard or read again."
    )
    notes = replace(lecture, kind=SourceKind.NOTES, path="/course/notes.md", duration_ms=None)
    assert what_happens([lecture, notes, notes], "de", is_course=True) == (
        "German: the lecture is transcribed again in German (under a minute); the other 2 "
        "files are read again as German text. The import shows on the bar at the bottom."
    )


def test_a_language_set_during_an_import_imports_again_after_it(
    qtbot: QtBot, quick_library: Library, media: PlayerMedia, tmp_path: Path
) -> None:
    """The files to import again wait their turn behind the import running, as added paths
    do, then import: nothing set is left unread."""
    library = quick_library
    spanish, _english = course(tmp_path / "Biología")
    library.ingest([spanish])
    lecture = tmp_path / "Physics" / "lecture.m4a"  # no subtitles: transcribed, seconds long
    lecture.parent.mkdir()
    shutil.copy(media.audio, lecture)
    window = shown(qtbot, library)
    ended: list[object] = []
    window.imported.connect(ended.append)
    window.import_paths([lecture.parent])
    qtbot.waitUntil(lambda: window.importing)
    window.library_actions.languages.set_language(str(spanish), False, "de")
    qtbot.waitUntil(lambda: window.import_bar.waiting or bool(ended), timeout=IMPORT_TIMEOUT_MS)
    assert not ended, "the lecture's import ended before the language was set: not a test"
    assert "then 1 more item" in window.import_bar.status.text()
    qtbot.waitUntil(lambda: len(ended) == 2, timeout=IMPORT_TIMEOUT_MS)
    source = library.source(str(spanish))
    assert source is not None and (source.language, source.status) == ("de", "indexed")
