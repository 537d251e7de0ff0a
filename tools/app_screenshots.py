"""Screenshots of the app's main states, for a person to look at.

    uv run python tools/app_screenshots.py [OUT_DIR]        (default: build/screenshots)

Runs the real window on a real X server: the one in DISPLAY, or an Xvfb it starts. Builds a
fresh library from the demo course in a temporary folder (about a minute: the lecture is
transcribed), then saves one PNG per state: empty, importing, results, playing (VLC's own
video output, grabbed from the screen, because QWidget.grab() cannot see it), slide, code,
a Word handout's hit, a whiteboard photo's hit, the Notes tab, results + code in dark mode,
the course filter, and light and dark at 1024x700 and 1600x1000. Prints each file it wrote.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _ensure_display() -> subprocess.Popen[bytes] | None:
    """Use DISPLAY if set; else start Xvfb on :98 and point Qt at it."""
    os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="xdg-"))
    if os.environ.get("DISPLAY"):
        return None
    server = subprocess.Popen(
        ["Xvfb", ":98", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    os.environ["DISPLAY"] = ":98"
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    return server


def _library_panel(
    window: Any,
    settings: Any,
    registry: Any,
    work: Path,
    save: Callable[..., None],
    settle: Callable[[int], None],
    out: Path,
) -> None:
    """The library panel at 1024x700 with a file in error, one moved away and three whose
    import was cancelled (offered for resuming), then wider with its state column and a
    lecture's menu; Settings showing the library folder in use."""
    import threading

    from app.dialogs.settings import SettingsDialog

    course = work / "Geology"
    course.mkdir()
    for i in range(4):
        (course / f"rock-{i}.md").write_text(f"# Rock {i}\n\nBasalt sample {i}.\n")
    (course / "field-trip-slides.pptx").write_bytes(b"PK\x03\x04 a truncated deck")
    cancel = threading.Event()
    window.library.ingest([course], progress=lambda p: p.index >= 2 and cancel.set(), cancel=cancel)
    done = [s for s in window.library.sources() if s.status.value == "indexed"]
    moved = Path(next(s.path for s in done if s.course == "Geology"))
    moved.rename(work / moved.name)  # indexed, then moved away
    window.resize(1024, 700)
    window.refresh_library()
    settle(300)
    window.panel.expandAll()
    window.resume_pending()
    settle(800)
    save("13-library-narrow")
    sizes = window.splitter.sizes()
    window.splitter.setSizes([380, sizes[1], sum(sizes) - 380 - sizes[1]])
    lecture = next(s.path for s in window.library.sources() if s.kind.value == "video")
    item = window.panel.item_of(lecture)
    menu = window.panel.menu_for(item)
    menu.popup(window.panel.viewport().mapToGlobal(window.panel.visualItemRect(item).center()))
    save("14-library-wide-menu", from_screen=True)
    menu.close()
    window.import_bar.later_button.click()
    dialog = SettingsDialog(settings, registry, window, in_use=window.library.folder)
    dialog.show()
    settle(600)
    dialog.grab().save(str(out / "15-settings-general.png"))
    print(f"wrote {out / '15-settings-general.png'}")
    dialog.close()


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    server = _ensure_display()
    work = Path(tempfile.mkdtemp(prefix="coursedex-shots-"))
    try:
        return _shoot(out, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if server is not None:
            server.terminate()


def _shoot(out: Path, work: Path) -> int:
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.dialogs.settings import SettingsDialog, apply_theme
    from app.settings_model import AppSettings, Settings
    from app.window import MainWindow
    from engine.api import (
        DEMO_COURSE,
        EngineConfig,
        Library,
        ModelRegistry,
        SearchFilters,
        SegmentKind,
        default_models,
        demo_files,
    )

    app = QApplication.instance() or QApplication(sys.argv[:1])
    apply_theme(app, "light")  # type: ignore[arg-type]
    registry = ModelRegistry(default_models(os.environ))
    config = EngineConfig()
    library = Library.open(
        work / "library", config, lambda: registry.load_embedder(), models=registry
    )
    settings = Settings(library_dir=str(work / "library"), theme="light")
    window = MainWindow(library, registry=registry, settings=AppSettings(settings))
    window.resize(1440, 860)
    window.move(40, 40)
    window.show()

    def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
        clock = QElapsedTimer()
        clock.start()
        while not check():
            if clock.elapsed() > timeout_s * 1000:
                raise SystemExit(f"timed out waiting for {what}")
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.02)

    def settle(ms: int = 400) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def save(name: str, *, from_screen: bool = False) -> None:
        settle()
        path = out / f"{name}.png"
        if from_screen:  # VLC draws into the native window; only the screen has its pixels
            geometry = window.frameGeometry()
            screen = window.screen()
            pixmap = screen.grabWindow(
                0, geometry.x(), geometry.y(), geometry.width(), geometry.height()
            )
        else:
            pixmap = window.grab()
        pixmap.save(str(path))
        print(f"wrote {path}")

    def search(query: str, kind: SegmentKind | None = None) -> None:
        index = window.search_pane.kind_box.findData(kind.value if kind else None)
        window.search_pane.kind_box.setCurrentIndex(max(0, index))
        window.search_pane.search.setText(query)
        wait_until(lambda: window.search_pane.results.count() > 0, 30, f"results for {query!r}")
        settle(600)

    wait_until(lambda: window.search_pane.status.text() != "", 10, "the window to fill")
    save("1-empty")

    window.import_paths(demo_files(), course=DEMO_COURSE)
    busy = re.compile(r"transcribing [1-9]\d?%")
    wait_until(lambda: bool(busy.search(window.import_bar.status.text())), 180, "transcribing")
    settle(300)
    save("2-importing")
    wait_until(lambda: not window.importing, 600, "the import to finish")

    search("why is merge sort stable")
    save("3-results")

    first = window.result_at(0)
    if first is not None and first.kind != SegmentKind.TRANSCRIPT:
        hits = library.search(
            "why is merge sort stable",
            filters=SearchFilters(kinds=(SegmentKind.TRANSCRIPT,), course=DEMO_COURSE),
        ).results
        first = hits[0] if hits else None
    if first is not None:
        window.open_result(first)
        wait_until(
            lambda: window.preview_pane.has_player and window.preview_pane.player.is_playing(),
            20,
            "play",
        )
        settle(2500)
        save("4-playing", from_screen=True)
        _chapters(window, save, settle)
        window.preview_pane.player.pause()

    def opened(query: str, kind: SegmentKind | None, name: str) -> None:
        """The top hit of ``query`` (of ``kind``) opened in the preview, saved as ``name``."""
        search(query, kind)
        window.open_current()
        settle(800)
        save(name)

    opened("when should a hash table resize", SegmentKind.SLIDE, "5-slide")
    opened("binary search sorted", SegmentKind.CODE, "6-code")
    opened("how does a heap sift down", SegmentKind.NOTE, "6-word-handout")
    opened("master theorem for merge sort", SegmentKind.SLIDE, "6-whiteboard-photo")
    _notes(window, library, save, settle)

    apply_theme(app, "dark")  # type: ignore[arg-type]
    search("merge sort stable")
    window.open_current()
    settle(800)
    save("7-dark-results", from_screen=True)
    opened("binary search sorted", SegmentKind.CODE, "8-dark-code")

    _filter_and_sizes(window, app, save, settle, search)

    apply_theme(app, "light")  # type: ignore[arg-type]
    dialog = SettingsDialog(settings, registry, window)
    dialog.tabs.setCurrentWidget(dialog.models_page)
    dialog.show()
    settle(600)
    dialog.grab().save(str(out / "9-settings-models.png"))
    print(f"wrote {out / '9-settings-models.png'}")
    dialog.close()

    _library_panel(window, settings, registry, work, save, settle, out)

    window.close()
    library.close()
    return 0


def _notes(
    window: Any, library: Any, save: Callable[..., None], settle: Callable[[int], None]
) -> None:
    """The Notes tab with a note at a lecture's moment, on a slide's page and at a code
    line (added as the player's B, a slide's and a file's Add note… add them)."""
    from engine.api import CoursedexError, SourceKind

    # The first file of each kind, by name: the slide deck before the whiteboard photo.
    files: dict[Any, str] = {}
    for source in sorted(library.sources(), key=lambda s: Path(s.path).suffix != ".pdf"):
        files.setdefault(source.kind, source.path)
    for kind, text, place in (
        (SourceKind.VIDEO, "Stable: equal keys keep their order (exam!)", {"at_ms": 95_000}),
        (SourceKind.SLIDES, "Median of three avoids the sorted-input trap", {"page": 5}),
        (SourceKind.CODE, "The merge step: <= keeps it stable", {"line": 21,
         "path_in_archive": "sorting/merge_sort.py"}),
    ):  # fmt: skip
        if kind in files:
            try:
                library.add_note(files[kind], text, **place)
            except CoursedexError as e:  # a demo that changed: the shot shows the others
                print(f"no note on {files[kind]}: {e}")
    window.side.setCurrentWidget(window.notes_panel)
    settle(800)
    save("6b-notes")
    window.side.setCurrentWidget(window.panel)


def _chapters(window: Any, save: Callable[..., None], settle: Callable[[int], None]) -> None:
    """The playing lecture at its second chapter, the chapters listed above the transcript,
    the query's words highlighted in it and the subtitle on the picture."""
    player = window.preview_pane.player
    chapters = player.transcript.chapters
    if len(chapters) < 2:
        print(f"no chapters for {player.transcript.path}: {chapters}")
    else:
        player.seek(chapters[1].start_ms + 4_000)
    player.controls.subtitles_button.setChecked(True)
    settle(2000)
    save("4b-chapters", from_screen=True)
    player.controls.subtitles_button.setChecked(False)


def _filter_and_sizes(
    window: Any,
    app: Any,
    save: Callable[..., None],
    settle: Callable[[int], None],
    search: Callable[..., None],
) -> None:
    """The course filter picked in the library panel (its chip and weaker matches, then a
    filtered search that finds nothing), and the window light and dark at 1024x700 and
    1600x1000, a lecture playing beside results grouped per lecture."""
    from app.dialogs.settings import apply_theme
    from engine.api import DEMO_COURSE

    apply_theme(app, "light")
    window.panel.select_course(DEMO_COURSE)
    search("pivot")  # a few strong hits, then the weaker ones under their divider
    settle(600)
    divider = window.search_pane.results.divider_row()
    if divider is not None:
        window.search_pane.results.scrollToItem(window.search_pane.results.item(divider))
    save("10-filter")
    window.search_pane.search.setText("sourdough bread proofing")
    settle(1500)
    save("11-filter-empty")
    window.search_pane.filter_chip.clear_button.click()
    for theme in ("light", "dark"):
        apply_theme(app, theme)
        for width, height in ((1024, 700), (1600, 1000)):
            window.move(0, 0)
            window.resize(width, height)
            search("why is merge sort stable")
            window.open_current()
            settle(2500)
            save(f"12-{theme}-{width}x{height}", from_screen=True)
    window.resize(1440, 860)


if __name__ == "__main__":
    raise SystemExit(main())
