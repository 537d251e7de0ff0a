"""What a screen reader finds in the real window (QAccessible), in its usual states: every
interactive part has a name, and the parts whose name does not say what they do a
description. Each walk is printed (``pytest -s``) as the role, name and description of every
part. Tab goes search box, filters, results, preview (the player), library; Ctrl+1..5 and
Ctrl+F reach the parts. A larger system font grows the rows and clips nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QLineEdit, QToolButton, QWidget
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.api import DEMO_COURSE
from engine.library import Library
from tests.app.accessibility import Part, report, unnamed, walk_widget

PLAYING_TIMEOUT_MS = 10_000


def checked_walk(title: str, widget: QWidget) -> list[Part]:
    """Walk ``widget``, print the walk, fail with the unnamed parts' paths."""
    parts = walk_widget(widget)
    print(report(title, parts))
    missing = unnamed(parts)
    assert not missing, f"{title}: {len(missing)} unnamed:\n" + "\n".join(missing)
    return parts


def shown(qtbot: QtBot, library: Library, **kwargs: object) -> MainWindow:
    window = MainWindow(library, **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitExposed(window)
    return window


def search(qtbot: QtBot, window: MainWindow, query: str) -> None:
    window.search_pane.search.setFocus()
    qtbot.keyClicks(window.search_pane.search, query)
    qtbot.waitUntil(
        lambda: window.search_pane.shown_query == query and window.result_at(0) is not None
    )


@pytest.fixture
def playing(qtbot: QtBot, lecture_library: Library) -> Iterator[MainWindow]:
    """The window playing the lecture from a hit (opened with Enter in the search box)."""
    window = shown(qtbot, lecture_library, player_backend="qt")
    search(qtbot, window, "merge sort halves")
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: window.preview_pane.has_player and window.preview_pane.player.is_playing(),
        timeout=PLAYING_TIMEOUT_MS,
    )
    yield window
    window.close()


def test_the_walk_fails_on_an_unnamed_widget_and_gives_its_path(
    qtbot: QtBot, library: Library
) -> None:
    window = shown(qtbot, library)
    icon_only = QToolButton()
    icon_only.setIcon(QIcon.fromTheme("media-playback-start"))
    window.search_pane.layout().addWidget(icon_only)  # type: ignore[union-attr]
    window.search_pane.layout().addWidget(QLineEdit())  # type: ignore[union-attr]
    missing = unnamed(walk_widget(window))
    assert "Button without a name: MainWindow/QWidget/QSplitter/SearchPane/QToolButton" in (missing)
    assert any(m.startswith("EditableText without a name: ") for m in missing), missing
    assert any(m.startswith("EditableText without a description: ") for m in missing), missing
    with pytest.raises(AssertionError, match="unnamed"):
        checked_walk("a window with an unnamed button", window)


def test_every_control_of_the_empty_window_is_named(qtbot: QtBot, library: Library) -> None:
    window = shown(qtbot, library)
    parts = checked_walk("empty library", window)
    named = {p.name for p in parts if p.interactive}
    assert {"Search", "Clear search", "Course", "Kind", "Results"} <= named
    # The preview's parts, hidden until a slide or a file is shown, are named already.
    assert {"Previous", "Next", "Play where this slide is shown", "File"} <= named


def test_results_rows_filters_and_previews_are_named(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    window = shown(qtbot, demo_text_library)
    qtbot.waitUntil(lambda: window.search_pane.course_box.count() > 1)
    window.search_pane.pick_course(DEMO_COURSE)  # the filter chip shows
    search(qtbot, window, "quicksort pivot partition")
    qtbot.waitUntil(lambda: window.search_pane.results.count() > 1)
    window.open_current()
    parts = checked_walk("demo library, a search and its top hit open", window)
    rows = [p for p in parts if p.role.name == "ListItem" and "ResultList" in p.path]
    assert len(rows) == window.search_pane.results.count()
    first = window.result_at(0)
    assert first is not None
    assert first.title in rows[0].name and DEMO_COURSE in rows[0].name
    assert any(p.name == "Search all courses" and p.shown for p in parts)
    menu = window.search_pane.results.row_menu(0)  # what the Menu key opens on a row
    assert menu is not None
    items = [p.name for p in checked_walk("a result row's menu", menu) if p.interactive]
    assert items == ["Open", "Copy link", "Copy quote", "Add note here…"], items


def test_every_control_is_named_while_a_lecture_plays(playing: MainWindow) -> None:
    parts = checked_walk("a lecture playing", playing)
    player = [p for p in parts if "PlayerView" in p.path and p.interactive and p.shown]
    assert len(player) >= 3, [p.path for p in player]  # the player's own controls were walked


def test_the_notes_panel_with_a_note_is_named_and_reached_by_ctrl_6(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    from engine.api import SourceKind

    slides = next(s.path for s in demo_text_library.sources() if s.kind == SourceKind.SLIDES)
    note = demo_text_library.add_note(slides, "the pivot ends in its place", page=2)
    try:
        window = shown(qtbot, demo_text_library)
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        qtbot.keySequence(window.search_pane.search, "Ctrl+6")  # type: ignore[attr-defined]
        qtbot.waitUntil(lambda: window.notes_panel.notes() == [note])
        assert QApplication.focusWidget() is window.notes_panel.tree
        parts = checked_walk("the Notes panel with a note", window)
        named = {p.name for p in parts if p.interactive and p.shown}
        assert {"Library", "Notes", "Open", "Edit…", "Remove"} <= named, named
        assert any(note.text in p.name for p in parts if p.shown and not p.widget), named
    finally:
        demo_text_library.remove_note(note.id)


def test_the_results_keys_do_not_clash_with_the_players(qtbot: QtBot, playing: MainWindow) -> None:
    """With a lecture playing and the results focused, Ctrl+C copies the row's link and the
    player's Ctrl+Shift+C its moment's: two shortcuts on one key would do neither."""
    from app.player.keys import COPY_LINK_KEY

    results = playing.search_pane.results
    results.setFocus()
    qtbot.waitUntil(results.hasFocus)
    clipboard = QApplication.clipboard()
    clipboard.clear()
    qtbot.keySequence(results, "Ctrl+C")  # type: ignore[attr-defined]
    row_link = clipboard.text()
    assert row_link.startswith("coursedex://"), row_link
    clipboard.clear()
    qtbot.keySequence(results, COPY_LINK_KEY)  # type: ignore[attr-defined]
    assert clipboard.text().startswith("coursedex://"), clipboard.text()


def test_no_two_shortcuts_of_the_window_share_a_key(playing: MainWindow) -> None:
    """Two shortcuts on one key that can be active together make Qt run neither (an
    ambiguous shortcut): none while a lecture plays, whatever part owns them."""
    from PySide6.QtGui import QAction, QShortcut

    def scope(obj: QAction | QShortcut) -> str:
        context = obj.shortcutContext() if isinstance(obj, QAction) else obj.context()
        if context != Qt.ShortcutContext.WidgetShortcut:
            return "window"
        parent = obj.parent()
        return f"widget {id(parent)}" if not isinstance(parent, QAction) else "window"

    bound: dict[str, list[str]] = {}
    for obj in [*playing.findChildren(QShortcut), *playing.findChildren(QAction)]:
        keys = obj.shortcuts() if isinstance(obj, QAction) else obj.keys()
        if not obj.isEnabled() or (isinstance(obj, QAction) and obj.menu() is not None):
            continue
        for key in keys:
            bound.setdefault(key.toString(), []).append(scope(obj))
    clashes = {
        key: scopes
        for key, scopes in bound.items()
        if key and len(scopes) > 1 and ("window" in scopes or len(set(scopes)) < len(scopes))
    }
    assert not clashes, clashes


def test_tab_goes_search_filters_results_preview_library(qtbot: QtBot, playing: MainWindow) -> None:
    """From the search box Tab visits the parts in the order a student works in, the
    player (made after the panel) before the library, and comes back round."""
    window, pane = playing, playing.search_pane
    pane.focus_search()
    parts = {
        "search": (pane.search,),
        "filters": (pane.course_box, pane.kind_box, pane.filter_chip),
        "results": (pane.results,),
        "preview": (window.preview_pane,),
        "library": (window.side,),  # its tabs (Library, Notes), then the panel
        "import bar": (window.import_bar,),
    }

    def part_of(widget: QWidget | None) -> str:
        for name, widgets in parts.items():
            if any(widget is w or w.isAncestorOf(widget) for w in widgets):
                return name
        return f"elsewhere: {type(widget).__name__}"

    visited: list[str] = []
    for _ in range(60):
        visited.append(part_of(QApplication.focusWidget()))
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        if QApplication.focusWidget() is pane.search:
            break
    assert QApplication.focusWidget() is pane.search, visited  # round to the start
    order = list(dict.fromkeys(visited))  # each part once, in the order first reached
    assert order == ["search", "filters", "results", "preview", "library"], visited
    assert visited.count("preview") >= 2, visited  # the player's controls take the focus
    # Shift+Tab goes back the same way.
    qtbot.keyClick(pane.search, Qt.Key.Key_Backtab)
    assert part_of(QApplication.focusWidget()) == "library"


def test_the_current_row_shows_a_focus_ring_while_the_results_have_the_focus(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    """The current row is highlighted while the search box has the focus too (Enter opens
    it): with the focus in the list a ring in the text colour goes round it, light and
    dark."""
    from app.dialogs.settings import dark_palette

    window = shown(qtbot, demo_text_library)
    search(qtbot, window, "merge sort")
    results = window.search_pane.results
    qtbot.waitUntil(lambda: window.row_widget(1) is not None and not results.filling)  # shown
    results.setCurrentRow(1)

    def left_edge() -> QColor:
        box = results.visualItemRect(results.item(1))
        image = results.viewport().grab().toImage()
        return image.pixelColor(box.left() + 1, box.center().y())

    for palette in (window.palette(), dark_palette()):
        window.setPalette(palette)
        results.setFocus()
        qtbot.waitUntil(results.hasFocus)
        ring = left_edge()
        assert ring == results.palette().color(QPalette.ColorRole.Text), ring.name()
        window.search_pane.search.setFocus()
        qtbot.waitUntil(window.search_pane.search.hasFocus)
        selected = left_edge()
        assert selected == results.palette().color(QPalette.ColorRole.Highlight), selected.name()


def test_keyboard_focus_shows_on_the_search_box_filters_and_chip_light_and_dark(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    """Each control Tab stops on above the results looks different while it has the
    keyboard focus (Fusion shows it only after a key moved the focus), light and dark."""
    from app.dialogs.settings import dark_palette

    window = shown(qtbot, demo_text_library)
    qtbot.waitUntil(lambda: window.search_pane.course_box.count() > 1)
    pane = window.search_pane
    pane.pick_course(DEMO_COURSE)  # the chip shows
    controls = (pane.search, pane.course_box, pane.kind_box, pane.filter_chip.clear_button)
    for palette in (window.palette(), dark_palette()):
        window.setPalette(palette)
        qtbot.keySequence(QApplication.focusWidget(), "Ctrl+F")  # type: ignore[attr-defined]
        for control in controls:  # with the keys, as the style shows a keyboard focus
            assert control.hasFocus(), QApplication.focusWidget()
            focused = control.grab().toImage()
            qtbot.keyClick(control, Qt.Key.Key_Tab)
            assert control.grab().toImage() != focused, type(control).__name__


def test_ctrl_keys_reach_each_part_and_menus_show_them(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    window = shown(qtbot, demo_text_library)
    search(qtbot, window, "merge sort")
    pane = window.search_pane
    for keys, target in (
        ("Ctrl+1", pane.course_box),
        ("Ctrl+2", pane.kind_box),
        ("Ctrl+3", pane.results),
        ("Ctrl+5", window.panel),
        ("Ctrl+6", window.notes_panel.tree),  # its tab shows
        ("Ctrl+5", window.panel),
        ("Ctrl+L", pane.search),
    ):
        qtbot.keySequence(QApplication.focusWidget(), keys)  # type: ignore[attr-defined]
        assert QApplication.focusWidget() is target, keys
    window.open_current()  # a slide or a file in the preview: Ctrl+4 reaches into it
    qtbot.keySequence(pane.search, "Ctrl+4")  # type: ignore[attr-defined]
    focused = QApplication.focusWidget()
    assert focused is not None and window.preview_pane.isAncestorOf(focused), focused
    pane.pick_course(DEMO_COURSE)  # the chip's button: Alt+A searches every course again
    qtbot.waitUntil(pane.filter_chip.isVisible)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: pane.course_box.currentData() is None)  # an animated click
    assert pane.filter_chip.isHidden()
    go = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Go")
    shown_keys = {a.text(): a.shortcut().toString() for a in go.actions()}  # type: ignore[union-attr]
    assert shown_keys["&Search box"] == "Ctrl+F" and shown_keys["&Results"] == "Ctrl+3"
    assert "Ctrl+1" in pane.course_box.toolTip()
    assert "Ctrl+F" in pane.search.toolTip()


def test_dialogs_controls_are_named(qtbot: QtBot, library: Library, models_dir: Path) -> None:
    from app.dialogs.about import AboutDialog
    from app.dialogs.settings import SettingsDialog
    from app.library.import_errors import ImportErrorsDialog
    from app.library.language import LanguageDialog
    from app.library.url_import import UrlImportDialog
    from app.library.watch_folders import FollowDialog
    from app.notes.editor import NoteEditor
    from app.player.keys import ShortcutsDialog
    from app.settings_model import Settings
    from engine.api import ModelRegistry

    window = shown(qtbot, library)
    registry = ModelRegistry(models_dir, bundled=False)
    dialogs = {
        "Settings": SettingsDialog(Settings(), registry, window),
        "About": AboutDialog(library.folder, registry, window),
        "Add from URL": UrlImportDialog(library, window.tasks, window.import_paths, window),
        "Keyboard shortcuts": ShortcutsDialog(window),
        "Follow course folders": FollowDialog(library, window),
        "Files not imported": ImportErrorsDialog([], window),
        "Language": LanguageDialog("Biology", True, [], window),
        "Add note": NoteEditor("lecture-01 · 12:34", parent=window),
        "Edit note": NoteEditor("slides · p. 5", "a note", error="Not saved", parent=window),
    }
    for title, dialog in dialogs.items():
        dialog.show()
        qtbot.waitExposed(dialog)
        checked_walk(f"dialog: {title}", dialog)
        dialog.close()


def test_a_larger_system_font_grows_rows_and_clips_no_text(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    """The app font 1.5x (as a user's larger system font): rows grow, the status line
    keeps two whole lines, and every label, button and box is at least as tall as its
    text needs; the code viewer's text grows with it."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    normal = QFont(app.font())

    def rows_and_code(window: MainWindow) -> tuple[list[int], int]:
        search(qtbot, window, "merge sort")
        qtbot.waitUntil(lambda: window.search_pane.results.count() > 2)
        qtbot.waitUntil(lambda: not window.search_pane.results._pending)  # every row added
        qtbot.wait(150)  # rows wrap to the list's width after its resize
        results = window.search_pane.results
        heights = [results.item(r).sizeHint().height() for r in range(results.count())]
        for row in filter(None, map(window.row_widget, range(results.count()))):
            glyph = row.icon.pixmap().height()  # the kind's glyph: a line of text high
            assert glyph >= row.fontMetrics().height(), (glyph, row.fontMetrics().height())
        return heights, window.preview_pane.code_view.editor.fontMetrics().height()

    small_rows, small_code = rows_and_code(shown(qtbot, demo_text_library))
    large = QFont(normal)
    large.setPointSizeF(normal.pointSizeF() * 1.5)
    app.setFont(large)
    try:
        window = shown(qtbot, demo_text_library)
        large_rows, large_code = rows_and_code(window)
        clipped = clipped_widgets(window) + dialogs_clipped(qtbot, window)
    finally:
        app.setFont(normal)
    assert len(large_rows) == len(small_rows)
    assert all(b > a for a, b in zip(small_rows, large_rows, strict=True)), (small_rows, large_rows)
    assert large_code >= small_code * 1.3, (small_code, large_code)
    assert not clipped, clipped


def dialogs_clipped(qtbot: QtBot, window: MainWindow) -> list[str]:
    """What Settings and About clip, opened at their first size."""
    from app.dialogs.about import AboutDialog
    from app.dialogs.settings import SettingsDialog
    from app.settings_model import Settings

    registry = window.library.models
    found: list[str] = []
    for dialog in (
        SettingsDialog(Settings(), registry, window),
        AboutDialog(window.library.folder, registry, window),
    ):
        dialog.show()
        qtbot.waitExposed(dialog)
        found += [f"{dialog.windowTitle()}: {c}" for c in clipped_widgets(dialog)]
        dialog.close()
    return found


def clipped_widgets(window: QWidget) -> list[str]:
    """Shown text widgets shorter than their text needs at their width."""
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractSpinBox,
        QComboBox,
        QLabel,
        QSizePolicy,
    )

    found: list[str] = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or not isinstance(
            widget, QLabel | QAbstractButton | QComboBox | QLineEdit
        ):
            continue
        if widget.sizePolicy().verticalPolicy() == QSizePolicy.Policy.Ignored:
            continue  # sized by its own rule (the status line's two lines, an image)
        if isinstance(widget.parentWidget(), QAbstractSpinBox | QComboBox):
            continue  # the box's own editor, frameless inside the box's frame
        text = widget.text() if isinstance(widget, QLabel | QAbstractButton) else "box"
        if not text:
            continue
        if isinstance(widget, QLabel) and widget.wordWrap():
            needed = widget.heightForWidth(widget.width())
        else:
            needed = widget.minimumSizeHint().height()
        if widget.height() < needed:
            found.append(f"{type(widget).__name__} {text[:40]!r}: {widget.height()} < {needed}")
    if isinstance(window, MainWindow):
        status = window.search_pane.status
        if status.height() < 2 * status.fontMetrics().lineSpacing():
            found.append(f"status line: {status.height()} px for two lines")
    return found
