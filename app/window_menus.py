"""The main window's menu bar: File (add files, a folder, a web page; follow folders; course
packs; settings; quit), Go (a key to each part of the window, in the Tab order) and Help
(the keys, About). The menus get the actions and parts they reach, not the window."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QDialog, QMainWindow, QMenuBar, QWidget

from app.focus import focus_into, mention_key
from app.library.file_dialogs import FileDialogs
from app.search.pane import SEARCH_SHORTCUTS, SearchPane
from engine.api import Library, ModelRegistry

if TYPE_CHECKING:
    from app.settings_model import AppSettings

Action = Callable[[], object]
ImportPaths = Callable[[Sequence[Path]], None]


@dataclass(frozen=True, slots=True)
class FileActions:
    """What the File menu does."""

    add_files: Action
    add_folder: Action
    add_from_url: Action
    follow_folders: Action
    import_pack: Action
    export_pack: Action
    settings: Action | None  # None: greyed (no model registry to choose from)
    quit: Action


def file_menu(bar: QMenuBar, actions: FileActions) -> None:
    menu = bar.addMenu("&File")
    menu.addAction("Add &files…", QKeySequence.StandardKey.Open, actions.add_files)
    menu.addAction("Add f&older…", actions.add_folder)
    menu.addAction("Add from &URL…", actions.add_from_url)
    menu.addAction("Follow course &folders…", actions.follow_folders)
    menu.addAction("Import course &pack…", actions.import_pack)
    menu.addAction("&Export course pack…", actions.export_pack)
    menu.addSeparator()
    settings = menu.addAction("&Settings…", actions.settings or (lambda: None))
    settings.setShortcut(QKeySequence.StandardKey.Preferences)
    settings.setEnabled(actions.settings is not None)
    menu.addSeparator()
    menu.addAction("&Quit", QKeySequence.StandardKey.Quit, actions.quit)


def go_menu(
    bar: QMenuBar, pane: SearchPane, preview: QWidget, library: QWidget, notes: QWidget
) -> None:
    """A key to each part of the window, in the Tab order (tests/app/
    test_accessibility.py): the menu shows them, and a screen reader reads the menu."""
    menu = bar.addMenu("&Go")
    search = menu.addAction("&Search box", pane.focus_search)
    search.setShortcuts([QKeySequence(keys) for keys in SEARCH_SHORTCUTS])
    for text, keys, part, tooltip in (
        ("&Course filter", "Ctrl+1", pane.course_box, True),
        ("&Kind filter", "Ctrl+2", pane.kind_box, True),
        ("&Results", "Ctrl+3", pane.results, False),
        ("&Preview", "Ctrl+4", preview, False),
        ("&Library", "Ctrl+5", library, False),
        ("&Notes", "Ctrl+6", notes, False),
    ):
        action = menu.addAction(text, QKeySequence(keys), lambda p=part: focus_into(p))
        mention_key(part, action.shortcut(), tooltip=tooltip)


def help_menu(
    bar: QMenuBar, window: QMainWindow, library: Library, registry: ModelRegistry | None
) -> None:
    menu = bar.addMenu("&Help")
    menu.addAction("&Keyboard shortcuts", lambda: show_shortcuts(window))
    menu.addAction("&About Coursedex", lambda: show_about(window, library, registry))


def show_shortcuts(window: QMainWindow) -> None:
    from app.player.keys import ShortcutsDialog, menu_keys
    from app.search.result_list import PANE_KEYS

    dialog = ShortcutsDialog(window, [*menu_keys(window.menuBar()), *PANE_KEYS])
    dialog.exec()
    dialog.deleteLater()


def show_about(window: QMainWindow, library: Library, registry: ModelRegistry | None) -> None:
    from app.dialogs.about import AboutDialog  # imports the model libraries for their versions

    dialog = AboutDialog(library.folder, registry or library.models, window)
    dialog.exec()
    dialog.deleteLater()


def add_files(dialogs: FileDialogs, import_paths: ImportPaths) -> None:
    if paths := dialogs.files_to_import():
        import_paths(paths)


def add_folder(dialogs: FileDialogs, import_paths: ImportPaths) -> None:
    if folder := dialogs.folder_to_import():
        import_paths([folder])


def ask_settings(
    window: QMainWindow, settings: AppSettings, registry: ModelRegistry, library: Library
) -> None:
    """File > Settings: the dialog; its theme shows at once, the rest once accepted (the
    settings are saved, and their ``changed`` tells the window)."""
    from app.dialogs.settings import SettingsDialog, apply_theme

    now = settings.current
    dialog = SettingsDialog(now, registry, window, in_use=library.folder)
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    new = dialog.settings()
    dialog.deleteLater()
    apply_theme(QApplication.instance(), (new if accepted else now).theme)  # type: ignore[arg-type]
    if accepted:
        settings.change(new)
