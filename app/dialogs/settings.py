"""The user's settings: a typed, versioned JSON file, the Settings dialog, and the theme.

Each key is checked on load; a bad value falls back to its default (logged) and the rest
are kept. Older files are migrated step by step; a file from a newer Coursedex is read as
far as it goes and never overwritten without the user saving.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

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
from engine.api import (
    AUTO_SPEECH_MODEL,
    ENGLISH_SPEECH_MODEL,
    EngineConfig,
    MediaConfig,
    ModelRegistry,
    default_library,
    default_models,
)

log = logging.getLogger(__name__)

SETTINGS_VERSION = 2
SETTINGS_ENV = "COURSEDEX_SETTINGS"
THEMES = ("system", "light", "dark")
PLAYERS = ("auto", "vlc", "qt")


@dataclass(frozen=True, slots=True)
class Settings:
    version: int = SETTINGS_VERSION
    speech_model: str = MediaConfig().speech_model
    threads: int = EngineConfig().threads
    screen_text: bool = True
    library_dir: str = ""  # "" means the default folder (see ``library_path``)
    models_dir: str = ""
    theme: str = "system"  # "system" | "light" | "dark"
    player: str = "auto"  # "auto" | "vlc" | "qt"

    @property
    def library_path(self) -> Path:
        return (
            Path(self.library_dir).expanduser() if self.library_dir else default_library(os.environ)
        )

    @property
    def models_path(self) -> Path:
        return Path(self.models_dir).expanduser() if self.models_dir else default_models(os.environ)


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "speech_model": lambda v: isinstance(v, str) and bool(v.strip()),
    "threads": _positive,
    "screen_text": lambda v: isinstance(v, bool),
    "library_dir": lambda v: isinstance(v, str),
    "models_dir": lambda v: isinstance(v, str),
    "theme": lambda v: v in THEMES,
    "player": lambda v: v in PLAYERS,
}


def _v0_to_v1(raw: dict[str, Any]) -> dict[str, Any]:
    """Version 0 (no "version" key) had a boolean "dark_mode" where 1 has "theme"."""
    out = dict(raw)
    dark = out.pop("dark_mode", None)
    if isinstance(dark, bool):
        out["theme"] = "dark" if dark else "light"
    out["version"] = 1
    return out


def _v1_to_v2(raw: dict[str, Any]) -> dict[str, Any]:
    """Version 2 has the automatic speech model (tiny.en for English lectures, Whisper base
    for the others). Version 1 wrote its default, tiny.en, into every file, chosen or not:
    it becomes automatic, which hears English lectures with tiny.en all the same and the
    others with a model that knows their language instead of English nonsense. Any other
    model someone chose stays."""
    out = dict(raw)
    if out.get("speech_model") == ENGLISH_SPEECH_MODEL:
        out["speech_model"] = AUTO_SPEECH_MODEL
    out["version"] = 2
    return out


# MIGRATIONS[n] turns a version-n dict into version n + 1.
MIGRATIONS: list[Callable[[dict[str, Any]], dict[str, Any]]] = [_v0_to_v1, _v1_to_v2]


def default_settings_path() -> Path:
    """``$COURSEDEX_SETTINGS``, else ``settings.json`` in the user's config folder."""
    value = os.environ.get(SETTINGS_ENV)
    if value:
        return Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("coursedex", appauthor=False)) / "settings.json"


def load_settings(path: Path) -> Settings:
    """The settings in ``path``; defaults where the file, or a key in it, is missing or bad.

    A file that is not JSON is renamed to ``<name>.bad`` (kept for the user) and defaults
    are used.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as e:
        log.warning("cannot read settings %s (%s); using defaults", path, e)
        return Settings()
    try:
        raw = json.loads(text)
        if not isinstance(raw, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        bad = path.with_name(path.name + ".bad")
        log.warning("settings %s are damaged (%s); kept as %s, using defaults", path, e, bad)
        os.replace(path, bad)
        return Settings()
    version = raw.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        log.warning("settings %s: version %r is not a number; reading as version 0", path, version)
        version = 0
    if version > SETTINGS_VERSION:
        log.warning(
            "settings %s were written by a newer Coursedex (version %d); reading what this "
            "version knows",
            path,
            version,
        )
    for step in range(version, SETTINGS_VERSION):
        raw = MIGRATIONS[step](raw)
    values: dict[str, Any] = {}
    for name, check in _CHECKS.items():
        if name not in raw:
            continue
        if check(raw[name]):
            values[name] = raw[name]
        else:
            log.warning("settings %s: %s = %r is not valid; default used", path, name, raw[name])
    settings = Settings(version=max(version, SETTINGS_VERSION), **values)
    if version < SETTINGS_VERSION:
        # Migrate once: the file is rewritten in the current format.
        try:
            save_settings(path, settings)
            log.info("settings %s migrated from version %d to %d", path, version, SETTINGS_VERSION)
        except OSError as e:
            log.warning("cannot rewrite the migrated settings %s (%s)", path, e)
    return settings


def save_settings(path: Path, settings: Settings) -> None:
    """Write atomically: a temporary file beside it, flushed to disk, renamed over it.

    A file written by a newer Coursedex is first copied to ``<name>.v<version>``, so the
    keys this version does not know are not lost.

    Raises:
        OSError: the folder or the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    newer = _version_on_disk(path)
    if newer is not None and newer > SETTINGS_VERSION:
        keep = path.with_name(f"{path.name}.v{newer}")
        shutil.copyfile(path, keep)
        log.warning("settings %s were written by a newer Coursedex; kept as %s", path, keep)
    data = asdict(settings)
    data["version"] = SETTINGS_VERSION
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _version_on_disk(path: Path) -> int | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = raw.get("version") if isinstance(raw, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def engine_config(settings: Settings, base: EngineConfig | None = None) -> EngineConfig:
    """The engine settings the user chose, over ``base`` (defaults if None)."""
    base = base or EngineConfig()
    media = replace(
        base.media, speech_model=settings.speech_model, screen_text=settings.screen_text
    )
    return replace(base, threads=settings.threads, media=media)


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
        self.speech_box = QComboBox()
        self.speech_note = QLabel()
        self.speech_note.setWordWrap(True)
        self.speech_box.currentIndexChanged.connect(self._speech_picked)
        self.threads_box = QSpinBox(minimum=1, maximum=max(1, os.cpu_count() or 1))
        self.threads_box.setValue(min(settings.threads, self.threads_box.maximum()))
        self.screen_text_box = QCheckBox("Read text on screen and in scanned pages (OCR)")
        self.screen_text_box.setChecked(settings.screen_text)
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

        self._describe_fields()
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
