"""The engine's facade: open a library folder, ingest files, search, remove, re-index.

A library is a folder holding ``library.db`` (SQLite, WAL), ``vectors/<space>.hnsw`` with
its JSON sidecar, and ``thumbs/``. Every source is written in one transaction, so it is
either fully searchable or not visible; the vector index is reconciled with the database
at open, so a crash between the two loses nothing.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine import ingest
from engine.align import Moment, align_slides, speech_moments
from engine.config import EngineConfig, SearchConfig
from engine.errors import (
    Cancelled,
    CoursedexError,
    ModelError,
    ModelMismatchError,
    NotFoundError,
    UnreadableFileError,
)
from engine.ingest.safezip import open_zip, read_member
from engine.ingest.text import decode_text, read_text
from engine.media.transcript import SpeechPart, transcript_windows
from engine.models import Embedder, Reranker
from engine.models.registry import ModelRegistry, default_models_dir
from engine.search import NO_FILTERS, Searcher, SearchFilters, SearchOutcome
from engine.store import Course, SegmentRow, Source, Store
from engine.types import (
    ParsedSource,
    SegmentDraft,
    SegmentKind,
    SourceKind,
    SourceStatus,
    Timing,
)
from engine.vectors import VectorIndex

if TYPE_CHECKING:
    from engine.media.transcribe import SpeechSegment, TranscriptionProgress
    from engine.models.ocr import TextRecognizer

log = logging.getLogger(__name__)

UNSORTED = "Unsorted"  # the course of loose files dropped without a course name
SPACE = "text"  # one embedding space for now: every segment's text, by the text embedder
_SAVE_EVERY_S = 30.0
_MEDIA = (SourceKind.VIDEO, SourceKind.AUDIO)


class Outcome(StrEnum):
    INDEXED = "indexed"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"
    MOVED = "moved"
    ERROR = "error"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class FileResult:
    path: str
    outcome: Outcome
    detail: str = ""
    segments: int = 0


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """One progress report: which file, where in the job, and an estimate of time left."""

    path: str
    index: int  # 0-based position of this file in the job
    total: int
    stage: str  # "reading", "transcribing", "scenes", "screen text", "embedding", "done"
    fraction: float  # whole job, 0..1, weighted by file size
    eta_s: float | None
    result: FileResult | None = None
    file_fraction: float | None = None  # this file, 0..1, when the stage knows it
    detail: str = ""  # e.g. "0.09x real time" while transcribing


@dataclass(slots=True)
class IngestReport:
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, outcome: Outcome) -> int:
        return sum(1 for f in self.files if f.outcome == outcome)

    @property
    def errors(self) -> list[FileResult]:
        return [f for f in self.files if f.outcome == Outcome.ERROR]


StageReport = Callable[..., None]  # (stage name, file fraction or None, detail="")


@dataclass(frozen=True, slots=True)
class PlannedFile:
    path: Path
    course: str
    course_root: str | None
    kind: SourceKind


def _sha256(path: Path, extra: Sequence[Path] = ()) -> str:
    digest = hashlib.sha256()
    for p in (path, *extra):
        with p.open("rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()


def embed_text(title: str, seg: SegmentDraft | tuple[str, str], context: bool = True) -> str:
    """What the embedder sees: the segment's heading (or its file's title) as context, then
    its text (``context`` False: the text alone, for the ablation that measures it)."""
    heading, text = (seg.heading, seg.text) if isinstance(seg, SegmentDraft) else seg
    lead = (heading or title) if context else ""
    return f"{lead}\n{text}" if lead else text


class Library:
    """One library folder. Safe to search from one thread while another ingests.

    Raises:
        LibraryError: the folder cannot be used as a library.
    """

    def __init__(
        self,
        folder: Path,
        config: EngineConfig,
        embedder: Callable[[], Embedder],
        *,
        models: ModelRegistry | None = None,
        reranker: Callable[[], Reranker | None] | None = None,
    ) -> None:
        self.folder = folder
        self.config = config
        self.models = models or ModelRegistry(default_models_dir())
        self.thumbs = folder / "thumbs"
        self._recognizer: TextRecognizer | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "thumbs").mkdir(exist_ok=True)
        self.store = Store(folder / "library.db")
        self._load_embedder = embedder
        self._embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()
        self._index: VectorIndex | None = None
        # Writers take it to update the index and to create or replace self._index (open,
        # first import, reindex). Searches do not: a VectorIndex serialises its own calls.
        self._index_lock = threading.RLock()
        self._missing_vectors: set[int] = set()
        self._load_reranker = reranker or self._installed_reranker
        self._reranker: Reranker | None = None
        self._reranker_tried = False
        self._reranker_lock = threading.Lock()
        self._open_index()
        self.searcher = Searcher(
            self.store,
            self._index_if_any,
            self._embedder_if_any,
            config.search,
            self.thumbs,
            reranker=self.reranker,
        )

    @classmethod
    def open(
        cls,
        folder: Path | str,
        config: EngineConfig,
        embedder: Callable[[], Embedder],
        *,
        models: ModelRegistry | None = None,
        reranker: Callable[[], Reranker | None] | None = None,
    ) -> Library:
        """Open (or create) a library. ``models`` finds the speech model and the reranker
        (default: the user's model folder); ``reranker`` replaces the installed one."""
        return cls(Path(folder), config, embedder, models=models, reranker=reranker)

    def close(self) -> None:
        self.save()
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- models and the vector index ----------------------------------------------------

    @property
    def embedder_id(self) -> str | None:
        return self.store.get_meta("embedder_id")

    def embedder(self) -> Embedder:
        """The library's embedder, loaded on first use and checked against the library.

        Raises:
            ModelMismatchError: the library's vectors come from a different model.
        """
        with self._embedder_lock:
            if self._embedder is None:
                model = self._load_embedder()
                recorded = self.embedder_id
                if recorded is not None and recorded != model.model_id:
                    raise ModelMismatchError(
                        f"this library was indexed with {recorded}, not {model.model_id}; "
                        f"run `coursedex reindex` to switch models"
                    )
                self._embedder = model
                if self._missing_vectors:
                    self._embed_missing(model)
                self._embed_missing_sentences(model)
            return self._embedder

    def reranker(self) -> Reranker | None:
        """The cross-encoder, loaded on first use; None when none is installed (or it
        cannot be loaded: search then ranks without it, and says why once in the log)."""
        with self._reranker_lock:
            if not self._reranker_tried:
                self._reranker_tried = True
                try:
                    self._reranker = self._load_reranker()
                except ModelError as e:
                    log.warning("searching without a reranker: %s", e)
            return self._reranker

    def _installed_reranker(self) -> Reranker | None:
        name = self.config.reranker
        if name is None or not any(m.installed for m in self.models.list() if m.name == name):
            return None
        from engine.models.reranker import OnnxReranker

        return OnnxReranker(self.models.path(name), self.config.threads)

    def _embed_missing(self, model: Embedder) -> None:
        """Re-embed segments whose stored vector was lost (found by the check at open)."""
        rows = self.store.texts(sorted(self._missing_vectors))
        if rows:
            vectors = self._embed(model, _stored_texts(rows, self.config.embed_context), None)
            ids = [sid for sid, _, _, _ in rows]
            self.store.put_vectors(ids, vectors, SPACE)
            index = self._ensure_index(model)
            with self._index_lock:
                index.add(np.asarray(ids, dtype=np.int64), vectors)
                index.save()
            log.warning("re-embedded %d segments that had lost their vectors", len(ids))
        self._missing_vectors = set()

    def _embed_missing_sentences(self, model: Embedder) -> None:
        """Give timed segments stored before cue vectors existed (or whose were lost) theirs."""
        done = 0
        for rows in self.store.timed_segments(missing_only=True):
            vectors = self._sentence_vectors(model, [r.timings for r in rows], None)
            self.store.put_sentence_vectors([r.id for r in rows], vectors)
            done += len(rows)
        if done:
            log.info("embedded the sentences of %d timed segments", done)

    def _sentence_vectors(
        self,
        embedder: Embedder,
        timings: Sequence[Sequence[Timing]],
        cancel: threading.Event | None,
    ) -> list[np.ndarray]:
        """Each segment's cues embedded one by one (without the title: a short sentence
        would be mostly title), one matrix per segment in cue order."""
        texts = [t.text for cues in timings for t in cues]
        vectors = self._embed(embedder, texts, cancel)
        out: list[np.ndarray] = []
        at = 0
        for cues in timings:
            out.append(vectors[at : at + len(cues)])
            at += len(cues)
        return out

    def _embedder_if_any(self) -> Embedder | None:
        return self.embedder() if self._index is not None else None

    def _index_if_any(self) -> VectorIndex | None:
        return self._index

    def _open_index(self) -> None:
        """Open the vector index and make it agree with the database (repair at open)."""
        model_id = self.embedder_id
        dimension = self.store.get_meta("dimension")
        if model_id is None or dimension is None:
            return
        with self._index_lock:
            index = VectorIndex.open(
                self.folder / "vectors", SPACE, dimension=int(dimension), model_id=model_id
            )
            expected = self.store.segment_ids()
            report = index.reconcile(expected, lambda ids: self.store.vectors(ids, int(dimension)))
            if report.added or report.deleted:
                log.warning(
                    "vector index repaired: %d added, %d removed", report.added, report.deleted
                )
                index.save()
            self._index = index
        # Segments with no stored vector are re-embedded when the model is first loaded.
        self._missing_vectors = set(report.missing_vectors)

    def _ensure_index(self, embedder: Embedder) -> VectorIndex:
        with self._index_lock:
            if self._index is None:
                self.store.set_meta("embedder_id", embedder.model_id)
                self.store.set_meta("dimension", str(embedder.dimension))
                self._index = VectorIndex.open(
                    self.folder / "vectors",
                    SPACE,
                    dimension=embedder.dimension,
                    model_id=embedder.model_id,
                )
            return self._index

    def save(self) -> None:
        with self._index_lock:
            if self._index is not None:
                self._index.save()

    # --- ingest -------------------------------------------------------------------------

    def plan(self, paths: Iterable[Path | str], course: str | None = None) -> list[PlannedFile]:
        """The files an ingest of ``paths`` would read. A folder becomes a course of its
        name; loose files go to ``course`` or "Unsorted". Subtitles beside a media file of
        the same name in the same ingest are that file's transcript, not sources of their own.
        Videos and audio come last, so everything else is searchable while they transcribe."""
        planned: list[PlannedFile] = []
        for raw in paths:
            path = Path(raw).expanduser().resolve()
            if path.is_dir():
                name = course or path.name
                files = sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p, path))
                root: str | None = str(path)
            else:
                name, files, root = course or UNSORTED, [path], None
            for f in files:
                kind = ingest.classify(f)
                if kind is None:
                    if not path.is_dir():
                        planned.append(PlannedFile(f, name, root, SourceKind.NOTES))
                    continue
                planned.append(PlannedFile(f, name, root, kind))
        media = (p.path for p in planned if p.kind in (SourceKind.VIDEO, SourceKind.AUDIO))
        sidecars = {found for m in media if (found := ingest.find_sidecar(m)) is not None}
        unique: dict[Path, PlannedFile] = {p.path: p for p in planned if p.path not in sidecars}
        # Quick files first: notes, slides and code are searchable in seconds, while a video
        # can take minutes to transcribe.
        return sorted(unique.values(), key=lambda p: p.kind in _MEDIA)

    def ingest(
        self,
        paths: Iterable[Path | str],
        *,
        course: str | None = None,
        progress: Callable[[IngestProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> IngestReport:
        """Index files and folders. Bad files end as ``error`` with a reason; the rest go on.

        Raises:
            Cancelled: never; a cancel stops between files and marks the rest cancelled.
            ModelMismatchError: the library was built with another embedder.
        """
        started = time.monotonic()
        plan = self.plan(paths, course)
        for item in plan:
            course_id = self.store.ensure_course(item.course, item.course_root)
            known = self.store.source_by_path(str(item.path))
            if known is None or known.status != SourceStatus.INDEXED:
                self.store.upsert_source(
                    course_id=course_id,
                    path=str(item.path),
                    kind=item.kind,
                    title=item.path.name,
                    status=SourceStatus.QUEUED,
                )
        report = self._run(plan, progress, cancel)
        report.seconds = time.monotonic() - started
        return report

    def resume(
        self,
        progress: Callable[[IngestProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> IngestReport:
        """Finish the files a previous run queued but did not index (after a quit or crash)."""
        pending = [
            PlannedFile(Path(s.path), s.course, None, s.kind)
            for s in self.store.sources()
            if s.status in (SourceStatus.QUEUED, SourceStatus.INDEXING)
        ]
        return self._run(pending, progress, cancel)

    def _run(
        self,
        plan: list[PlannedFile],
        progress: Callable[[IngestProgress], None] | None,
        cancel: threading.Event | None,
    ) -> IngestReport:
        report = IngestReport()
        sizes = [_size(p.path) for p in plan]
        total_bytes = max(sum(sizes), 1)
        done_bytes = 0
        started = time.monotonic()
        last_save = started
        touched: set[str] = set()
        within_file = [0.0]  # share of the current file done, as last reported

        def emit(
            i: int,
            stage: str,
            result: FileResult | None = None,
            file_fraction: float | None = None,
            detail: str = "",
        ) -> None:
            if progress is None:
                return
            if result is not None or stage == "reading":
                within_file[0] = 0.0
            elif file_fraction is not None:
                within_file[0] = file_fraction
            within = sizes[i] * within_file[0]
            fraction = min(1.0, (done_bytes + within) / total_bytes)
            elapsed = time.monotonic() - started
            eta = elapsed * (1 - fraction) / fraction if fraction > 0.02 else None
            progress(
                IngestProgress(
                    str(plan[i].path),
                    i,
                    len(plan),
                    stage,
                    fraction,
                    eta,
                    result,
                    file_fraction,
                    detail,
                )
            )

        for i, item in enumerate(plan):
            if cancel is not None and cancel.is_set():
                report.files.append(FileResult(str(item.path), Outcome.CANCELLED))
                continue
            emit(i, "reading")

            def stage(name: str, file_fraction: float | None = None, detail: str = "") -> None:
                emit(i, name, None, file_fraction, detail)  # noqa: B023 (called in this turn)

            try:
                result = self._ingest_one(item, cancel, stage)
            except Cancelled:
                result = FileResult(str(item.path), Outcome.CANCELLED)
            except ModelMismatchError:
                raise
            except CoursedexError as e:
                result = FileResult(str(item.path), Outcome.ERROR, str(e))
                self._mark_error(item, str(e))
            except (OSError, ValueError, RuntimeError, MemoryError) as e:
                # A parser library failed in a way we did not foresee: the file is bad,
                # the import is not. Keep the traceback in the log.
                log.warning("unexpected failure reading %s", item.path, exc_info=True)
                reason = f"{type(e).__name__}: {e}".splitlines()[0][:200]
                result = FileResult(str(item.path), Outcome.ERROR, reason)
                self._mark_error(item, reason)
            report.files.append(result)
            if result.outcome in (Outcome.INDEXED, Outcome.MOVED):
                touched.add(item.course)
            done_bytes += sizes[i]
            emit(i, "done", result)
            if time.monotonic() - last_save > _SAVE_EVERY_S:
                self.save()
                last_save = time.monotonic()
        if touched and self.config.media.link_slides:
            try:
                self.link_slides(touched)
            except CoursedexError as e:
                log.warning("slides not linked to lectures: %s", e)
        self.save()
        return report

    def _mark_error(self, item: PlannedFile, reason: str) -> None:
        """Record why a file failed. Its earlier index goes: a hit must never open a file
        that no longer holds the text that matched."""
        source = self.store.source_by_path(str(item.path))
        if source is not None:
            self._drop_segments(source.id)
            self.store.set_source_status(source.id, SourceStatus.ERROR, reason)

    def _drop_segments(self, source_id: int) -> None:
        thumbnails = self.store.thumbnails_of_source(source_id)
        if thumbnails:
            with self.store.transaction():
                self.store.put_scenes(source_id, [])
            self._delete_thumbnails(thumbnails)
        ids = self.store.segment_ids_of_source(source_id)
        if not ids:
            return
        self.store.delete_segments(source_id)
        with self._index_lock:
            if self._index is not None:
                self._index.delete(ids)

    def _ingest_one(
        self, item: PlannedFile, cancel: threading.Event | None, stage: StageReport | None = None
    ) -> FileResult:
        path = item.path
        if not path.is_file():
            raise CoursedexError("file not found")
        sidecar = (
            ingest.find_sidecar(path) if item.kind in (SourceKind.VIDEO, SourceKind.AUDIO) else None
        )
        stat = path.stat()
        course_id = self.store.ensure_course(item.course, item.course_root)
        known = self.store.source_by_path(str(path))
        indexed = known if known is not None and known.status == SourceStatus.INDEXED else None
        if (
            indexed is not None
            and sidecar is None
            and (indexed.size, indexed.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        ):
            # Same size and modification time: unchanged, without reading a large file again.
            return FileResult(str(path), Outcome.UNCHANGED, segments=indexed.segments)
        sha = _sha256(path, [sidecar] if sidecar else [])
        if indexed is not None and indexed.sha256 == sha:
            return FileResult(str(path), Outcome.UNCHANGED, segments=indexed.segments)
        for twin in self.store.sources_by_sha256(sha):
            if twin.path == str(path):
                continue
            if Path(twin.path).exists():
                # A copy is not a second source: forget the row queued for it.
                if known is not None:
                    self._remove_source(known)
                return FileResult(str(path), Outcome.DUPLICATE, f"same content as {twin.path}")
            # The file was moved or renamed: keep its index, follow the new path. A loose
            # file with no course named keeps the course it had.
            if known is not None:
                self._remove_source(known)
            keep_course = item.course_root is None and item.course == UNSORTED
            self.store.move_source(twin.id, str(path), twin.course_id if keep_course else course_id)
            return FileResult(str(path), Outcome.MOVED, f"was {twin.path}", twin.segments)

        self.store.upsert_source(
            course_id=course_id,
            path=str(path),
            kind=item.kind,
            title=path.name,
            status=SourceStatus.INDEXING,
        )
        stage = stage or _no_stage
        media = self.config.media
        if item.kind in (SourceKind.VIDEO, SourceKind.AUDIO) and sidecar is None:
            parsed = self._transcribe(path, sha, stage, cancel)
        else:
            parsed = ingest.parse_file(path, self.config)
        if media.screen_text and any(s.needs_ocr for s in parsed.segments):
            parsed = self._read_pages(path, parsed, stage, cancel)
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        scan = item.kind is SourceKind.VIDEO and media.screen_text
        stage("embedding")
        n = self.index_parsed(
            path,
            parsed,
            course=item.course,
            sha256=sha,
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            cancel=cancel,
            finished=not scan,
        )
        notes = list(parsed.warnings)
        if scan:
            # Speech is searchable now; the frames are read after it.
            n += self._scan_frames(path, sha, parsed.title, notes, stage, cancel)
        self.store.forget_transcript(sha)
        waiting = sum(1 for s in parsed.segments if s.needs_ocr)
        if waiting:
            notes.append(
                f"{waiting} page{'s' if waiting > 1 else ''} without a text layer wait for OCR"
            )
        return FileResult(str(path), Outcome.INDEXED, "; ".join(notes), n)

    # --- video and audio ----------------------------------------------------------------

    def _transcribe(
        self, path: Path, sha: str, stage: StageReport, cancel: threading.Event | None
    ) -> ParsedSource:
        """Speech recognition in a child process, kept part by part in the library so a
        killed or cancelled import resumes where it stopped.

        Raises:
            UnreadableFileError: not media, truncated, or no audio track.
            ModelError: the speech model is not installed.
            Cancelled, WorkerCrashed.
        """
        from engine.media.probe import probe
        from engine.media.transcribe import Transcriber

        info = probe(path)
        if not info.has_audio:
            raise UnreadableFileError("no audio track: nothing to transcribe")
        media = self.config.media
        model = media.speech_model
        finished = self.store.transcript_finished(sha, model)
        parts = [
            SpeechPart(a, b, text, words)
            for a, b, text, words in self.store.transcript_parts(sha, model)
        ]
        if finished is None:
            resume_ms = parts[-1].end_ms if parts else 0
            if resume_ms:
                log.info("%s: resuming transcription at %s", path.name, _clock(resume_ms))
            transcriber = Transcriber(
                self.models.path(model),
                threads=self.config.threads,
                language=media.language,
                beam_size=media.beam_size,
            )

            def keep(seg: SpeechSegment) -> None:
                self.store.add_transcript_part(
                    sha, model, seg.start_ms, seg.end_ms, seg.text, seg.words
                )
                parts.append(SpeechPart(seg.start_ms, seg.end_ms, seg.text, seg.words))

            def report(p: TranscriptionProgress) -> None:
                rtf = f"{p.rtf:.2f}x real time" if p.rtf is not None else ""
                stage("transcribing", p.fraction, rtf)

            stage("transcribing", resume_ms / info.duration_ms if info.duration_ms else 0.0)
            result = transcriber.transcribe(
                path, start_ms=resume_ms, on_segment=keep, progress=report, cancel=cancel
            )
            self.store.finish_transcript(sha, model, result.language, info.duration_ms)
        if not any(p.text.strip() for p in parts):
            raise UnreadableFileError("no speech found")
        kind = SourceKind.VIDEO if info.has_video else SourceKind.AUDIO
        windows = transcript_windows(parts, self.config.chunking)
        return ParsedSource(kind, path.stem, tuple(windows), duration_ms=info.duration_ms)

    def _scan_frames(
        self,
        path: Path,
        sha: str,
        title: str,
        notes: list[str],
        stage: StageReport,
        cancel: threading.Event | None,
    ) -> int:
        """Scenes, thumbnails and on-screen text of an already searchable video; marks the
        source indexed. A video whose frames cannot be read keeps its speech, with a note."""
        from engine.media.scenes import scan_video
        from engine.media.screen import screen_segments

        source = self.store.source_by_path(str(path))
        if source is None:
            raise CoursedexError("the video disappeared from the library while indexing")
        media = self.config.media
        try:
            scanned = scan_video(
                path,
                self.thumbs,
                sha[:16],
                media,
                self.recognizer() if media.screen_text else None,
                progress=lambda f: stage("finding scenes" if f < 0.3 else "reading the screen", f),
                cancel=cancel,
            )
        except UnreadableFileError as e:
            notes.append(f"frames not read: {e}")
            self.store.set_source_status(source.id, SourceStatus.INDEXED, None)
            return 0
        drafts = [d for d, _ in screen_segments(scanned)]
        embedder = self.embedder()
        with_text = [d for d in drafts if d.text.strip()]
        vectors = self._embed(
            embedder, [embed_text(title, d, self.config.embed_context) for d in with_text], cancel
        )
        old = set(self.store.thumbnails_of_source(source.id))
        scenes = [
            (s.scene.start_ms, s.scene.end_ms, s.scene.keyframe_ms, s.scene.thumbnail)
            for s in scanned
        ]
        with self.store.transaction():
            self.store.put_scenes(source.id, scenes)
            ids = self.store.append_segments(source.id, drafts, vectors, SPACE)
            self.store.set_source_status(source.id, SourceStatus.INDEXED, None)
        embedded = [sid for sid, d in zip(ids, drafts, strict=True) if d.text.strip()]
        index = self._ensure_index(embedder)
        with self._index_lock:
            index.add(np.asarray(embedded, dtype=np.int64), vectors)
        self._delete_thumbnails(old - {s[3] for s in scenes})
        return len(ids)

    def _delete_thumbnails(self, names: Iterable[str]) -> None:
        for name in names:
            if name and "/" not in name and "\\" not in name:
                (self.thumbs / name).unlink(missing_ok=True)

    def link_slides(self, courses: Iterable[str] | None = None) -> int:
        """Match the slide decks of each course to its videos and transcripts (both ways).

        Each lecture is aligned to every deck of its course and keeps the deck that fits
        best. Returns how many lectures got links.
        """
        linked = 0
        wanted = None if courses is None else set(courses)
        for course in self.store.courses():
            if wanted is not None and course.name not in wanted:
                continue
            sources = [s for s in self.store.sources(course.id) if s.status == SourceStatus.INDEXED]
            decks = [s for s in sources if s.kind == SourceKind.SLIDES]
            lectures = [s for s in sources if s.kind in _TIMED_KINDS]
            pages = {d.id: _page_texts(self.store.segments_of_source(d.id)) for d in decks}
            for lecture in lectures:
                if not decks:  # nothing to line up with: only drop links to removed decks
                    if self.store.slide_links(lecture.id):
                        self.store.replace_slide_links(lecture.id, [])
                    continue
                moments = _moments(
                    self.store.segments_of_source(lecture.id), self.store.scenes(lecture.id)
                )
                best: tuple[float, int, object] | None = None
                for deck in decks:
                    numbers, texts = pages[deck.id]
                    if not texts or not moments:
                        continue
                    alignment = align_slides(texts, moments)
                    if best is None or alignment.score > best[0]:
                        best = (alignment.score, deck.id, (numbers, alignment))
                links: list[tuple[int, int, int, int, float]] = []
                if best is not None:
                    numbers, alignment = best[2]  # type: ignore[misc]
                    for moment, page, score in zip(
                        moments, alignment.pages, alignment.scores, strict=True
                    ):
                        if page is None:
                            continue
                        number = numbers[page - 1]
                        if links and links[-1][3] == number and links[-1][1] >= moment.start_ms:
                            a, _, deck_id, p, s = links[-1]
                            links[-1] = (a, moment.end_ms, deck_id, p, max(s, score))
                        else:
                            links.append((moment.start_ms, moment.end_ms, best[1], number, score))
                self.store.replace_slide_links(lecture.id, links)
                linked += bool(links)
        return linked

    def recognizer(self) -> TextRecognizer:
        """The on-screen text reader, loaded on first use."""
        from engine.models.ocr import RapidTextRecognizer

        if self._recognizer is None:
            self._recognizer = RapidTextRecognizer(threads=self.config.threads)
        return self._recognizer

    def _read_pages(
        self, path: Path, parsed: ParsedSource, stage: StageReport, cancel: threading.Event | None
    ) -> ParsedSource:
        """Read pages that have no text layer with OCR before the deck is indexed."""
        from engine.models.ocr import ocr_pdf_pages

        if path.suffix.lower() != ".pdf":
            return parsed
        pages = [s.page for s in parsed.segments if s.needs_ocr and s.page is not None]
        stage("reading pages", 0.0, f"{len(pages)} pages without text")
        texts = ocr_pdf_pages(path, pages, self.recognizer(), cancel=cancel)
        segments = []
        for seg in parsed.segments:
            text = texts.get(seg.page or 0, "").strip() if seg.needs_ocr else ""
            if text:
                heading = seg.heading or text.splitlines()[0][:120]
                seg = replace(seg, text=text, heading=heading, needs_ocr=False)
            segments.append(seg)
        return replace(parsed, segments=tuple(segments))

    def index_parsed(
        self,
        path: Path | str,
        parsed: ParsedSource,
        *,
        course: str,
        sha256: str,
        size: int = 0,
        mtime_ns: int = 0,
        cancel: threading.Event | None = None,
        vectors: np.ndarray | None = None,
        finished: bool = True,
    ) -> int:
        """Embed and store an already parsed source in one transaction; returns segments.

        ``vectors``, when given, must be this library's embedder's vectors of
        ``embed_text(parsed.title, segment)`` for every non-empty segment, in order (bulk
        loaders embed many sources at once that way).

        Raises:
            CoursedexError: the source has no text.
            Cancelled: ``cancel`` was set while embedding (nothing is written).
        """
        segments = _with_context(parsed)
        if not any(s.text.strip() or s.needs_ocr for s in segments):
            raise CoursedexError("no text found in this file")
        embedder = self.embedder()
        with_text = [s for s in segments if s.text.strip()]
        if vectors is None:
            texts = [embed_text(parsed.title, s, self.config.embed_context) for s in with_text]
            vectors = self._embed(embedder, texts, cancel)
        elif vectors.shape != (len(with_text), embedder.dimension):
            raise CoursedexError(f"{len(with_text)} segments but vectors of shape {vectors.shape}")
        sentences = self._sentence_vectors(embedder, [s.timings for s in segments], cancel)
        course_id = self.store.ensure_course(course)
        source_id = self.store.upsert_source(
            course_id=course_id,
            path=str(path),
            kind=parsed.kind,
            title=parsed.title,
            status=SourceStatus.INDEXING,
        )
        old_ids = self.store.segment_ids_of_source(source_id)
        with self.store.transaction():
            ids = self.store.replace_source_content(
                source_id,
                title=parsed.title,
                sha256=sha256,
                size=size,
                mtime_ns=mtime_ns,
                duration_ms=parsed.duration_ms,
                embedder_id=embedder.model_id,
                segments=segments,
                vectors=vectors,
                space=SPACE,
                status=SourceStatus.INDEXED if finished else SourceStatus.INDEXING,
                sentences=sentences,
            )
        index = self._ensure_index(embedder)
        embedded = [sid for sid, seg in zip(ids, segments, strict=True) if seg.text.strip()]
        with self._index_lock:
            index.delete(old_ids)
            index.add(np.asarray(embedded, dtype=np.int64), vectors)
        return len(ids)

    def _embed(
        self, embedder: Embedder, texts: Sequence[str], cancel: threading.Event | None
    ) -> np.ndarray:
        batch = max(1, self.config.embed_batch_size) * 4
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), batch):
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled")
            parts.append(
                embedder.embed(
                    texts[start : start + batch], batch_size=self.config.embed_batch_size
                )
            )
        if not parts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.vstack(parts).astype(np.float32, copy=False)

    # --- search -------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: SearchFilters = NO_FILTERS,
        config: SearchConfig | None = None,
        typing: bool = False,
    ) -> SearchOutcome:
        """Hybrid search. Any text is a valid query; no words means no results."""
        return self.searcher.search(
            query, limit=limit, filters=filters, config=config, typing=typing
        )

    # --- management ---------------------------------------------------------------------

    def courses(self) -> list[Course]:
        return self.store.courses()

    def sources(self, course: str | None = None) -> list[Source]:
        return self.store.sources(self.store.course_id(course) if course else None)

    def flag(self, name: str) -> bool:
        """A one-time fact stored with the library, e.g. that the demo course was offered."""
        return self.store.get_meta(f"flag:{name}") == "1"

    def set_flag(self, name: str) -> None:
        self.store.set_meta(f"flag:{name}", "1")

    def source(self, path: str) -> Source | None:
        """The library's record of a file (by the path search results carry)."""
        return self.store.source_by_path(path)

    def transcript(self, path: str) -> list[Timing]:
        """The spoken sentences (or subtitle cues) of a lecture in time order, once each.

        Transcript windows overlap by a sentence or two; the overlap is dropped here.

        Raises:
            NotFoundError: no such file in the library.
        """
        source = self._source_or_raise(path)
        lines: list[Timing] = []
        for row in self.store.segments_of_source(source.id):
            if row.kind != SegmentKind.TRANSCRIPT:
                continue
            units = row.timings or (
                (Timing(row.start_ms or 0, row.end_ms or 0, row.text),) if row.text else ()
            )
            lines += [u for u in units if not lines or u.start_ms >= lines[-1].end_ms]
        return lines

    def source_text(self, path: str, member: str | None = None) -> str:
        """The text of a code or notes file, or of a file inside an imported archive,
        decoded the way the import decoded it (for showing it at the matched line).

        Raises:
            NotFoundError: the file is not in the library, or the archive has no such member.
            UnreadableFileError: the file is gone or changed so it cannot be read as text.
        """
        source = self._source_or_raise(path)
        limits = self.config.limits
        if member is None:
            return read_text(Path(source.path), limits.max_file_bytes, "a text file")
        with open_zip(Path(source.path)) as zf:
            try:
                info = zf.getinfo(member)
            except KeyError:
                raise NotFoundError(f"{member} is not in {Path(path).name}") from None
            data = read_member(zf, info, limits.max_archive_member_bytes)
        return decode_text(data, "a text file")

    def _source_or_raise(self, path: str) -> Source:
        source = self.store.source_by_path(path)
        if source is None:
            raise NotFoundError(f"{path} is not in the library")
        return source

    def remove(self, target: str) -> int:
        """Remove a course (by name) or a source (by path); returns sources removed.

        Raises:
            NotFoundError: nothing in the library has that name or path.
        """
        doomed: list[Source]
        try:
            course_id = self.store.course_id(target)
            doomed = self.store.sources(course_id)
        except NotFoundError:
            course_id = None
            path = str(Path(target).expanduser().resolve())
            found = self.store.source_by_path(path)
            if found is None:
                raise NotFoundError(f"no course or file named {target!r} in the library") from None
            doomed = [found]
        for source in doomed:
            self._remove_source(source)
        if course_id is not None:
            self.store.delete_course(course_id)
        elif doomed[0].kind == SourceKind.SLIDES and self.config.media.link_slides:
            self.link_slides([doomed[0].course])  # its lectures may fit another deck
        self.save()
        return len(doomed)

    def _remove_source(self, source: Source) -> None:
        self._delete_thumbnails(self.store.thumbnails_of_source(source.id))
        ids = self.store.segment_ids_of_source(source.id)
        self.store.delete_source(source.id)
        with self._index_lock:
            if self._index is not None:
                self._index.delete(ids)

    def rename_course(self, old: str, new: str) -> None:
        self.store.rename_course(old, new)

    def reindex(
        self,
        embedder: Embedder,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        """Re-embed every segment with ``embedder`` and rebuild the vector index.

        The old vectors stay until the new ones are complete, so a cancelled re-index
        leaves the library as it was.
        """
        total = len(self.store.segment_ids())
        new_ids: list[int] = []
        new_vectors: list[np.ndarray] = []
        done = 0
        for batch in self.store.iter_segment_texts():
            if cancel is not None and cancel.is_set():
                raise Cancelled("re-index cancelled; the library is unchanged")
            new_vectors.append(
                embedder.embed(
                    _stored_texts(batch, self.config.embed_context),
                    batch_size=self.config.embed_batch_size,
                )
            )
            new_ids.extend(sid for sid, _, _, _ in batch)
            done += len(batch)
            if progress is not None:
                progress(done, total)
        sentence_ids: list[int] = []
        sentences: list[np.ndarray] = []
        for rows in self.store.timed_segments(missing_only=False):
            sentences.extend(self._sentence_vectors(embedder, [r.timings for r in rows], cancel))
            sentence_ids.extend(r.id for r in rows)
        with self._index_lock:
            self.store.clear_vectors()
            if new_ids:
                self.store.put_vectors(new_ids, np.vstack(new_vectors), SPACE)
            self.store.put_sentence_vectors(sentence_ids, sentences)
            self.store.set_meta("embedder_id", embedder.model_id)
            self.store.set_meta("dimension", str(embedder.dimension))
            with self._embedder_lock:
                self._embedder = embedder
            index = VectorIndex.open(
                self.folder / "vectors",
                SPACE,
                dimension=embedder.dimension,
                model_id=embedder.model_id,
            )
            index.reconcile(set(new_ids), lambda ids: self.store.vectors(ids, embedder.dimension))
            index.save()
            self._index = index
        self.store.set_embedder_id(embedder.model_id)
        return len(new_ids)

    def stats(self) -> dict[str, object]:
        out = self.store.stats()
        out["library"] = str(self.folder)
        out["embedder"] = self.embedder_id
        out["vectors"] = len(self._index) if self._index is not None else 0
        db = self.folder / "library.db"
        out["database_bytes"] = db.stat().st_size if db.exists() else 0
        return out


def _stored_texts(rows: Sequence[tuple[int, str, str, str]], context: bool) -> list[str]:
    """What the embedder sees for stored (id, heading, text, source title) rows."""
    return [embed_text(title, (heading, text), context) for _, heading, text, title in rows]


def _with_context(parsed: ParsedSource) -> list[SegmentDraft]:
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


_TIMED_KINDS = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)


def _page_texts(rows: Sequence[SegmentRow]) -> tuple[list[int], list[str]]:
    """(page numbers, page texts) of a deck, in page order."""
    pages: dict[int, list[str]] = {}
    for row in rows:
        if row.page is not None:
            pages.setdefault(row.page, []).append(f"{row.heading}\n{row.text}".strip())
    numbers = sorted(pages)
    return numbers, ["\n".join(pages[n]) for n in numbers]


def _moments(
    rows: Sequence[SegmentRow], scenes: Sequence[tuple[int, int, int, str]]
) -> list[Moment]:
    """Stretches of a lecture to line up with slides: its scenes (screen text + what is said
    during each) when its frames were read, else 10-s steps of its speech."""
    spoken = [
        t for row in rows if row.kind == SegmentKind.TRANSCRIPT for t in (row.words or row.timings)
    ]
    # Overlapping windows repeat their shared sentence: keep each timed span once.
    spoken = sorted(set(spoken), key=lambda t: (t.start_ms, t.end_ms))
    if not scenes:
        return speech_moments(spoken)
    screens = [r for r in rows if r.kind == SegmentKind.SCREEN]
    out: list[Moment] = []
    for a, b, _, _ in scenes:
        speech = " ".join(t.text for t in spoken if a <= t.start_ms < b)
        screen = " ".join(r.text for r in screens if (r.start_ms or 0) < b and (r.end_ms or 0) > a)
        out.append(Moment(a, b, screen, speech))
    return out


def _clock(ms: int) -> str:
    m, s = divmod(ms // 1000, 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m:02d}:{s:02d}"


def _no_stage(name: str, file_fraction: float | None = None, detail: str = "") -> None:
    pass


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)
