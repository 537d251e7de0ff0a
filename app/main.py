"""Start the desktop app on the user's library (``coursedex`` with no command, or ``gui``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.cli import default_library, default_models
from engine.config import EngineConfig
from engine.library import Library
from engine.models.registry import ModelRegistry


def run(argv: Sequence[str] = ()) -> int:
    from PySide6.QtWidgets import QApplication

    from app.window import SearchWindow

    parser = argparse.ArgumentParser(prog="coursedex gui")
    parser.add_argument("--library", default=str(default_library()))
    parser.add_argument("--models", default=str(default_models()))
    args = parser.parse_args(list(argv))
    app = QApplication.instance() or QApplication(sys.argv[:1])
    config = EngineConfig()
    registry = ModelRegistry(Path(args.models))
    library = Library.open(
        Path(args.library),
        config,
        lambda: registry.load_embedder(config.embedder, config.threads),
        models=registry,
    )
    window = SearchWindow(library)
    window.show()
    window.resume_pending()  # files a quit or crash left half-imported
    try:
        return app.exec()
    finally:
        library.close()
