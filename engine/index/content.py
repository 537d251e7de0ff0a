"""What one commit writes for a source (:class:`SourceContent`) and the language its text
is in, and the vectors of notes and of segments with text: the values the indexer
(engine/index/indexer.py) writes, apart from how it writes them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.importing.embedding import embed_text
from engine.languages import texts_language
from engine.models import Embedder
from engine.store import NoteRow
from engine.types import SegmentDraft, SegmentKind


@dataclass(frozen=True, slots=True)
class SourceContent:
    """Everything one commit writes for a source. ``vectors``: one row per segment with text,
    in order; ``sentences``: one matrix of cue vectors per segment."""

    title: str
    sha256: str
    size: int
    mtime_ns: int
    duration_ms: int | None
    segments: Sequence[SegmentDraft]
    vectors: np.ndarray
    sentences: Sequence[np.ndarray]
    finished: bool = True  # False: a later stage (the video's frames) still has to run
    speech_model: str | None = None  # the model that transcribed it, if one did
    language: str | None = None  # the language of its text (None: not known)


def content_language(segments: Sequence[SegmentDraft]) -> str | None:
    """The language a file's text is in, read off the text (None: too little to tell).
    The fallback for a file imported without one, so that its text is indexed in its
    language (engine/analysis.py), told as the import tells it. A file with code
    (an archive, a notebook) has none, as the import gives it (engine/importing/hearing.py):
    its keywords make the identifier guess, and full-text search reads code as English, as
    before; its notes and comments may be in any language."""
    if any(seg.kind == SegmentKind.CODE for seg in segments):
        return None
    return texts_language(seg.text for seg in segments)


def note_vectors(embedder: Embedder, title: str, notes: Sequence[NoteRow]) -> np.ndarray:
    """The vectors of notes' segments, embedded as an import embeds a segment."""
    if not notes:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    texts = [embed_text(title, n.draft()) for n in notes]
    return embedder.embed(texts).astype(np.float32, copy=False)


def with_text(ids: Sequence[int], drafts: Sequence[SegmentDraft]) -> np.ndarray:
    embedded = [sid for sid, d in zip(ids, drafts, strict=True) if d.text.strip()]
    return np.asarray(embedded, dtype=np.int64)
