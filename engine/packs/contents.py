"""What each of a pack's files writes into the library: its segments with the pack's
vectors when the pack was embedded by the library's model, else embedded again from its
text here (a slice at a time, with progress and cancel), and its cue (sentence) vectors."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import numpy as np

from engine.config import EngineConfig
from engine.errors import Cancelled
from engine.importing.embedding import Embedding
from engine.index.content import SourceContent
from engine.models import Embedder
from engine.packs.format import Pack, PackProgress, PackSource, Progress
from engine.packs.media import Place
from engine.packs.ownership import Decision

log = logging.getLogger(__name__)


def source_contents(
    config: EngineConfig,
    pack: Pack,
    places: Sequence[Place],
    fates: Sequence[Decision],
    embedder: Embedder,
    report: Progress,
    cancel: threading.Event | None,
) -> tuple[list[SourceContent | None], bool]:
    """What each source writes (None: nothing, kept or left out), with the pack's vectors,
    or embedded again when the pack's model is not the library's."""
    same = (
        embedder.model_id == pack.manifest.model_id
        and embedder.dimension == pack.manifest.dimension
    )
    if not same:
        log.info(
            "the pack was embedded by %s; this library uses %s: embedding its text again",
            pack.manifest.model_id,
            embedder.model_id,
        )
    embedding = Embedding(config.embed_batch_size, config.embed_context)
    again = _Again(embedding, embedder, pack, report, cancel)
    out: list[SourceContent | None] = []
    row = cue = 0
    for source, place, fate in zip(pack.sources, places, fates, strict=True):
        rows = sum(1 for s in source.segments if s.text.strip())
        cues = sum(source.cues)
        if same:
            vectors = np.asarray(pack.vectors[row : row + rows], dtype=np.float32)
            sentences = _cue_matrices(source, pack.sentences[cue : cue + cues])
        else:
            vectors, sentences = again.source(source)
        row, cue = row + rows, cue + cues
        out.append(_content(source, place, vectors, sentences) if fate.writes else None)
    return out, not same


class _Again:
    """A pack's text embedded again with this library's model, a slice of segments at a
    time, saying how many texts (segments and their sentences) are done of all."""

    SLICE = 64  # segments between two reports (and two looks at the cancel)

    def __init__(
        self,
        embedding: Embedding,
        embedder: Embedder,
        pack: Pack,
        report: Progress,
        cancel: threading.Event | None,
    ) -> None:
        self.embedding, self.embedder, self.report, self.cancel = (
            embedding,
            embedder,
            report,
            cancel,
        )
        self.total = sum(
            len(s.segments) + sum(len(g.timings) for g in s.segments) for s in pack.sources
        )
        self.done = 0

    def source(self, source: PackSource) -> tuple[np.ndarray, list[np.ndarray]]:
        parts: list[np.ndarray] = []
        sentences: list[np.ndarray] = []
        for at in range(0, len(source.segments), self.SLICE):
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled("pack import cancelled; the library is unchanged")
            self.report(PackProgress("embedding", self.done, self.total))
            part = source.segments[at : at + self.SLICE]
            parts.append(self.embedding.drafts(self.embedder, source.title, part, self.cancel))
            timings = [s.timings for s in part]
            sentences.extend(self.embedding.sentences(self.embedder, timings, self.cancel))
            self.done += len(part) + sum(len(t) for t in timings)
        self.report(PackProgress("embedding", self.done, self.total))
        dimension = self.embedder.dimension
        vectors = np.vstack(parts) if parts else np.zeros((0, dimension), np.float32)
        return vectors.astype(np.float32, copy=False), sentences


def _cue_matrices(source: PackSource, matrix: np.ndarray) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    at = 0
    for n in source.cues:
        out.append(np.asarray(matrix[at : at + n], dtype=np.float32))
        at += n
    return out


def _content(
    source: PackSource, place: Place, vectors: np.ndarray, sentences: Sequence[np.ndarray]
) -> SourceContent:
    size, mtime_ns = source.size, 0
    if place.here:
        try:
            st = place.path.stat()
            size, mtime_ns = st.st_size, st.st_mtime_ns
        except OSError:
            pass
    return SourceContent(
        title=source.title,
        sha256=source.sha256,
        size=size,
        mtime_ns=mtime_ns,  # 0 for a file not here: never taken for the file unchanged
        duration_ms=source.duration_ms,
        segments=source.segments,
        vectors=vectors,
        sentences=sentences,
        speech_model=source.speech_model,
        language=source.language,
    )
