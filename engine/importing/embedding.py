"""What the embedder sees of a segment, and texts turned into vectors in batches that a
cancel can stop between. Texts can be embedded ahead of need (:class:`Ahead`: a lecture's
sentences and windows while the rest of it is still being recognised); their vectors are
then taken instead of embedding the same text again."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from engine.errors import Cancelled
from engine.models import Embedder
from engine.types import ParsedSource, SegmentDraft, SegmentKind, Timing

StoredText = tuple[int, str, str, str]  # a stored segment: (id, heading, text, source title)
log = logging.getLogger(__name__)


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
    ahead: Ahead | None = field(default=None, compare=False)
    # The vectors of texts embedded before (the next files' texts together): by embedder.
    prepared: Callable[[Embedder, Sequence[str]], dict[str, np.ndarray]] | None = field(
        default=None, compare=False
    )

    def texts(
        self, embedder: Embedder, texts: Sequence[str], cancel: threading.Event | None = None
    ) -> np.ndarray:
        """One float32 row per text (a text embedded ahead by ``ahead`` is not embedded again).

        Raises:
            Cancelled: ``cancel`` was set between two batches.
        """
        known = self.ahead.vectors(embedder, texts) if self.ahead is not None else {}
        if self.prepared is not None:
            known.update(self.prepared(embedder, texts))
        # Shortest first over all of them, not only within each model batch: a file's
        # sentences in cue order made batches padded to their longest (+17% tokens, +13%
        # attention on the TutorialVQA subtitles; bench/text_floor.py).
        missing = sorted(dict.fromkeys(t for t in texts if t not in known), key=len)
        # One model batch between checks when the work can be cancelled: Ctrl+C stops
        # within a batch's time (~0.3 s on 2 cores), not four.
        batch = max(1, self.batch_size) * (1 if cancel is not None else 4)
        for start in range(0, len(missing), batch):
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled")
            some = missing[start : start + batch]
            vectors = embedder.embed(some, batch_size=self.batch_size)
            known.update(zip(some, vectors.astype(np.float32, copy=False), strict=True))
        if not texts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.vstack([known[t] for t in texts]).astype(np.float32, copy=False)

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

    def stored(
        self,
        embedder: Embedder,
        rows: Sequence[StoredText],
        cancel: threading.Event | None = None,
    ) -> np.ndarray:
        """The vectors of stored segments, embedded as an import embeds them.

        Raises:
            Cancelled: ``cancel`` was set between two batches.
        """
        texts = [
            embed_text(title, (heading, text), self.context) for _, heading, text, title in rows
        ]
        return self.texts(embedder, texts, cancel)

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


class Ahead:
    """Texts embedded ahead of need on a worker thread at background priority (``want``);
    :meth:`Embedding.texts` takes their vectors. ``clear`` forgets them (a file is done)."""

    def __init__(self, embedder: Callable[[], Embedder], batch_size: int) -> None:
        self._embedder = embedder
        self._batch = max(1, batch_size)
        self._lock = threading.Condition()
        self._queue: list[str] = []
        self._done: dict[str, np.ndarray] = {}
        self._owner: Embedder | None = None  # the embedder that made ``_done``
        self._generation = 0  # work started before a clear is dropped
        self._closed = False
        self._thread: threading.Thread | None = None

    def want(self, texts: Iterable[str]) -> None:
        with self._lock:
            queued = set(self._queue)
            new = [t for t in dict.fromkeys(texts) if t not in self._done and t not in queued]
            if not new:
                return
            self._queue.extend(new)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name="coursedex-embed-ahead", daemon=True
                )
                self._thread.start()
            self._lock.notify()

    def vectors(self, embedder: Embedder, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors made so far of ``texts``, by ``embedder`` only."""
        with self._lock:
            if self._owner is not embedder:
                return {}
            return {t: v for t in texts if (v := self._done.get(t)) is not None}

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self._done.clear()
            self._generation += 1

    def stop(self) -> None:
        """End the worker (an import ended); a later ``want`` starts another."""
        with self._lock:
            self._closed = True
            self._lock.notify()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        with self._lock:
            self._closed = False
        self.clear()

    def _work(self) -> None:
        from engine.media.transcribe import lower_thread_priority

        lower_thread_priority()
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                some, self._queue = self._queue[: self._batch * 4], self._queue[self._batch * 4 :]
                generation = self._generation
            try:
                embedder = self._embedder()
                vectors = embedder.embed(some, batch_size=self._batch)
            except Exception:  # the import embeds these itself, and reports what fails
                log.warning("embedding ahead failed", exc_info=True)
                continue
            with self._lock:
                if generation == self._generation:
                    if self._owner is not embedder:
                        self._done.clear()
                        self._owner = embedder
                    self._done.update(zip(some, vectors.astype(np.float32), strict=True))
