"""Start the desktop app on the user's library (``coursedex`` with no command, or ``gui``).

The window shows before any model loads: the embedder loads on a worker right after, and a
first start imports the demo course in the background so there is something to search.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.api import (
    DEMO_COURSE,
    Library,
    LibraryDamagedError,
    LibraryError,
    ModelRegistry,
    capital,
    demo_files,
    plural,
    start_over,
)

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from app.dialogs.settings import Settings
    from app.window import SearchWindow

log = logging.getLogger(__name__)
DEMO_FLAG = "demo-offered"
# The launch bench sets this to a file: "shown <epoch s>" when the window is up, "model
# <epoch s>" when the search model has loaded.
STARTUP_REPORT_ENV = "COURSEDEX_STARTUP_REPORT"


def _report(event: str) -> None:
    path = os.environ.get(STARTUP_REPORT_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{event} {time.time():.3f}\n")


def run(argv: Sequence[str] = ()) -> int:
    from PySide6.QtWidgets import QApplication

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if _handed_over(argv):  # a window of this library is open: it shows the link
        return 0
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Coursedex")
    app.setOrganizationName("Coursedex")
    try:
        window = start(argv)
    except LibraryDamagedError as e:  # a student has no backup: offer to start over
        log.warning("cannot open the library: %s", e)
        if not _cannot_open(str(e), offer_start_over=True):
            return 1
        try:
            window = _start_over(argv)
        except LibraryError as again:
            log.warning("cannot start the library over: %s", again)
            _cannot_open(str(again))
            return 1
    except LibraryError as e:  # say so, not a traceback nobody sees
        log.warning("cannot open the library: %s", e)
        _cannot_open(str(e))
        return 1
    try:
        return app.exec()
    finally:
        window.library.close()


def _cannot_open(reason: str, *, offer_start_over: bool = False) -> bool:
    """Say why the library cannot open; True when the user chose to start it over."""
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(QMessageBox.Icon.Critical, "Coursedex", "Coursedex cannot open your library.")
    text = capital(reason) + ("" if reason.endswith(".") else ".")
    if not offer_start_over:
        box.setInformativeText(text)
        box.exec()
        return False
    box.setInformativeText(
        f"{text}\n\nStart Over keeps the damaged files in a folder inside the library."
    )
    again = box.addButton("Start Over", QMessageBox.ButtonRole.AcceptRole)
    box.addButton("Quit", QMessageBox.ButtonRole.RejectRole)
    box.exec()
    return box.clickedButton() is again


def _start_over(argv: Sequence[str]) -> SearchWindow:
    """Set the damaged library aside, open a new one and import again what it held, by
    course (the window's import bar shows it). The demo course comes back only if it was
    there: it is not offered as on a first start."""
    from app.dialogs.settings import default_settings_path, load_settings

    args = _parser().parse_args(list(argv))
    settings = load_settings(Path(args.settings) if args.settings else default_settings_path())
    aside = start_over(_library_folder(args, settings))
    log.info("started over; the damaged library is kept in %s", aside.folder)
    window = start([a for a in argv if a != "--demo"] + ["--no-demo"])
    window.library.set_flag(DEMO_FLAG)
    aside.prepare(window.library)
    for course, paths in aside.by_course().items():
        window.import_paths(paths, course=course)
    gone = len(aside.missing)
    if aside.held:
        done = f"{plural(len(aside.held) - gone, 'file')} to import again" + (
            f" ({gone} no longer there)" if gone else ""
        )
    else:
        done = "the damaged library's list of files could not be read: import your courses again"
    window.search_pane.status.setText(
        f"Started over: {done}. The damaged library is kept in {aside.folder}."
    )
    return window


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coursedex gui")
    parser.add_argument("--library", help="library folder (default: the one in Settings)")
    parser.add_argument("--models", help="models folder (default: the one in Settings)")
    parser.add_argument("--settings", help="settings file (default: the user's config folder)")
    parser.add_argument(
        "--open", metavar="LINK", help="a coursedex:// link: show that moment (in the open window)"
    )
    parser.add_argument(
        "paths", nargs="*", type=Path, help="files or folders to import (a folder is a course)"
    )
    demo = parser.add_mutually_exclusive_group()
    demo.add_argument(
        "--demo", action="store_true", help="import the demo course if it is not in the library"
    )
    demo.add_argument(
        "--no-demo", action="store_true", help="do not import the demo course on a first start"
    )
    return parser


def _library_folder(args: argparse.Namespace, settings: Settings) -> Path:
    return Path(args.library) if args.library else settings.library_path


def _handed_over(argv: Sequence[str]) -> bool:
    """``--open LINK`` alone, and a window of the same library answers: it takes the link."""
    from app.dialogs.settings import default_settings_path, load_settings
    from app.single_instance import send, server_name

    args = _parser().parse_args(list(argv))
    if not args.open or args.paths:
        return False
    settings = load_settings(Path(args.settings) if args.settings else default_settings_path())
    return send(server_name(_library_folder(args, settings)), args.open)


def start(argv: Sequence[str] = ()) -> SearchWindow:
    """Open the library the settings name and show its window (a QApplication exists)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.dialogs.settings import (
        apply_theme,
        default_settings_path,
        engine_config,
        load_settings,
    )
    from app.library.watch_folders import WatchBridge
    from app.link_open import open_link
    from app.tasks import Failure
    from app.window import SearchWindow

    args = _parser().parse_args(list(argv))
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        raise RuntimeError("start() needs a QApplication")
    settings_path = Path(args.settings) if args.settings else default_settings_path()
    settings = load_settings(settings_path)
    apply_theme(app, settings.theme)  # type: ignore[arg-type]
    config = engine_config(settings)
    registry = ModelRegistry(Path(args.models) if args.models else settings.models_path)
    library = Library.open(
        _library_folder(args, settings),
        config,
        lambda: registry.load_embedder(config.embedder, config.threads),
        models=registry,
    )
    window = SearchWindow(
        library, registry=registry, settings=settings, settings_path=settings_path
    )
    window.show()
    _listen_for_links(window, app, _library_folder(args, settings))
    watching = WatchBridge(  # the window owns it; closing the window stops it
        library,
        changed=window.library_changed.emit,
        say=window.import_bar.status.setText,
        importing=lambda: window.importing,
        window=window,
    )
    watching.start()
    if args.open:
        QTimer.singleShot(0, lambda: open_link(window, args.open))

    def model_failed(failed: Failure) -> None:
        _report("model")
        # A search's own line says it, with its results.
        if not window.search_pane.search.text().strip():
            window.search_pane.status.setText(f"The search model could not load: {failed.message}")

    QTimer.singleShot(0, lambda: _report("shown"))  # once the event loop has shown the window
    # The models load in the background.
    window.tasks.run(library.embedder, lambda _embedder: _report("model"), model_failed)
    first_start = not library.flag(DEMO_FLAG) and not library.sources()
    has_demo = any(c.name == DEMO_COURSE for c in library.courses())
    if args.paths:  # "Open with Coursedex", or a drop on its launcher: before the demo
        window.import_paths([p.resolve() for p in args.paths])
    if not window.resume_pending() and (  # files a quit or crash left half-imported
        (args.demo and not has_demo) or (first_start and not args.no_demo)
    ):
        library.set_flag(DEMO_FLAG)  # offered once: removing the demo course is final
        window.import_paths(demo_files(), course=DEMO_COURSE)
    return window


def _listen_for_links(window: SearchWindow, app: QApplication, folder: Path) -> None:
    """Links given to a later ``coursedex open`` (or, on macOS, clicked) open in this window."""
    from app.link_open import open_link
    from app.single_instance import SingleInstance, UrlOpenFilter, server_name

    instance = SingleInstance(server_name(folder), window)  # the window owns it
    instance.received.connect(lambda link: open_link(window, link))
    instance.listen()
    clicked = UrlOpenFilter(window)
    clicked.received.connect(lambda link: open_link(window, link))
    app.installEventFilter(clicked)
