"""The next few text files of an import parsed and embedded together, before the first of them
is committed.

One file's texts make few, ragged model batches: a subtitle file's 14 windows are one batch of
14, its 49 sentences one of 32 and one of 17, each padded to its longest. The texts of several
files sorted by length together make full batches of like lengths: on the 76 TutorialVQA
subtitle files 212k padded tokens instead of 265k for 190k real ones (bench/text_floor.py).
Each file is still read, written and reported on its own; it finds its parse and its vectors
here (:meth:`parsed`, :meth:`vectors`), or reads and embeds itself as before.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from engine import ingest
from engine.config import EngineConfig
from engine.errors import Cancelled
from engine.importing.embedding import Embedding, embed_text, with_context
from engine.importing.file_rows import ImportJob
from engine.importing.planning import MEDIA, storable
from engine.models import Embedder
from engine.types import ParsedSource

log = logging.getLogger(__name__)


class _Run(Protocol):
    @property
    def config(self) -> EngineConfig: ...
    @property
    def embedding(self) -> Embedding: ...


# Files are taken ahead until their texts reach this: ~16 model batches, a few seconds of a
# progress bar that waits on the first file.
TEXTS_AHEAD = 512
FILES_AHEAD = 16
# Only small regular files are read ahead (subtitles, notes, code): a large one makes full
# batches alone, and odd ones (links, devices, bombs) are the file's own import's to refuse.
SMALL_FILE = 1 << 20


class TextsAhead:
    """Parses and vectors of the text files a run is about to import."""

    def __init__(self) -> None:
        self._parsed: dict[str, tuple[tuple[int, int], ParsedSource]] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._owner: Embedder | None = None

    def prepare(
        self,
        paths: Sequence[Path],
        run: _Run,
        embedder: Callable[[], Embedder],
        cancel: threading.Event | None,
    ) -> None:
        """Parse ``paths`` (text files, the next first) and embed their texts together,
        unless the first was prepared already. What fails here is left to each file's import.
        ``run``: the import's settings (``config``) and ``embedding``."""
        config, embedding = run.config, run.embedding
        if not paths or str(paths[0]) in self._parsed:
            return
        self._parsed.clear()
        self._vectors.clear()
        texts: list[str] = []
        for path in paths[:FILES_AHEAD]:
            if len(texts) >= TEXTS_AHEAD:
                break
            try:
                st = os.stat(path, follow_symlinks=False)
                if not stat.S_ISREG(st.st_mode) or st.st_size > SMALL_FILE or not storable(path):
                    continue  # the file's own import checks it, and reads it alone
                parsed = ingest.parse_file(path, config)
            except Exception:  # the file's own import says what is wrong with it
                continue
            self._parsed[str(path)] = ((st.st_size, st.st_mtime_ns), parsed)
            segments = with_context(parsed)
            texts += dict.fromkeys(
                embed_text(parsed.title, s, embedding.context) for s in segments if s.text.strip()
            )
            texts += dict.fromkeys(t.text for s in segments for t in s.timings)
        if len(self._parsed) < 2:
            return  # one file embeds as well alone
        try:
            model = embedder()
            vectors = embedding.texts(model, list(dict.fromkeys(texts)), cancel)
        except Cancelled:
            return
        except Exception:  # each file embeds its own texts and reports what fails
            log.warning("embedding the next files' texts together failed", exc_info=True)
            return
        self._owner = model
        self._vectors = dict(zip(dict.fromkeys(texts), vectors, strict=True))

    def parsed(self, path: Path) -> ParsedSource | None:
        """The parse of ``path`` made ahead, if the file is as it was then."""
        kept = self._parsed.get(str(path))
        if kept is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        return kept[1] if kept[0] == (st.st_size, st.st_mtime_ns) else None

    def vectors(self, embedder: Embedder, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors made ahead of ``texts``, by ``embedder`` only."""
        if self._owner is not embedder:
            return {}
        return {t: v for t in texts if (v := self._vectors.get(t)) is not None}


def upcoming(jobs: Sequence[ImportJob], i: int) -> list[Path]:
    """The text files waiting to be read from job ``i`` on, up to the first media file or
    indexed file (most of a re-scan's files are unchanged: they are not read at all)."""
    out: list[Path] = []
    for job in jobs[i : i + FILES_AHEAD]:
        if job.file.kind in MEDIA or job.source_id is None:
            break
        out.append(job.file.path)
    return out
