"""The Settings dialog, and the theme it applies as it is picked.

The settings it edits, their file and their mapping to the engine's config are
app/settings_model.py.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QStyleFactory,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.dialogs.models_page import ModelsPage
from app.dialogs.speech_models import missing_note, speech_installed, speech_labels
from app.player.playback import has_qt_multimedia
from app.settings_model import Settings
from engine.api import ModelRegistry

# --- theme --------------------------------------------------------------------------------


def dark_palette() -> QPalette:
    p = QPalette()
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    colours = {
        role.Window: "#202124",
        role.WindowText: "#e8eaed",
        role.Base: "#17181b",
        role.AlternateBase: "#26282c",
        role.ToolTipBase: "#2b2d31",
        role.ToolTipText: "#e8eaed",
        role.PlaceholderText: "#9aa0a6",
        role.Text: "#e8eaed",
        role.Button: "#2b2d31",
        role.ButtonText: "#e8eaed",
        role.BrightText: "#ff6b6b",
        role.Highlight: "#3b78e7",
        role.HighlightedText: "#ffffff",
        role.Link: "#8ab4f8",
        role.LinkVisited: "#c58af9",
        role.Light: "#3c4043",
        role.Midlight: "#34373b",
        role.Mid: "#2b2d31",
        role.Dark: "#111214",
        role.Shadow: "#000000",
    }
    for r, colour in colours.items():
        p.setColor(r, QColor(colour))
    for r in (role.Text, role.WindowText, role.ButtonText):
        p.setColor(group.Disabled, r, QColor("#6f7378"))
    p.setColor(group.Disabled, role.Highlight, QColor("#3c4043"))
    return p


def apply_theme(app: QApplication, theme: str) -> None:
    """Fusion with the system's colours, or an explicit light or dark palette. The colour
    scheme hint is set too, but platforms such as offscreen or Xvfb ignore it, so the
    palette is what makes dark mode work everywhere."""
    fusion = QStyleFactory.create("Fusion")
    if fusion is not None:
        app.setStyle(fusion)
    hints = app.styleHints()
    scheme = {
        "dark": Qt.ColorScheme.Dark,
        "light": Qt.ColorScheme.Light,
    }.get(theme, Qt.ColorScheme.Unknown)
    hints.setColorScheme(scheme)
    # A desktop's own file dialog keeps the desktop's colours (light in our dark theme):
    # with a theme of ours, Qt's dialogs, which follow the palette (issue 36, item 13).
    app.setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs, theme in ("dark", "light"))
    if theme == "dark":
        app.setPalette(dark_palette())
    elif theme == "light":
        app.setPalette(app.style().standardPalette())  # Fusion's light colours, always
    else:
        # An empty palette sets no colour of ours: every role comes from the platform (dark
        # on a dark desktop whose platform theme says so), the style fills the rest.
        app.setPalette(QPalette())


# --- the dialog ---------------------------------------------------------------------------

_THEME_NAMES = {"system": "Follow the system", "light": "Light", "dark": "Dark"}
_PLAYER_NAMES = {"auto": "Automatic (VLC if available)", "vlc": "VLC", "qt": "Qt Multimedia"}


class SettingsDialog(QDialog):
    """General settings and the model manager. The theme applies as it is picked."""

    def __init__(
        self,
        settings: Settings,
        registry: ModelRegistry,
        parent: QWidget | None = None,
        *,
        mirror: str | None = None,
        in_use: Path | None = None,
    ) -> None:
        """``in_use``: the library folder open now (it may not be the one saved: a
        ``--library`` on the command line, or a folder picked for the next start)."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(720, 480)
        self._initial = settings
        self._registry = registry
        self._import_fields(settings)
        library_row = self._library_row(settings, in_use)
        self._look_fields(settings)
        self._describe_fields()
        general = self._general_page(settings, library_row)
        self.models_page = ModelsPage(registry, mirror=mirror)
        self.models_page.installed.connect(self._refresh_speech)
        self.models_page.removed.connect(self._refresh_speech)
        self.tabs = QTabWidget()
        self.tabs.addTab(general, "General")
        self.tabs.addTab(self.models_page, "Models")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)

    def _import_fields(self, settings: Settings) -> None:
        """How imports run: the speech model, the threads, text read off the screen."""
        self.speech_box = QComboBox()
        self.speech_note = QLabel()
        self.speech_note.setWordWrap(True)
        self.speech_box.currentIndexChanged.connect(self._speech_picked)
        self.threads_box = QSpinBox(minimum=1, maximum=max(1, os.cpu_count() or 1))
        self.threads_box.setValue(min(settings.threads, self.threads_box.maximum()))
        self.screen_text_box = QCheckBox("Read text on screen and in scanned pages (OCR)")
        self.screen_text_box.setChecked(settings.screen_text)

    def _library_row(self, settings: Settings, in_use: Path | None) -> QHBoxLayout:
        """The library folder's box and Choose…, with a note when the folder in use is not
        the one saved."""
        self._shown_library = str(in_use or settings.library_path)
        self.library_edit = QLineEdit(self._shown_library)
        self.library_note = QLabel()
        self.library_note.setWordWrap(True)
        saved = settings.library_path
        if in_use is not None and Path(in_use).expanduser().resolve() != saved.resolve():
            self.library_note.setText(f"In use now; the next start opens {saved}.")
        self.library_note.setVisible(bool(self.library_note.text()))
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose_library)
        library_row = QHBoxLayout()
        library_row.addWidget(self.library_edit, 1)
        library_row.addWidget(choose)
        return library_row

    def _look_fields(self, settings: Settings) -> None:
        """The theme (applied as it is picked) and the video player."""
        self.theme_box = QComboBox()
        for key, name in _THEME_NAMES.items():
            self.theme_box.addItem(name, key)
        self.theme_box.setCurrentIndex(self.theme_box.findData(settings.theme))
        self.theme_box.currentIndexChanged.connect(self._theme_picked)
        self.player_box = QComboBox()
        for key, name in _PLAYER_NAMES.items():
            if key != "qt" or has_qt_multimedia():  # the Linux build plays with VLC only
                self.player_box.addItem(name, key)
        self.player_box.setCurrentIndex(max(0, self.player_box.findData(settings.player)))

    def _general_page(self, settings: Settings, library_row: QHBoxLayout) -> QWidget:
        general = QWidget()
        form = QFormLayout(general)
        form.addRow("Speech recognition model", self.speech_box)
        form.addRow("", self.speech_note)
        self._fill_speech(settings.speech_model)  # in the layout first: the note may show
        form.addRow("Threads for importing", self.threads_box)
        form.addRow("", self.screen_text_box)
        form.addRow("Library folder", library_row)
        form.addRow("", self.library_note)
        form.addRow("Theme", self.theme_box)
        form.addRow("Video player", self.player_box)
        note = QLabel(
            "Model, threads and on-screen text apply to the next import; a new library "
            "folder is opened at the next start."
        )
        note.setWordWrap(True)
        form.addRow(note)
        return general

    def _fill_speech(self, current: str) -> None:
        """Automatic first, then the speech models the registry knows, in a student's words,
        marked when not installed (app/dialogs/speech_models.py)."""
        self._speech_installed = speech_installed(self._registry, current)
        blocked = self.speech_box.blockSignals(True)
        self.speech_box.clear()
        for name, label in speech_labels(self._registry, self._speech_installed):
            self.speech_box.addItem(label, name)
        self.speech_box.setCurrentIndex(self.speech_box.findData(current))
        self.speech_box.blockSignals(blocked)
        self._speech_picked()

    def _refresh_speech(self, _name: str = "") -> None:
        self._fill_speech(str(self.speech_box.currentData()))

    def _speech_picked(self) -> None:
        text = missing_note(str(self.speech_box.currentData()), self._speech_installed)
        self.speech_note.setText(text)
        self.speech_note.setVisible(bool(text))

    def done(self, result: int) -> None:
        """Closing the dialog stops an install under way (the next Install resumes it)."""
        self.models_page.cancel()
        super().done(result)

    def _choose_library(self) -> None:
        name = QFileDialog.getExistingDirectory(self, "Library folder", self.library_edit.text())
        if name:
            self.library_edit.setText(name)

    def _theme_picked(self) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, str(self.theme_box.currentData()))

    def _describe_fields(self) -> None:
        """Names and descriptions for a screen reader (the form's labels name the boxes on
        some platforms only; the folder's box shares its row with a button)."""
        for widget, name, description in (
            (
                self.speech_box,
                "Speech recognition model",
                "The model that writes down what lectures say. Automatic hears English "
                "lectures with a fast English model and the others with one that knows "
                "their language; larger models are slower.",
            ),
            (
                self.threads_box,
                "Threads for importing",
                "How many processor cores an import may use.",
            ),
            (
                self.library_edit,
                "Library folder",
                "Where the library keeps its index; used from the next start.",
            ),
            (self.theme_box, "Theme", "Light, dark, or the system's colours."),
            (self.player_box, "Video player", "What plays lectures: VLC or Qt Multimedia."),
        ):
            describe(widget, name, description)

    def settings(self) -> Settings:
        """The values as edited (the library folder kept as saved unless it was edited, and
        as "" while it is the default)."""
        library = self.library_edit.text().strip()
        if library == self._shown_library.strip() or (
            library and Path(library).expanduser() == self._initial.library_path
        ):
            library = self._initial.library_dir
        return replace(
            self._initial,
            speech_model=str(self.speech_box.currentData()),
            threads=self.threads_box.value(),
            screen_text=self.screen_text_box.isChecked(),
            library_dir=library,
            theme=str(self.theme_box.currentData()),
            player=str(self.player_box.currentData()),
        )
