"""The window relays what the engine says a call changed, unchanged, and each view follows
only what it names (issue 37, item 1): an import's end and a removal repaint their rows, and
the Notes panel reads its notes again only for a change that names notes. Real library, real
files, real widgets offscreen."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.api import Changes, IngestReport, Library
from tests.app.library.test_library_panel import notes, shown_window


def _told(window: MainWindow) -> list[Changes]:
    told: list[Changes] = []
    window.library_changed.connect(told.append)
    return told


def test_an_import_s_end_and_a_removal_relay_the_engine_s_changes_and_rows_follow(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    leaf = notes(tmp_path / "Botany", "leaf.md", "A leaf turns sunlight into sugar.")
    window = shown_window(qtbot, library)
    told = _told(window)
    with qtbot.waitSignal(window.imported, timeout=60_000) as ended:
        window.import_paths([leaf.parent])
    report = ended.args[0] if ended.args else None
    assert isinstance(report, IngestReport)
    assert report.changes.added == (str(leaf),)
    assert told == [report.changes] and told[0] is report.changes  # relayed as it is
    qtbot.waitUntil(lambda: window.panel.state_of(str(leaf)) == "indexed", timeout=10_000)
    told.clear()
    window.library_actions.remove(str(leaf), False, confirm=False)
    qtbot.waitUntil(lambda: bool(told), timeout=10_000)
    assert told == [Changes(removed=(str(leaf),), notes_moved=True, results=True)]
    qtbot.waitUntil(lambda: window.panel.item_of(str(leaf)) is None, timeout=10_000)
    window.close()


def test_the_notes_are_read_again_only_for_a_change_that_names_them(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    leaf = notes(tmp_path / "Botany", "leaf.md", "A leaf turns sunlight into sugar.")
    library.ingest([leaf.parent])
    window = shown_window(qtbot, library)
    panel = window.notes_panel
    window.side.setCurrentWidget(panel)  # shown: a change it follows is read at once
    qtbot.waitUntil(lambda: window.tasks.wait(0))
    qtbot.wait(100)  # the notes read as it was shown are shown (none)
    note = library.add_note(str(leaf), "stomata, see week 2", line=3)  # not told yet
    window.library_changed.emit(Changes(changed=(str(leaf),)))  # a row, not a note
    assert window.tasks.wait(10_000)
    qtbot.wait(100)  # what the pool handed back is shown
    assert panel.notes() == []
    window.library_changed.emit(note.changes)
    qtbot.waitUntil(lambda: [n.id for n in panel.notes()] == [note.id], timeout=10_000)
    window.close()
