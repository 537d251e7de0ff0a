"""What every command needs: the parsed options, the model registry and the library."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from engine.api import (
    Embedder,
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
        if self._library is None:
            holder: list[Library] = []

            def load() -> Embedder:
                name = self.embedder_name(holder[0] if holder else None)
                return self.registry.load_embedder(name, self.config.threads)

            self._library = Library.open(
                Path(self.args.library), self.config, load, models=self.registry
            )
            holder.append(self._library)
        return self._library

    def close(self) -> None:
        if self._library is not None:
            self._library.close()


# --- output helpers -------------------------------------------------------------------------
