"""Settings on disk (typed, versioned, atomic), the Settings dialog, the theme, and the
Models page installing from a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog
from pytestqt.qtbot import QtBot

from app.dialogs.models_page import ModelsPage
from app.dialogs.settings import SettingsDialog, apply_theme
from app.settings_model import (
    SETTINGS_VERSION,
    AppSettings,
    Settings,
    engine_config,
    load_settings,
    save_settings,
)
from app.theme import is_dark
from app.window import MainWindow
from engine.config import AUTO_SPEECH_MODEL, EngineConfig
from engine.library import Library
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from tests.app.ui import make_test_video, on_next_modal, stray_enter_on_next_box
from tests.conftest import LECTURE_CUES
from tests.engine.models.test_download import ServerState, real_model, served, server  # noqa: F401
from tools.factories import make_srt
from tools.lecture_media import Clip, make_lecture_video, slide_image

SPEECH = "faster-whisper-tiny.en"


def test_round_trip_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / "config" / "settings.json"
    assert load_settings(path) == Settings()  # no file yet
    chosen = Settings(speech_model="faster-whisper-base.en", threads=1, screen_text=False,
                      library_dir=str(tmp_path / "lib"), theme="dark", player="qt")  # fmt: skip
    save_settings(path, chosen)
    assert load_settings(path) == chosen
    assert json.loads(path.read_text())["version"] == SETTINGS_VERSION
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left


def test_bad_values_fall_back_one_by_one(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "settings.json"
    raw = {"version": 1, "threads": 0, "theme": "purple", "screen_text": "no",
           "player": "qt", "speech_model": "faster-whisper-small", "unknown": 3}  # fmt: skip
    path.write_text(json.dumps(raw))
    with caplog.at_level(logging.WARNING):
        loaded = load_settings(path)
    assert loaded == Settings(player="qt", speech_model="faster-whisper-small")
    logged = caplog.text
    assert "threads" in logged and "theme" in logged and "screen_text" in logged


def test_damaged_file_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark",')
    assert load_settings(path) == Settings()
    assert not path.exists()
    assert (tmp_path / "settings.json.bad").read_text() == '{"theme": "dark",'


def test_version_0_is_migrated_and_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"dark_mode": True, "threads": 1}))
    loaded = load_settings(path)
    assert (loaded.theme, loaded.threads, loaded.version) == ("dark", 1, SETTINGS_VERSION)
    on_disk = json.loads(path.read_text())  # loading rewrote it in the current format
    assert on_disk == {name: getattr(loaded, name) for name in Settings.__dataclass_fields__}
    assert "dark_mode" not in on_disk and on_disk["version"] == SETTINGS_VERSION
    assert load_settings(path) == loaded
    path.write_text(json.dumps({"dark_mode": False}))
    assert load_settings(path).theme == "light"


def test_newer_file_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = json.dumps({"version": 99, "theme": "light", "hologram": True})
    path.write_text(text)
    loaded = load_settings(path)
    assert loaded.theme == "light"
    assert path.read_text() == text  # loading never rewrites it
    save_settings(path, replace(loaded, threads=1))  # the user pressed OK
    assert (tmp_path / "settings.json.v99").read_text() == text  # kept, keys and all
    assert load_settings(path) == Settings(theme="light", threads=1)


def test_engine_config_takes_the_users_choices() -> None:
    config = engine_config(Settings(speech_model="x", threads=1, screen_text=False))
    assert (config.threads, config.media.speech_model, config.media.screen_text) == (1, "x", False)
    assert config.search == EngineConfig().search


def test_dark_and_light_themes_change_the_palette(qtbot: QtBot) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        apply_theme(app, "dark")
        assert is_dark(app.palette())
        assert app.style().name().lower() == "fusion"
        # File dialogs are Qt's, in the theme's colours, not the desktop's light ones.
        native = Qt.ApplicationAttribute.AA_DontUseNativeDialogs
        assert app.testAttribute(native)
        dialog = QFileDialog()
        assert is_dark(dialog.palette())
        apply_theme(app, "light")
        assert not is_dark(app.palette())
        qtbot.waitUntil(lambda: not is_dark(dialog.palette()))  # at once, in the next events
        dialog.deleteLater()
        apply_theme(app, "dark")
        apply_theme(app, "system")
        # No colour of ours stays: the platform's palette (light on offscreen) shows, and
        # the desktop's own dialogs, in its colours.
        assert app.palette().resolveMask() == 0 and not is_dark(app.palette())
        assert not app.testAttribute(native)
    finally:
        apply_theme(app, "light")


def test_dialog_shows_and_edits_settings(qtbot: QtBot, tmp_path: Path, models_dir: Path) -> None:
    start = Settings(threads=1, screen_text=False, theme="light", player="vlc")
    dialog = SettingsDialog(start, ModelRegistry(models_dir))
    qtbot.addWidget(dialog)
    assert dialog.speech_box.currentData() == AUTO_SPEECH_MODEL
    assert dialog.speech_note.isHidden()  # both of its models come in PyPI packages
    base = dialog.speech_box.findData("faster-whisper-base.en")
    assert dialog.speech_box.itemText(base).endswith(" (not installed)")
    dialog.speech_box.setCurrentIndex(base)
    assert not dialog.speech_note.isHidden() and "Models tab" in dialog.speech_note.text()
    assert dialog.settings().speech_model == "faster-whisper-base.en"
    dialog.speech_box.setCurrentIndex(dialog.speech_box.findData(SPEECH))
    assert dialog.threads_box.value() == 1 and not dialog.screen_text_box.isChecked()
    assert dialog.player_box.currentData() == "vlc"
    dialog.threads_box.setValue(2)
    dialog.screen_text_box.setChecked(True)
    dialog.library_edit.setText(str(tmp_path / "elsewhere"))
    dialog.player_box.setCurrentIndex(dialog.player_box.findData("qt"))
    assert dialog.settings() == replace(
        start,
        speech_model=SPEECH,
        threads=2,
        screen_text=True,
        library_dir=str(tmp_path / "elsewhere"),
        player="qt",
    )
    missing = SettingsDialog(replace(start, speech_model="gone"), ModelRegistry(models_dir))
    qtbot.addWidget(missing)
    assert missing.speech_box.currentText() == "gone (not installed)"
    assert missing.speech_note.text().startswith("gone is not installed")
    assert not missing.speech_note.isHidden() and not missing.speech_note.isWindow()
    assert missing.settings().speech_model == "gone"  # kept until the user picks another
    # The default library folder stays "the default" when left alone.
    assert Settings().library_dir == ""
    assert SettingsDialog(Settings(), ModelRegistry(models_dir)).settings() == Settings()


def test_speech_models_are_offered_in_a_students_words_and_automatic_is_saved(
    qtbot: QtBot, tmp_path: Path, models_dir: Path
) -> None:
    """Automatic first and recommended, then fast English and accurate any language, the
    other models by their description; OK saves "auto", which the engine is given."""
    path = tmp_path / "settings.json"
    dialog = SettingsDialog(Settings(speech_model=SPEECH), ModelRegistry(models_dir))
    qtbot.addWidget(dialog)
    box = dialog.speech_box
    words = [box.itemText(i) for i in range(box.count())]
    assert words[:3] == [
        "Automatic: fast for English, accurate for other languages (recommended)",
        "Fast, English only",
        "Accurate, any language",
    ]
    assert [box.itemData(i) for i in range(3)] == [
        AUTO_SPEECH_MODEL,
        SPEECH,
        "faster-whisper-base",
    ]
    small = box.itemText(box.findData("faster-whisper-small"))
    assert small.startswith("Whisper small") and "CTranslate2" not in small
    assert box.currentText() == "Fast, English only"  # as the settings had it
    assert "English" in box.accessibleDescription()
    box.setCurrentIndex(0)
    save_settings(path, dialog.settings())
    assert json.loads(path.read_text())["speech_model"] == "auto"
    assert engine_config(load_settings(path)).media.speech_model == AUTO_SPEECH_MODEL


def test_automatic_says_which_of_its_models_is_missing(
    qtbot: QtBot, tmp_path: Path, models_dir: Path
) -> None:
    """Without Whisper base, automatic hears every lecture as English with tiny.en: it is
    usable, and the note says what the other languages lack; without tiny.en nothing is
    heard at all."""
    root = tmp_path / "models"
    english = ModelRegistry(models_dir).path(SPEECH)  # its folder, assembled from its package
    shutil.copytree(english, root / SPEECH)
    dialog = SettingsDialog(Settings(), ModelRegistry(root, use_packages=False))
    qtbot.addWidget(dialog)
    assert dialog.speech_box.currentText().endswith("(recommended)")  # installed
    assert not dialog.speech_note.isHidden()
    assert "lectures in other languages than English are heard as English" in (
        dialog.speech_note.text()
    )
    empty = SettingsDialog(Settings(), ModelRegistry(tmp_path / "none", use_packages=False))
    qtbot.addWidget(empty)
    assert empty.speech_box.currentText().endswith("(recommended) (not installed)")
    assert "cannot be transcribed" in empty.speech_note.text()


def test_a_version_1_file_keeps_its_settings_and_its_default_model_becomes_automatic(
    tmp_path: Path,
) -> None:
    """Version 1 wrote tiny.en, its default, into every file: automatic hears English with
    it all the same. A model chosen otherwise stays."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "speech_model": SPEECH, "threads": 1}))
    loaded = load_settings(path)
    assert (loaded.speech_model, loaded.threads) == (AUTO_SPEECH_MODEL, 1)
    assert json.loads(path.read_text())["version"] == SETTINGS_VERSION == 2
    path.write_text(json.dumps({"version": 1, "speech_model": "faster-whisper-small"}))
    assert load_settings(path).speech_model == "faster-whisper-small"
    assert Settings().speech_model == AUTO_SPEECH_MODEL  # the default of a new file


def test_models_page_lists_and_verifies(qtbot: QtBot, tmp_path: Path, models_dir: Path) -> None:
    root = tmp_path / "models"
    shutil.copytree(models_dir / DEFAULT_EMBEDDER, root / DEFAULT_EMBEDDER)
    page = ModelsPage(ModelRegistry(root))
    qtbot.addWidget(page)
    row = page.row_of(DEFAULT_EMBEDDER)
    assert page.table.item(row, 2).text() == "yes"  # type: ignore[union-attr]
    assert page.table.item(row, 3).text().endswith("MB")  # type: ignore[union-attr]
    page.select(DEFAULT_EMBEDDER)
    with qtbot.waitSignal(page.verify_done, timeout=30_000) as clean:
        page.verify_button.click()
    assert clean.args == [DEFAULT_EMBEDDER, []]
    assert "files verified" in page.status.text()
    with open(root / DEFAULT_EMBEDDER / "tokenizer.json", "r+b") as f:
        f.write(b"XX")
    with qtbot.waitSignal(page.verify_done, timeout=30_000) as damaged:
        page.verify_button.click()
    assert damaged.args is not None and damaged.args[1]
    assert "tokenizer.json" in page.status.text()
    asked: list[str] = []
    stray_enter_on_next_box(asked)  # issue 36, item 16: No is the default
    page.remove_button.click()
    assert len(asked) == 1 and f"Delete {DEFAULT_EMBEDDER}" in asked[0]
    assert (root / DEFAULT_EMBEDDER).is_dir()
    page.remove_selected(confirm=False)
    assert not (root / DEFAULT_EMBEDDER).exists()


def test_models_page_installs_from_a_server_with_progress(
    qtbot: QtBot,
    tmp_path: Path,
    server: tuple[str, ServerState],  # noqa: F811
) -> None:
    url, _state = server
    root = tmp_path / "models"
    page = ModelsPage(ModelRegistry(root, use_packages=False), mirror=url)
    qtbot.addWidget(page)
    page.show()
    page.select(DEFAULT_EMBEDDER)
    assert page.install_button.isEnabled()
    formats: list[str] = []
    page._progress.connect(lambda *_: formats.append(page.progress.format()))
    with qtbot.waitSignal(page.installed, timeout=60_000):
        page.install_button.click()
        assert page.progress.isVisible() and page.cancel_button.isVisible()
    assert formats and "of" in formats[-1]
    assert page.status.text() == f"{DEFAULT_EMBEDDER} is installed"
    assert page.table.item(page.row_of(DEFAULT_EMBEDDER), 2).text() == "yes"  # type: ignore[union-attr]
    assert not page.progress.isVisible()


@pytest.mark.parametrize("fault", ["404", "checksum mismatch"])
def test_models_page_reports_a_failed_install(
    qtbot: QtBot,
    tmp_path: Path,
    server: tuple[str, ServerState],  # noqa: F811
    fault: str,
) -> None:
    url, state = server
    if fault == "404":
        for tokenizer in state.root.rglob("tokenizer.json"):
            tokenizer.unlink()  # the model file arrives, then the tokenizer is not found
    else:
        state.wrong_etag = True  # the server advertises a sha256 the bytes do not have
    root = tmp_path / "models"
    page = ModelsPage(ModelRegistry(root, use_packages=False), mirror=url)
    qtbot.addWidget(page)
    page.select(DEFAULT_EMBEDDER)
    with qtbot.waitSignal(page.install_failed, timeout=60_000) as failed:
        page.install_button.click()
    assert failed.args is not None and fault in failed.args[1]
    line = page.status.text()
    assert line.startswith(f"{DEFAULT_EMBEDDER} was not installed: ") and fault in line
    assert "\n" not in line
    assert sorted(p.name for p in root.iterdir()) == []  # no model folder, no partial files
    assert page.table.item(page.row_of(DEFAULT_EMBEDDER), 2).text() == "no"  # type: ignore[union-attr]
    assert page.install_button.isEnabled()  # ready to try again


def test_models_page_cancel_keeps_the_download_for_resume(
    qtbot: QtBot,
    tmp_path: Path,
    server: tuple[str, ServerState],  # noqa: F811
) -> None:
    url, state = server
    root = tmp_path / "models"
    page = ModelsPage(ModelRegistry(root, use_packages=False), mirror=url)
    qtbot.addWidget(page)
    page.select(DEFAULT_EMBEDDER)

    def cancel_at_first_bytes() -> None:  # on the worker: stops right after the first chunk
        page._progress.disconnect(cancel_at_first_bytes)
        assert page._cancel is not None
        page._cancel.set()

    page._progress.connect(cancel_at_first_bytes, Qt.ConnectionType.DirectConnection)
    with qtbot.waitSignal(page.install_failed, timeout=60_000) as failed:
        page.install_button.click()
    assert failed.args is not None and "cancelled" in failed.args[1]
    assert "resumes" in page.status.text() and not page.cancel_button.isVisible()
    assert not (root / DEFAULT_EMBEDDER).exists()
    assert any(p.name.endswith(".part") for p in root.rglob("*"))  # kept for the resume
    with qtbot.waitSignal(page.installed, timeout=60_000):
        page.install_button.click()
    assert any(r is not None and r.startswith("bytes=") for _path, r in state.requests)
    assert ModelRegistry(root, use_packages=False).verify(DEFAULT_EMBEDDER) == []


def test_closing_the_dialog_stops_an_install(
    qtbot: QtBot,
    tmp_path: Path,
    server: tuple[str, ServerState],  # noqa: F811
) -> None:
    url, _state = server
    root = tmp_path / "models"
    dialog = SettingsDialog(Settings(), ModelRegistry(root, use_packages=False), mirror=url)
    qtbot.addWidget(dialog)
    page = dialog.models_page
    page.select(DEFAULT_EMBEDDER)
    with qtbot.waitSignal(page.install_failed, timeout=60_000) as failed:
        page.install_button.click()
        dialog.reject()
    assert failed.args is not None and "cancelled" in failed.args[1]
    assert not (root / DEFAULT_EMBEDDER).exists() and not page.busy


def test_window_settings_are_saved_and_apply_to_the_next_import(
    qtbot: QtBot, library: Library, models_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "settings.json"
    window = MainWindow(
        library,
        registry=ModelRegistry(models_dir),
        settings=AppSettings(Settings(theme="light"), path),
    )
    qtbot.addWidget(window)
    window.show()
    seen: list[SettingsDialog] = []

    def edit_and_accept() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, SettingsDialog)
        seen.append(dialog)
        dialog.threads_box.setValue(1)
        dialog.screen_text_box.setChecked(False)
        dialog.theme_box.setCurrentIndex(dialog.theme_box.findData("dark"))
        dialog.accept()

    QTimer.singleShot(200, edit_and_accept)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        window.open_settings()  # modal: returns when the dialog is accepted
        assert seen
        assert load_settings(path) == Settings(threads=1, screen_text=False, theme="dark")
        assert library.config.threads == 1 and not library.config.media.screen_text
        assert is_dark(app.palette())
    finally:
        apply_theme(app, "light")


def _in_the_dialog(check: Callable[[SettingsDialog], None], seen: list[SettingsDialog]) -> None:
    """Run ``check`` on the Settings dialog once it is up, then press OK."""

    def run(dialog: SettingsDialog) -> None:
        seen.append(dialog)
        try:
            check(dialog)
        finally:
            dialog.accept()

    on_next_modal(SettingsDialog, run)


def test_settings_show_the_library_folder_in_use(
    qtbot: QtBot, library: Library, models_dir: Path, tmp_path: Path
) -> None:
    """Started with --library, the dialog shows that folder (not the default one), and OK
    without an edit keeps the saved choice."""
    path = tmp_path / "settings.json"
    window = MainWindow(
        library, registry=ModelRegistry(models_dir), settings=AppSettings(Settings(), path)
    )
    qtbot.addWidget(window)
    shown: list[str] = []
    seen: list[SettingsDialog] = []

    def read(dialog: SettingsDialog) -> None:
        shown.append(dialog.library_edit.text())
        shown.append(dialog.library_note.text())

    _in_the_dialog(read, seen)
    window.open_settings()
    assert seen and shown[0] == str(library.folder)
    assert shown[1] == f"In use now; the next start opens {Settings().library_path}."
    assert load_settings(path).library_dir == ""


@pytest.fixture(scope="module")
def slide_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A video of a slide whose words are only on screen, with subtitles beside it (so its
    import reads no speech, only the subtitles and, when screen text is on, the frames)."""
    folder = tmp_path_factory.mktemp("slide-video") / "Botany"
    folder.mkdir()
    picture = slide_image(["Photosynthesis", "Example: marmalade"], folder.parent / "slide.png")
    video = folder / "leaves.mp4"
    make_lecture_video(video, [Clip(picture, seconds=4.0)], audio=False)
    make_srt(folder / "leaves.srt", [(0, 3_000, "Plants turn sunlight into sugar.")])
    return video


def test_screen_text_turned_off_in_settings_is_not_read_at_the_next_import(
    qtbot: QtBot, library: Library, models_dir: Path, tmp_path: Path, slide_video: Path
) -> None:
    """The issue as a user met it: untick "Read text on screen", OK, import a video with text
    on its slide: no on-screen text is read or found (before, only a restart applied it)."""
    assert library.config.media.screen_text
    window = MainWindow(
        library,
        registry=ModelRegistry(models_dir),
        settings=AppSettings(Settings(), tmp_path / "settings.json"),
    )
    qtbot.addWidget(window)
    window.show()
    seen: list[SettingsDialog] = []
    _in_the_dialog(lambda d: d.screen_text_box.setChecked(False), seen)
    window.open_settings()
    assert seen and not load_settings(tmp_path / "settings.json").screen_text
    with qtbot.waitSignal(window.imported, timeout=120_000):
        window.import_paths([slide_video.parent])
    kinds = library.stats()["segments_by_kind"]
    assert isinstance(kinds, dict) and "transcript" in kinds
    assert "screen" not in kinds, kinds
    assert not library.search("marmalade").results


def playing(window: MainWindow) -> bool:
    return window.preview_pane.has_player and window.preview_pane.player.is_playing()


@pytest.fixture(scope="module")
def lecture_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("player") / "Zoology"
    folder.mkdir()
    make_test_video(folder / "lecture.mp4", 64)
    make_srt(folder / "lecture.srt", LECTURE_CUES)
    return folder / "lecture.mp4"


def test_changing_the_player_keeps_the_lecture_on_screen(
    qtbot: QtBot, library: Library, models_dir: Path, tmp_path: Path, lecture_video: Path
) -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path))
    base = library.config
    library.configure(replace(base, media=replace(base.media, screen_text=False)))
    library.ingest([lecture_video.parent])
    window = MainWindow(
        library,
        registry=ModelRegistry(models_dir),
        settings=AppSettings(Settings(player="qt"), tmp_path / "settings.json"),
        vlc_args=("--vout=dummy", "--aout=dummy"),
    )
    qtbot.addWidget(window)
    window.show()
    window.play(str(lecture_video), 30_000)
    qtbot.waitUntil(lambda: window.preview_pane.player.is_playing(), timeout=15_000)
    assert window.preview_pane.player.backend_name == "qt"
    seen: list[SettingsDialog] = []
    _in_the_dialog(lambda d: d.player_box.setCurrentIndex(d.player_box.findData("vlc")), seen)
    window.open_settings()
    assert seen
    qtbot.waitUntil(
        lambda: window.preview_pane.has_player and window.preview_pane.player.is_playing(),
        timeout=15_000,
    )
    assert window.preview_pane.stack.currentWidget() is window.preview_pane.player
    assert window.preview_pane.player.backend_name == "vlc"
    assert window.preview_pane.player.position_ms() >= 29_000
    window.preview_pane.player.shutdown()


def test_verifying_a_one_file_model_says_so_in_the_singular(
    qtbot: QtBot, tmp_path: Path, models_dir: Path
) -> None:
    root = tmp_path / "models"
    folder = root / "one-file-model"
    folder.mkdir(parents=True)
    shutil.copyfile(models_dir / DEFAULT_EMBEDDER / "model.onnx", folder / "model.onnx")
    manifest = json.loads((models_dir / DEFAULT_EMBEDDER / "manifest.json").read_text())
    manifest["name"] = "one-file-model"
    manifest["files"] = {"model.onnx": manifest["files"]["model.onnx"]}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    page = ModelsPage(ModelRegistry(root))
    qtbot.addWidget(page)
    page.select("one-file-model")
    with qtbot.waitSignal(page.verify_done, timeout=30_000) as clean:
        page.verify_button.click()
    assert clean.args == ["one-file-model", []]
    assert page.status.text() == "one-file-model: its file verified"


def test_without_qt_multimedia_the_player_choice_offers_vlc_only(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, models_dir: Path
) -> None:
    """The Linux build carries no Qt Multimedia: the dialog does not offer it, and a setting
    made where it was shows as Automatic (which plays with VLC there)."""
    monkeypatch.setitem(sys.modules, "PySide6.QtMultimedia", None)  # as that build has it
    dialog = SettingsDialog(Settings(player="qt"), ModelRegistry(models_dir))
    qtbot.addWidget(dialog)
    box = dialog.player_box
    assert [box.itemData(i) for i in range(box.count())] == ["auto", "vlc"]
    assert box.currentData() == "auto" and dialog.settings().player == "auto"


def test_threads_chosen_in_settings_load_the_search_model(
    qtbot: QtBot, models_dir: Path, tmp_path: Path
) -> None:
    """The search model, loaded after the dialog's OK (the app loads it on a worker after
    the window shows), runs on the threads chosen there, not those of the start: the loader
    reads the library's settings when it loads. Window and library agree."""
    registry = ModelRegistry(models_dir)
    library = Library.open_own(tmp_path / "lib", EngineConfig(threads=2), registry)
    settings = AppSettings(Settings(threads=2), tmp_path / "settings.json")
    window = MainWindow(library, registry=registry, settings=settings)
    qtbot.addWidget(window)
    seen: list[SettingsDialog] = []
    _in_the_dialog(lambda d: d.threads_box.setValue(1), seen)
    try:
        window.open_settings()
        assert seen and window.settings is settings
        assert settings.current.threads == library.config.threads == 1
        assert load_settings(tmp_path / "settings.json") == settings.current
        assert library.embedder() is registry.load_embedder(DEFAULT_EMBEDDER, 1)
    finally:
        library.close()
