"""Watch folders in the window: a course set to follow its folder (File > Follow course
folders…) imports a file dropped there while the window is open, without any click, and a
removed file reads missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.library.watch_folders import MENU_TEXT, FollowDialog, WatchBridge
from app.main import start
from engine.config import EngineConfig
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry


def test_a_followed_folder_imports_what_is_dropped_into_it(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    course = tmp_path / "Zoology"
    course.mkdir()
    first = course / "week1.md"
    first.write_text("# Week one\n\nThe okapi lives in the forest.\n")
    lib = tmp_path / "lib"
    with Library.open(
        lib, EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
    ) as built:
        built.ingest([course])
    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    window = start(["--library", str(lib), "--models", str(models_dir), "--no-demo"])
    qtbot.addWidget(window)
    file_menu = window.menuBar().actions()[0].menu()
    assert MENU_TEXT in [a.text() for a in file_menu.actions()]  # type: ignore[union-attr]

    dialog = FollowDialog(window.library, window)
    qtbot.addWidget(dialog)
    assert dialog.courses.count() == 1
    item = dialog.courses.item(0)
    assert item.checkState() == Qt.CheckState.Unchecked
    item.setCheckState(Qt.CheckState.Checked)
    dialog.accept()
    assert window.library.follows("Zoology")

    bridge = window.findChild(WatchBridge)
    assert isinstance(bridge, WatchBridge)
    bridge.stop()  # scan often here, and take files at once (they are moved in whole)
    bridge.watcher.interval_s, bridge.watcher.settle_s = 0.1, 0
    bridge.start()

    outside = tmp_path / "week2.md"
    outside.write_text("# Week two\n\nThe capybara is the largest rodent.\n")
    dropped = course / "week2.md"
    os.replace(outside, dropped)
    qtbot.waitUntil(lambda: window.panel.state_of(str(dropped)) == "indexed", timeout=60_000)
    assert "1 new or changed file imported" in window.import_bar.status.text()
    qtbot.keyClicks(window.search_pane.search, "capybara largest rodent")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == str(dropped))

    first.unlink()
    qtbot.waitUntil(lambda: "1 file is missing" in window.import_bar.status.text(), timeout=60_000)
    qtbot.waitUntil(lambda: window.panel.state_of(str(first)) == "missing", timeout=10_000)
    assert window.library.source(str(first)) is not None

    window.close()  # stops the watching before the library closes
    assert bridge.watcher._thread is None
    window.library.close()
