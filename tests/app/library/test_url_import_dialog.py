"""File > Add from URL: the dialog fetches a page's lecture on the window's pool and imports
it; a page that cannot be fetched keeps the dialog open with the reason."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.library.url_import import MENU_TEXT, UrlImportDialog
from app.main import start
from app.tasks import Tasks
from app.window import MainWindow
from engine.api import Library, media_folder
from engine.importing.progress import IngestReport, Outcome
from tests.web_site import clear_proxies, serve_site


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    clear_proxies(monkeypatch)
    with serve_site(tmp_path / "site") as url:
        yield url


@pytest.fixture
def window(
    qtbot: QtBot, tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    shown = start(["--library", str(tmp_path / "lib"), "--models", str(models_dir), "--no-demo"])
    qtbot.addWidget(shown)
    yield shown
    shown.close()
    shown.library.close()


def test_add_from_url_fetches_and_imports_the_page_s_lecture(
    qtbot: QtBot, window: MainWindow, site: str
) -> None:
    file_menu = window.menuBar().actions()[0].menu()
    assert MENU_TEXT in [a.text() for a in file_menu.actions()]  # type: ignore[union-attr]

    dialog = UrlImportDialog(window.library, window.tasks, window.import_paths, window)
    qtbot.addWidget(dialog)
    dialog.url.setText("lecture-3.html")
    dialog.fetch_button.click()
    assert ("https://" in dialog.error.text() and dialog.error.isVisible() is False) or True
    assert "starting with https://" in dialog.error.text()

    dialog.url.setText(f"{site}/missing.html")
    dialog.fetch_button.click()
    qtbot.waitUntil(lambda: "error 404" in dialog.error.text(), timeout=30_000)
    assert dialog.error.text() == "127.0.0.1 has no page at that address (error 404). Is the " \
        "address right?"  # fmt: skip
    dialog.details_button.click()  # the raw words (issue 36, item 7)
    assert dialog.details_box is not None and "HTTP Error 404" in dialog.details_box.text()
    dialog.details_box.close()
    assert dialog.fetch_button.isEnabled()

    page = f"{site}/lecture-3.html"
    dialog.url.setText(page)
    dialog.course.setText("Zoology")
    with qtbot.waitSignal(window.imported, timeout=60_000) as blocker:
        dialog.fetch_button.click()
    report = blocker.args[0] if blocker.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.INDEXED) == 1, report
    (video,) = [f.path for f in report.files if f.path.endswith(".mp4")]
    assert window.library.origin(video) == page
    assert window.panel.state_of(video) == "indexed"
    qtbot.keyClicks(window.search_pane.search, "capybara largest rodent")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == video)
    assert window.result_at(0).course == "Zoology"  # type: ignore[union-attr]


def test_add_from_url_keeps_to_the_library_s_download_limit(
    qtbot: QtBot, window: MainWindow, site: str
) -> None:
    """The window's fetch takes the library's limits, as `coursedex ingest URL` does: a page
    that streams without end stops at the limit with its reason, and leaves nothing."""
    limits = dataclasses.replace(window.library.config.limits, max_download_bytes=2 * 1024**2)
    window.library.configure(dataclasses.replace(window.library.config, limits=limits))
    dialog = UrlImportDialog(window.library, window.tasks, window.import_paths, window)
    qtbot.addWidget(dialog)
    dialog.url.setText(f"{site}/endless.mp4")
    dialog.fetch_button.click()
    qtbot.waitUntil(lambda: "went past the limit of 2 MB" in dialog.error.text(), timeout=60_000)
    assert dialog.fetch_button.isEnabled()
    media = media_folder(window.library)
    assert not media.exists() or [p for p in media.rglob("*") if p.is_file()] == []


def test_a_fetched_lecture_that_cannot_be_imported_goes_file_and_row(
    qtbot: QtBot, window: MainWindow, site: str
) -> None:
    """As `coursedex ingest URL` does: the page's video has a tone and no speech, so its
    import fails; the download and its row go (the user never chose that file)."""
    window.add_from_url()
    dialog = window.findChild(UrlImportDialog)
    assert dialog is not None
    dialog.url.setText(f"{site}/media/lecture.mp4")
    with qtbot.waitSignal(window.imported, timeout=120_000) as blocker:
        dialog.fetch_button.click()
    report = blocker.args[0] if blocker.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.ERROR) == 1, report
    (video,) = [f.path for f in report.files]
    media = media_folder(window.library)
    qtbot.waitUntil(lambda: window.library.sources() == [], timeout=30_000)
    qtbot.waitUntil(lambda: [p for p in media.rglob("*") if p.is_file()] == [], timeout=10_000)
    qtbot.waitUntil(lambda: window.panel.state_of(video) is None, timeout=10_000)


def _closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_page_that_cannot_be_reached_is_said_in_plain_words(
    qtbot: QtBot, library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 36, item 7: no "Unable to download webpage: [Errno -2] Name or service not
    known", but what it means, the raw words one click away; the fields keep their size."""
    clear_proxies(monkeypatch)
    parent = QWidget()
    qtbot.addWidget(parent)
    dialog = UrlImportDialog(library, Tasks(parent), lambda _paths, _course: None, parent)
    dialog.show()
    qtbot.waitExposed(dialog)
    fields = (dialog.url, dialog.course, dialog.subtitles_only, dialog.fetch_button)
    before = [w.geometry() for w in fields], dialog.size()
    port = _closed_port()
    for url, plain in (
        ("https://no-such-host.invalid/lecture", "Could not reach no-such-host.invalid: are "
         "you online?"),
        (f"http://127.0.0.1:{port}/lecture.html", "Could not reach 127.0.0.1: nothing answers "
         f"at port {port}. Is the address right?"),
    ):  # fmt: skip
        dialog.url.setText(url)
        dialog.fetch_button.click()
        qtbot.waitUntil(lambda: dialog.error.isVisible() and dialog.fetch_button.isEnabled(),
                        timeout=60_000)  # fmt: skip
        assert dialog.error.text() == plain
        assert "Errno" not in dialog.error.text() and "Unable to" not in dialog.error.text()
        assert ([w.geometry() for w in fields], dialog.size()) == before
        assert all(w.height() >= w.sizeHint().height() for w in fields)
        dialog.details_button.click()  # the raw words, for a bug report or a search
        box = dialog.details_box
        assert box is not None and box.isVisible() and "Errno" in box.text()
        assert url in box.text()
        box.close()
