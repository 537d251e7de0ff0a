"""Is an installed model still the one its manifest describes? Checked every time a model is
taken for use: a damaged embedder made every vector NaN, a damaged speech model changed
transcripts silently.

Damage at rest (a bad sector, a copy or restore gone wrong) keeps a file's size and
modification time, so a file is hashed at every use when that costs little next to loading
it: 16 ms for the 23 MB embedder, 44 ms for tiny.en's 39.5 MB int8 file (84 ms for its
75 MB float16 one, measured together), against 400 ms to load the embedder. A larger file
found sound is remembered by its size and modification time and only hashed again when
they change.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

from engine.models.manifest import ModelManifest, sha256_file

logger = logging.getLogger(__name__)

VERIFIED_NAME = ".verified.json"  # in the user's models folder: file -> [size, mtime_ns, sha256]
ALWAYS_HASHED_BYTES = 128 * 1024 * 1024  # files up to this size are hashed at every use


class SoundFiles:
    """The record, in ``path``, of model files found whole (written atomically, best effort)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def problems(self, directory: Path) -> list[str]:
        """What is wrong with the files of the model in ``directory``; empty when it is whole.

        Raises:
            ModelError: the manifest itself is missing or unreadable.
        """
        manifest = ModelManifest.load(directory)
        problems: list[str] = []
        with self._lock:
            verified = self._read()
            changed = False
            for fname, entry in sorted(manifest.files.items()):
                path = directory / fname
                try:
                    stat = path.stat()
                except OSError as e:
                    problems.append(f"{fname}: {e.strerror or 'missing'}")
                    continue
                if stat.st_size != entry.size:
                    problems.append(f"{fname}: {stat.st_size} bytes, expected {entry.size}")
                    continue
                key, stamp = str(path.resolve()), [stat.st_size, stat.st_mtime_ns, entry.sha256]
                if verified.get(key) == stamp and stat.st_size > ALWAYS_HASHED_BYTES:
                    continue
                if sha256_file(path) != entry.sha256:
                    problems.append(f"{fname}: its content changed (sha256 differs)")
                    continue
                verified[key] = stamp
                changed = True
            if changed:
                self._write(verified)
        return problems

    def _read(self) -> dict[str, list[object]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, verified: dict[str, list[object]]) -> None:
        """Best effort: a read-only models folder only means hashing again next time."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            temp.write_text(json.dumps(verified), encoding="utf-8")
            temp.replace(self.path)
        except OSError as e:
            logger.info("cannot remember verified model files in %s: %s", self.path, e)
