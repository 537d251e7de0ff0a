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

from engine.cli import DEMO_COURSE, demo_files
from engine.library import Library
from engine.models.registry import ModelRegistry

log = logging.getLogger(__name__)
DEMO_FLAG = "demo-offered"
# The launch bench sets this to a file: the time the window was first shown goes there.
STARTUP_REPORT_ENV = "COURSEDEX_STARTUP_REPORT"


def run(argv: Sequence[str] = ()) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.settings import apply_theme, default_settings_path, engine_config, load_settings
    from app.tasks import Failure
    from app.window import SearchWindow

    parser = argparse.ArgumentParser(prog="coursedex gui")
    parser.add_argument("--library", help="library folder (default: the one in Settings)")
    parser.add_argument("--models", help="models folder (default: the one in Settings)")
    parser.add_argument("--settings", help="settings file (default: the user's config folder)")
    parser.add_argument(
        "--no-demo", action="store_true", help="do not import the demo course on a first start"
    )
    args = parser.parse_args(list(argv))
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Coursedex")
    app.setOrganizationName("Coursedex")
    settings_path = Path(args.settings) if args.settings else default_settings_path()
    settings = load_settings(settings_path)
    apply_theme(app, settings.theme)  # type: ignore[arg-type]
    config = engine_config(settings)
    registry = ModelRegistry(Path(args.models or settings.models_dir))
    library = Library.open(
        Path(args.library or settings.library_dir),
        config,
        lambda: registry.load_embedder(config.embedder, config.threads),
        models=registry,
    )
    window = SearchWindow(
        library, registry=registry, settings=settings, settings_path=settings_path
    )
    window.show()

    def shown() -> None:
        report = os.environ.get(STARTUP_REPORT_ENV)
        if report:
            Path(report).write_text(f"{time.time():.3f}\n")

    def model_loaded(payload: object) -> None:
        if isinstance(payload, Failure):
            window.status.setText(f"The search model could not load: {payload.message}")

    QTimer.singleShot(0, shown)  # runs once the event loop has shown the window
    window.tasks.run(library.embedder, model_loaded)  # models load in the background
    if not args.no_demo and not library.flag(DEMO_FLAG) and not library.sources():
        library.set_flag(DEMO_FLAG)  # offered once: removing the demo course is final
        window.import_paths(demo_files(), course=DEMO_COURSE)
    else:
        window.resume_pending()  # files a quit or crash left half-imported
    try:
        return app.exec()
    finally:
        library.close()
