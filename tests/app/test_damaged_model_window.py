"""A search model damaged at rest (issue 15, item 4): the window says which model and how to
reinstall it, at start-up and again when a search is typed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.main import start
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry


def test_the_window_names_a_damaged_model_and_how_to_reinstall_it(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    built_library_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    models = Path(shutil.copytree(models_dir, tmp_path / "models"))
    ModelRegistry(models).path(DEFAULT_EMBEDDER)  # found sound once, and remembered
    onnx = models / DEFAULT_EMBEDDER / "model.onnx"
    before = onnx.stat()
    with onnx.open("r+b") as f:  # damage at rest: same size, same modification time
        f.seek(5_000_000)
        f.write(b"\xff" * 65536)
    os.utime(onnx, ns=(before.st_atime_ns, before.st_mtime_ns))

    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    window = start(["--library", str(built_library_dir), "--models", str(models), "--no-demo"])
    qtbot.addWidget(window)
    try:
        damaged = (
            f"model {DEFAULT_EMBEDDER} in {models} is damaged (model.onnx: its content changed "
            f"(sha256 differs)): run `coursedex models remove {DEFAULT_EMBEDDER}`, then "
            f"`coursedex models install {DEFAULT_EMBEDDER}`"
        )
        qtbot.waitUntil(lambda: "could not load" in window.status.text(), timeout=60_000)
        assert window.status.text() == f"The search model could not load: {damaged}"
        qtbot.keyClicks(window.search, "axolotl")  # a search says it again
        qtbot.waitUntil(lambda: window.status.text() == damaged, timeout=30_000)
        assert window.result_at(0) is None
    finally:
        window.close()
        window.library.close()
