"""What the embedder sees of a segment, and texts turned into vectors in batches that a
cancel can stop between."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine.errors import Cancelled
from engine.models import Embedder
from engine.types import ParsedSource, SegmentDraft, SegmentKind, Timing

StoredText = tuple[int, str, str, str]  # a stored segment: (id, heading, text, source title)


def embed_text(title: str, seg: SegmentDraft | tuple[str, str], context: bool = True) -> str:
    """What the embedder sees: the segment's heading (or its file's title) as context, then
    its text (``context`` False: the text alone, for the ablation that measures it)."""
    heading, text = (seg.heading, seg.text) if isinstance(seg, SegmentDraft) else seg
    lead = (heading or title) if context else ""
    return f"{lead}\n{text}" if lead else text


def with_context(parsed: ParsedSource) -> list[SegmentDraft]:
    """Drop empty segments; transcripts get their file's title as heading, so the title is
    searchable (at the heading's lower weight) and part of what is embedded."""
    out: list[SegmentDraft] = []
    for seg in parsed.segments:
        if not seg.text.strip() and not seg.needs_ocr:
            continue
        if seg.kind == SegmentKind.TRANSCRIPT and not seg.heading:
            seg = replace(seg, heading=parsed.title)
        out.append(seg)
    return out


@dataclass(frozen=True, slots=True)
class Embedding:
    """How a library embeds: the model's batch size and whether headings lead the text."""

    batch_size: int
    context: bool

    def texts(
        self, embedder: Embedder, texts: Sequence[str], cancel: threading.Event | None = None
    ) -> np.ndarray:
        """One float32 row per text.

        Raises:
            Cancelled: ``cancel`` was set between two batches.
        """
        batch = max(1, self.batch_size) * 4
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), batch):
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled")
            parts.append(embedder.embed(texts[start : start + batch], batch_size=self.batch_size))
        if not parts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.vstack(parts).astype(np.float32, copy=False)

    def drafts(
        self,
        embedder: Embedder,
        title: str,
        drafts: Sequence[SegmentDraft],
        cancel: threading.Event | None = None,
    ) -> np.ndarray:
        """The vectors of the drafts that have text, in order (pages waiting for OCR have none)."""
        texts = [embed_text(title, d, self.context) for d in drafts if d.text.strip()]
        return self.texts(embedder, texts, cancel)

    def stored(self, embedder: Embedder, rows: Sequence[StoredText]) -> np.ndarray:
        """The vectors of stored segments, embedded as an import embeds them."""
        texts = [
            embed_text(title, (heading, text), self.context) for _, heading, text, title in rows
        ]
        return self.texts(embedder, texts)

    def sentences(
        self,
        embedder: Embedder,
        timings: Sequence[Sequence[Timing]],
        cancel: threading.Event | None = None,
    ) -> list[np.ndarray]:
        """Each segment's cues embedded one by one (without the title: a short sentence
        would be mostly title), one matrix per segment in cue order."""
        vectors = self.texts(embedder, [t.text for cues in timings for t in cues], cancel)
        out: list[np.ndarray] = []
        at = 0
        for cues in timings:
            out.append(vectors[at : at + len(cues)])
            at += len(cues)
        return out
