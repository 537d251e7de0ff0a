"""Help > About: what this Coursedex is made of, for the user and for a support request.

The versions of the app and of the libraries that do its work, the library and models
folders, and each model with its licence. A frozen app reads the licences from the
``MODELS.txt`` its build wrote beside the bundled models (installer/prepare_models.py); run
from source, it lists the installed models with the licence the catalogue records.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import platform
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.player import libvlc
from app.player.libvlc import PlayerUnavailable
from app.player.playback import has_qt_multimedia
from engine.api import KNOWN_MODELS, ModelError, ModelManifest, ModelRegistry, __version__

MODELS_LIST = "MODELS.txt"  # name<TAB>role<TAB>licence<TAB>source, one model a line
OCR_MODEL, OCR_PACKAGE = "rapidocr-pp-ocrv4", "rapidocr-onnxruntime"
OCR_UPSTREAM = "PaddleOCR PP-OCRv4 text detection and recognition"


@dataclass(frozen=True, slots=True)
class ModelLicence:
    name: str
    role: str
    licence: str
    source: str


def _version(distribution: str, module: str) -> str | None:
    """The installed version, None when the library is absent. A frozen app may carry no
    package metadata, so the module's own ``__version__`` is asked next."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return None
    version = getattr(imported, "__version__", None)
    return str(version) if version is not None else None


def _libvlc() -> str:
    """The user's own VLC, if the player can use it (no build carries one)."""
    try:
        vlc = libvlc.load()
    except PlayerUnavailable:
        if not has_qt_multimedia():  # the Linux build
            return "not found: install VLC to play videos"
        return "not found (videos play with Qt Multimedia)"
    return vlc.libvlc_get_version().decode(errors="replace")


def versions() -> list[tuple[str, str]]:
    """(component, version) of the libraries the app runs on."""
    import PySide6

    rows = [
        ("Python", platform.python_version()),
        ("Qt", f"{qVersion()} (PySide6 {PySide6.__version__})"),
    ]
    for label, distribution, module in (
        ("onnxruntime", "onnxruntime", "onnxruntime"),
        ("faster-whisper", "faster-whisper", "faster_whisper"),
        ("CTranslate2", "ctranslate2", "ctranslate2"),
    ):
        rows.append((label, _version(distribution, module) or "not installed"))
    rows.append(("libVLC", _libvlc()))
    return rows


def read_models_list(path: Path) -> list[ModelLicence]:
    """The models a build bundled, from its ``MODELS.txt``; lines that are not four
    tab-separated fields are skipped."""
    models: list[ModelLicence] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 4 and all(f.strip() for f in fields[:3]):
            models.append(ModelLicence(*(f.strip() for f in fields)))
    return models


def ocr_model() -> ModelLicence | None:
    """The on-screen text models (PaddleOCR's, run by RapidOCR): they are not in the models
    folder but inside the ``rapidocr-onnxruntime`` package, under its licence (the name is
    the one installer/models.toml and a build's MODELS.txt give them). None without it."""
    try:
        meta = importlib.metadata.metadata(OCR_PACKAGE).json
    except importlib.metadata.PackageNotFoundError:
        return None
    licence = str(meta.get("license") or "unknown")
    home = str(meta.get("home_page") or "")
    source = f"{OCR_UPSTREAM}, inside the Python package {OCR_PACKAGE} {meta.get('version')}"
    return ModelLicence(OCR_MODEL, "ocr", licence, f"{source} ({home})" if home else source)


def model_licences(registry: ModelRegistry) -> list[ModelLicence]:
    """The bundled models' list when the app has one, else the installed models with the
    licence the catalogue knows ("unknown" for a model it does not), and the on-screen
    text models that come with their package."""
    if registry.bundled is not None and (registry.bundled / MODELS_LIST).is_file():
        return read_models_list(registry.bundled / MODELS_LIST)
    licences = {spec.name: spec.license for spec in KNOWN_MODELS}
    models: list[ModelLicence] = []
    for info in registry.list():
        if not info.installed:
            continue
        source = info.description
        if info.path is not None:
            # Listed all the same when its manifest is broken: the Models page says why.
            with contextlib.suppress(ModelError):
                source = ModelManifest.load(info.path).source or source
        models.append(
            ModelLicence(info.name, info.role.value, licences.get(info.name, "unknown"), source)
        )
    ocr = ocr_model()
    return [*models, ocr] if ocr is not None else models


class AboutDialog(QDialog):
    """Versions, folders and models with their licences; Copy puts it all on the clipboard
    as plain text, ready to paste into a bug report."""

    def __init__(
        self, library_folder: Path, registry: ModelRegistry, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Coursedex")
        self.versions = versions()
        self.folders = [
            ("Library folder", str(library_folder)),
            ("Models folder", str(registry.root)),
        ]
        if registry.bundled is not None:
            self.folders.append(("Models that came with the app", str(registry.bundled)))
        self.models = model_licences(registry)

        title = QLabel(f"<h2>Coursedex {__version__}</h2>")
        tagline = QLabel("Search your own course material offline. Nothing leaves this machine.")
        form = QFormLayout()
        for label, value in (*self.versions, *self.folders):
            text = QLabel(value)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            form.addRow(f"{label}:", text)

        self.table = QTableWidget(len(self.models), 4)
        describe(
            self.table,
            "Models and their licences",
            "Each model Coursedex uses: its role, its licence and where it came from.",
        )
        self.table.setHorizontalHeaderLabels(["Model", "Role", "Licence", "Source"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, model in enumerate(self.models):
            for column, value in enumerate((model.name, model.role, model.licence, model.source)):
                item = QTableWidgetItem(value)
                item.setToolTip(value)
                self.table.setItem(row, column, item)
        header = self.table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        close = buttons.button(QDialogButtonBox.StandardButton.Close)
        close.setDefault(True)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy all of this as text, e.g. for a bug report")
        self.copy_button.clicked.connect(self.copy)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)

        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(tagline)
        layout.addLayout(form)
        layout.addWidget(QLabel("<b>Models and their licences</b>"))
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(820, 520)
        close.setFocus()  # not the table's first cell, which would show as picked

    def text(self) -> str:
        """Everything the dialog shows, as plain text."""
        lines = [f"Coursedex {__version__}"]
        lines += [f"{label}: {value}" for label, value in (*self.versions, *self.folders)]
        lines.append("Models:")
        lines += [f"  {m.name} ({m.role}), {m.licence}: {m.source}" for m in self.models]
        return "\n".join(lines)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text())
