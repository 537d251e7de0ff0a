"""What a recording (a video or audio file) adds: the finished part of a transcription
(kept per content and model, so a killed import resumes there), scenes with their
thumbnails, and the slide pages linked to the moments that show them; and the language a
user set for a file's content.

Rows are named tuples: callers unpack them, and a tuple compares equal to one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.store.codec import timings_from, timings_json
from engine.store.database import Database, Record
from engine.types import Timing


class TranscriptPart(NamedTuple):
    start_ms: int
    end_ms: int
    text: str
    words: tuple[Timing, ...]

    @classmethod
    def from_row(cls, row: Record) -> TranscriptPart:
        return cls(int(row.start_ms), int(row.end_ms), str(row.text), timings_from(row.words))


class FinishedTranscript(NamedTuple):
    language: str
    duration_ms: int

    @classmethod
    def from_row(cls, row: Record) -> FinishedTranscript:
        return cls(str(row.language), int(row.duration_ms))


class Scene(NamedTuple):
    start_ms: int
    end_ms: int
    keyframe_ms: int
    thumbnail: str  # file name; "" when none was saved

    @classmethod
    def from_row(cls, row: Record) -> Scene:
        return cls(int(row.start_ms), int(row.end_ms), int(row.keyframe_ms), str(row.thumbnail))


class SlideLink(NamedTuple):
    start_ms: int
    end_ms: int
    slides_id: int
    page: int
    score: float

    @classmethod
    def from_row(cls, row: Record) -> SlideLink:
        return cls(
            int(row.start_ms),
            int(row.end_ms),
            int(row.slides_id),
            int(row.page),
            float(row.score),
        )


class SlidePage(NamedTuple):
    path: str
    page: int

    @classmethod
    def from_row(cls, row: Record) -> SlidePage:
        return cls(str(row.path), int(row.page))


class Showing(NamedTuple):
    """Where a slide page is on screen."""

    video_path: str
    start_ms: int
    end_ms: int

    @classmethod
    def from_row(cls, row: Record) -> Showing:
        return cls(str(row.path), int(row.start_ms), int(row.end_ms))


class Recordings:
    """The ``transcript_parts``, ``transcripts``, ``scenes`` and ``slide_links`` tables."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # --- transcription, kept while it runs -----------------------------------------------

    def transcript_parts(self, sha256: str, model: str, asked: str = "") -> list[TranscriptPart]:
        """The finished part of a transcription by ``model`` in the language ``asked`` (""
        when the model chose it): (start_ms, end_ms, text, words)."""
        rows = self._db.rows_where(
            "transcript_parts",
            "sha256 = ? AND model = ? AND asked = ?",
            (sha256, model, asked),
            select="start_ms, end_ms, text, words",
            order_by="ord",
        )
        return [TranscriptPart.from_row(r) for r in rows]

    def add_transcript_part(
        self,
        sha256: str,
        model: str,
        start_ms: int,
        end_ms: int,
        text: str,
        words: Sequence[Timing],
        *,
        asked: str = "",
    ) -> None:
        """Keep one recognised segment at once (committed: a kill loses nothing before it)."""
        # Hand-written: its place (ord) is computed in the same statement.
        key = (sha256, model, asked)
        self._db.execute(
            "INSERT INTO transcript_parts(sha256, model, asked, ord, start_ms, end_ms, text, "
            "words) SELECT ?, ?, ?, coalesce(max(ord) + 1, 0), ?, ?, ?, ? FROM transcript_parts "
            "WHERE sha256 = ? AND model = ? AND asked = ?",
            (*key, start_ms, end_ms, text, timings_json(words), *key),
        )

    def finish_transcript(
        self, sha256: str, model: str, language: str, duration_ms: int, *, asked: str = ""
    ) -> None:
        """The whole file was heard, in ``language`` (asked for ``asked``)."""
        self._db.insert_all(
            "transcripts",
            ("sha256", "model", "asked", "language", "duration_ms"),
            [(sha256, model, asked, language, duration_ms)],
            replace=True,
        )

    def transcript_finished(
        self, sha256: str, model: str, asked: str = ""
    ) -> FinishedTranscript | None:
        """(language heard, duration_ms) when the whole file was transcribed with ``model``
        in the language ``asked``."""
        rows = self._db.rows_where(
            "transcripts",
            "sha256 = ? AND model = ? AND asked = ?",
            (sha256, model, asked),
            select="language, duration_ms",
        )
        return FinishedTranscript.from_row(rows[0]) if rows else None

    def forget_transcript(self, sha256: str) -> None:
        """Drop the kept transcription of a file once its source is fully indexed."""
        with self._db.lock:
            self._db.delete_where("transcript_parts", "sha256 = ?", (sha256,))
            self._db.delete_where("transcripts", "sha256 = ?", (sha256,))

    # --- the language a user set ----------------------------------------------------------

    def chosen_language(self, sha256: str) -> str | None:
        """The language the user set for the file of this content (None: not set)."""
        row = self._db.row("SELECT language FROM file_languages WHERE sha256 = ?", (sha256,))
        return None if row is None else str(row.language)

    def choose_language(self, sha256: str, language: str | None) -> None:
        """Keep ``language`` for the file of this content; None forgets it (detected again).
        Kept by content, as notes: importing or moving the file again keeps it."""
        with self._db.lock:
            if language is None:
                self._db.delete_where("file_languages", "sha256 = ?", (sha256,))
            else:
                self._db.insert_all(
                    "file_languages", ("sha256", "language"), [(sha256, language)], replace=True
                )

    # --- scenes --------------------------------------------------------------------------

    def put_scenes(self, source_id: int, scenes: Sequence[tuple[int, int, int, str]]) -> None:
        """Replace a video's scenes: (start_ms, end_ms, keyframe_ms, thumbnail file name).

        Must be called inside a transaction."""
        self.delete_scenes(source_id)
        self._db.insert_all(
            "scenes",
            ("source_id", "ord", "start_ms", "end_ms", "keyframe_ms", "thumbnail"),
            ((source_id, i, *scene) for i, scene in enumerate(scenes)),
        )

    def delete_scenes(self, source_id: int) -> None:
        self._db.delete_where("scenes", "source_id = ?", (source_id,))

    def scenes(self, source_id: int) -> list[Scene]:
        rows = self._db.rows_where(
            "scenes",
            "source_id = ?",
            (source_id,),
            select="start_ms, end_ms, keyframe_ms, thumbnail",
            order_by="ord",
        )
        return [Scene.from_row(r) for r in rows]

    def thumbnail_at(self, source_id: int, ms: int) -> str | None:
        """The thumbnail of the scene on screen at ``ms`` (None without scenes). Search
        asks for each video result: hand-written, as its other reads are."""
        row = self._db.row(
            "SELECT thumbnail FROM scenes WHERE source_id = ? AND start_ms <= ? "
            "ORDER BY start_ms DESC LIMIT 1",
            (source_id, ms),
        )
        return str(row.thumbnail) if row is not None and row.thumbnail else None

    def thumbnails_of_source(self, source_id: int) -> list[str]:
        rows = self._db.rows_where(
            "scenes", "source_id = ? AND thumbnail != ''", (source_id,), select="thumbnail"
        )
        return [str(r.thumbnail) for r in rows]

    def thumbnail_names(self) -> set[str]:
        """Every thumbnail a scene of the library shows."""
        rows = self._db.rows_where("scenes", "thumbnail != ''", select="DISTINCT thumbnail")
        return {str(r.thumbnail) for r in rows}

    # --- slide links ---------------------------------------------------------------------

    def replace_slide_links(
        self, video_id: int, links: Sequence[tuple[int, int, int, int, float]]
    ) -> None:
        """A video's slide links: (start_ms, end_ms, slides source id, page, score)."""
        with self._db.transaction():
            self._db.delete_where("slide_links", "video_id = ?", (video_id,))
            self._db.insert_all(
                "slide_links",
                ("video_id", "start_ms", "end_ms", "slides_id", "page", "score"),
                ((video_id, *link) for link in links),
            )

    def slide_at(self, video_id: int, ms: int) -> SlidePage | None:
        """(slides path, page) linked to the video moment ``ms``."""
        row = self._db.row(
            "SELECT s.path, l.page FROM slide_links l JOIN sources s ON s.id = l.slides_id "
            "WHERE l.video_id = ? AND l.start_ms <= ? AND l.end_ms > ? "
            "ORDER BY l.start_ms DESC LIMIT 1",
            (video_id, ms, ms),
        )
        return None if row is None else SlidePage.from_row(row)

    def shown_at(self, slides_id: int, page: int) -> list[Showing]:
        """Where a slide page is shown: (video path, start_ms, end_ms), earliest first."""
        rows = self._db.rows(
            "SELECT s.path, l.start_ms, l.end_ms FROM slide_links l "
            "JOIN sources s ON s.id = l.video_id WHERE l.slides_id = ? AND l.page = ? "
            "ORDER BY s.path, l.start_ms",
            (slides_id, page),
        )
        return [Showing.from_row(r) for r in rows]

    def slide_links(self, video_id: int) -> list[SlideLink]:
        rows = self._db.rows_where(
            "slide_links",
            "video_id = ?",
            (video_id,),
            select="start_ms, end_ms, slides_id, page, score",
            order_by="start_ms",
        )
        return [SlideLink.from_row(r) for r in rows]
