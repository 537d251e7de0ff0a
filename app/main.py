"""Start the desktop app on the user's library (``coursedex`` with no command, or ``gui``).

The window shows before any model loads: the embedder loads on a worker right after, and a
first start imports the demo course in the background so there is something to search.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
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

    from app.settings_model import Settings
    from app.single_instance import Request
    from app.window import MainWindow

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

    from app.player.playback import x11_for_libvlc

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if _handed_over(argv):  # a window of this library is open: it shows the link
        return 0
    x11_for_libvlc(os.environ)
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
    restore = _close_on_signals(window)
    try:
        return app.exec()
    finally:
        restore()
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
    # Start Over sets the library aside: Enter alone quits (issue 36, item 16).
    box.setDefaultButton(box.addButton("Quit", QMessageBox.ButtonRole.RejectRole))
    box.exec()
    return box.clickedButton() is again


def _start_over(argv: Sequence[str]) -> MainWindow:
    """Set the damaged library aside, open a new one and import again what it held, by
    course (the window's import bar shows it). The demo course comes back only if it was
    there: it is not offered as on a first start."""
    from app.settings_model import load_settings

    args = _parser().parse_args(list(argv))
    settings = load_settings(_settings_file(args))
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


def _settings_file(args: argparse.Namespace) -> Path:
    from app.settings_model import default_settings_path

    return Path(args.settings) if args.settings else default_settings_path()


def _library_folder(args: argparse.Namespace, settings: Settings) -> Path:
    return Path(args.library) if args.library else settings.library_path


def _handed_over(argv: Sequence[str]) -> bool:
    """A window of the same library is open and took the request: the link to show, the
    files to import (an "Open with" while it runs), or, with neither, to come to the front.
    Files are given as absolute paths: the window's working folder is not this one's."""
    from app.settings_model import load_settings
    from app.single_instance import Request, address, hand_over

    args = _parser().parse_args(list(argv))
    settings = load_settings(_settings_file(args))
    request = Request(link=args.open, paths=tuple(str(p.resolve()) for p in args.paths))
    handed = hand_over(address(_library_folder(args, settings)), request.encode())
    if handed:
        log.info("the open window of this library took the request")
    return handed


def start(argv: Sequence[str] = ()) -> MainWindow:
    """Open the library the settings name and show its window (a QApplication exists)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.dialogs.settings import apply_theme
    from app.library.watch_folders import WatchBridge
    from app.link_open import open_link
    from app.settings_model import AppSettings, engine_config
    from app.window import MainWindow

    args = _parser().parse_args(list(argv))
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        raise RuntimeError("start() needs a QApplication")
    # The one holder of the user's settings: the window and its dialogs read and change
    # it; the library owns its engine config from here on (the window keeps it following).
    settings = AppSettings.load(_settings_file(args))
    chosen = settings.current
    apply_theme(app, chosen.theme)  # type: ignore[arg-type]
    registry = ModelRegistry(Path(args.models) if args.models else chosen.models_path)
    folder = _library_folder(args, chosen)  # a new one is used from the next start
    library = Library.open_own(folder, engine_config(chosen), registry, repair=False)
    window = MainWindow(library, registry=registry, settings=settings)
    settings.setParent(window)
    # Vectors the library lacks, embedded on the pool (a search queues behind): not before
    # the window shows, and never inside a search.
    window.tasks.run(library.repair_vectors, lambda _: None)
    window.show()
    _listen_for_links(window, app, folder)
    watching = WatchBridge(  # the window owns it; closing the window stops it
        library,
        changed=window.library_changed.emit,
        recheck=window.follower.recheck,
        say=window.import_bar.status.setText,
        importing=lambda: window.importing,
        window=window,
    )
    watching.start()
    if args.open:
        QTimer.singleShot(0, lambda: open_link(window, args.open))
    QTimer.singleShot(0, lambda: _report("shown"))  # once the event loop has shown the window
    _load_models(window, library)
    _import_at_start(window, library, args)
    return window


def _load_models(window: MainWindow, library: Library) -> None:
    """The models load in the background; a failure is said on the search's status line."""
    from app.tasks import Failure

    def model_failed(failed: Failure) -> None:
        _report("model")
        # A search's own line says it, with its results.
        if not window.search_pane.search.text().strip():
            window.search_pane.status.setText(f"The search model could not load: {failed.message}")

    window.tasks.run(library.embedder, lambda _embedder: _report("model"), model_failed)


def _import_at_start(window: MainWindow, library: Library, args: argparse.Namespace) -> None:
    """The files the command line names, then the demo course on a first start (or when
    asked for), unless an import a quit or crash left half-done resumes."""
    first_start = not library.flag(DEMO_FLAG) and not library.sources()
    has_demo = any(c.name == DEMO_COURSE for c in library.courses())
    if args.paths:  # "Open with Coursedex", or a drop on its launcher: before the demo
        window.import_paths([p.resolve() for p in args.paths])
    if not window.resume_pending() and (  # files a quit or crash left half-imported
        (args.demo and not has_demo) or (first_start and not args.no_demo)
    ):
        library.set_flag(DEMO_FLAG)  # offered once: removing the demo course is final
        window.import_paths(demo_files(), course=DEMO_COURSE)


def _listen_for_links(window: MainWindow, app: QApplication, folder: Path) -> None:
    """What a later ``coursedex`` asks (a link, files to import, or only to be shown) and, on
    macOS, a clicked link or a file dropped on the icon, comes to this window."""
    from app.single_instance import SingleInstance, UrlOpenFilter, address

    instance = SingleInstance(address(folder), window)  # the window owns it
    instance.received.connect(lambda request: _take(window, request))
    instance.listen()
    clicked = UrlOpenFilter(window)
    clicked.received.connect(lambda request: _take(window, request))
    app.installEventFilter(clicked)


def _take(window: MainWindow, request: Request) -> None:
    """Import the files as if dropped on the window, show the link's moment, come forward."""
    from app.link_open import open_link, to_front

    if request.paths:
        window.import_paths([Path(p) for p in request.paths])
    if request.link:
        open_link(window, request.link)  # it comes to the front
    else:
        to_front(window)


def _close_on_signals(window: MainWindow) -> Callable[[], None]:
    """SIGTERM (a logout, ``kill``) and SIGINT (Ctrl+C in the terminal) close the window as
    Quit does, without asking about an import (it resumes next time): its socket file goes
    first, its state is saved. Python runs a signal handler only when it gets control, so
    the signal also wakes Qt's loop through a socket pair. Returns what puts the process's
    handlers back."""
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier
    from PySide6.QtWidgets import QApplication

    from app.single_instance import SingleInstance

    if sys.platform == "win32":  # no SIGTERM there; Ctrl+C in a console ends it as before
        return lambda: None
    wake_read, wake_write = socket.socketpair()
    for end in (wake_read, wake_write):
        end.setblocking(False)
    notifier = QSocketNotifier(wake_read.fileno(), QSocketNotifier.Type.Read)

    def quit_now() -> None:
        with contextlib.suppress(OSError):
            wake_read.recv(64)
        log.info("asked to quit by a signal: closing the window")
        instance = window.findChild(SingleInstance)
        if instance is not None:
            instance.close()
        window.close_without_asking()
        QApplication.quit()  # also when a dialog was open

    notifier.activated.connect(quit_now)
    before = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGINT)}
    wake_before = signal.set_wakeup_fd(wake_write.fileno())
    for number in before:
        signal.signal(number, lambda *_: None)  # the wake-up byte does the work

    def restore() -> None:
        signal.set_wakeup_fd(wake_before)
        for number, handler in before.items():
            signal.signal(number, handler)
        notifier.setEnabled(False)
        wake_read.close()
        wake_write.close()

    return restore
