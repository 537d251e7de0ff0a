"""What every command needs: the parsed options, the model registry and the library."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from engine.api import (
    EngineConfig,
    IngestLimits,
    Library,
    MediaConfig,
    ModelRegistry,
)


class Context:
    """What every command needs: the parsed options, the model registry, the library."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        media = MediaConfig()
        speech = getattr(args, "speech_model", None)
        media = replace(
            media,
            speech_model=speech or media.speech_model,
            screen_text=not getattr(args, "no_screen_text", False),
        )
        limits = IngestLimits()
        if getattr(args, "max_download_size", None):
            limits = replace(limits, max_download_bytes=args.max_download_size)
        self.config = EngineConfig(threads=args.threads, media=media, limits=limits)
        self.registry = ModelRegistry(Path(args.models))
        self._library: Library | None = None

    def embedder_name(self, library: Library | None) -> str:
        """The model asked for, else the one the library was built with, else the default."""
        asked = getattr(self.args, "model", None)
        if asked:
            return str(asked)
        recorded = library.embedder_id if library is not None else None
        if recorded:
            return recorded.split("@", 1)[0]
        return self.config.embedder

    def library(self) -> Library:
        """The library; its embedder is the one ``--model`` names (kept), else its own."""
        if self._library is None:
            asked = getattr(self.args, "model", None)
            self._library = Library.open_own(
                Path(self.args.library),
                self.config,
                self.registry,
                embedder=str(asked) if asked else None,
            )
        return self._library

    def close(self) -> None:
        if self._library is not None:
            self._library.close()


# --- output helpers -------------------------------------------------------------------------
