"""Segments, the searchable units of a source, and their FTS5 full-text indexes.

The indexes (external content) follow the table through triggers, so writing a segment is
enough to make it searchable: ``segments_fts`` (FTS5's Porter) holds English and text of
no known language, ``segments_terms`` the terms engine/analysis.py reads in any other
language (schema step 10).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from engine.analysis import analysed, uses_porter
from engine.store.codec import timings_from, timings_json
from engine.store.database import Database
from engine.store.segment_rows import SegmentRow, SegmentText
from engine.types import SegmentDraft, SegmentKind

_SEGMENT_SELECT = (
    "SELECT g.id, g.source_id, g.kind, g.start_ms, g.end_ms, g.page, g.path_in_archive, "
    "g.line_start, g.line_end, g.heading, g.text, g.timings, g.words, s.path AS source_path, "
    "s.title AS source_title, c.name AS course, s.kind AS source_kind, {language} AS language "
    "FROM segments g JOIN sources s ON s.id = g.source_id JOIN courses c ON c.id = s.course_id "
)
_SEGMENT_COLUMNS = (
    "source_id",
    "ord",
    "kind",
    "start_ms",
    "end_ms",
    "page",
    "path_in_archive",
    "line_start",
    "line_end",
    "heading",
    "text",
    "extra",
    "timings",
    "needs_ocr",
    "words",
)
_TERMS_COLUMNS = ("text_terms", "heading_terms", "extra_terms")
_TEXT_SELECT = (
    "SELECT g.id, g.heading, g.text, s.title FROM segments g JOIN sources s ON s.id = g.source_id "
)


class Segments:
    """The ``segments`` table and its full-text index."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # A read-only library a step behind (schema 3-7) has no sources.language yet.
        columns = {row.name for row in db.rows("PRAGMA table_info(sources)")}
        language = "s.language" if "language" in columns else "NULL"
        self._select = _SEGMENT_SELECT.format(language=language)
        # ... nor segments_terms (schema 10): everything there is in segments_fts.
        self._has_terms = (
            db.row("SELECT 1 AS x FROM sqlite_master WHERE name = 'segments_terms'") is not None
        )

    # --- writing (inside a transaction) --------------------------------------------------

    def insert(
        self,
        source_id: int,
        first_ord: int,
        drafts: Sequence[SegmentDraft],
        language: str | None = None,
    ) -> list[int]:
        """Store ``drafts`` as a source's segments from ``first_ord`` on; their ids in order.
        ``language``: the text's (None: not known), which decides how it is indexed.

        The source must have no segment from ``first_ord`` on (call inside a transaction
        after deleting them, or from :meth:`next_ord`)."""
        # Analysed before the lock is taken: it is the slow part.
        terms = [_terms(seg, language) for seg in drafts]
        rows = (
            (
                source_id,
                ord_,
                seg.kind.value,
                seg.start_ms,
                seg.end_ms,
                seg.page,
                seg.path_in_archive,
                seg.line_start,
                seg.line_end,
                seg.heading,
                seg.text,
                seg.extra,
                timings_json(seg.timings),
                int(seg.needs_ocr),
                timings_json(seg.words),
                *analysis,
            )
            for (ord_, seg), analysis in zip(enumerate(drafts, start=first_ord), terms, strict=True)
        )
        with self._db.lock:
            self._db.insert_all("segments", _SEGMENT_COLUMNS + _TERMS_COLUMNS, rows)
            found = self._db.rows_where(
                "segments",
                "source_id = ? AND ord >= ?",
                (source_id, first_ord),
                select="id",
                order_by="ord",
            )
        return [int(r.id) for r in found]

    def language_of(self, source_id: int) -> str | None:
        """The language a source's text is indexed in (None: not known)."""
        row = self._db.row("SELECT language FROM sources WHERE id = ?", (source_id,))
        return None if row is None else row.language

    def next_ord(self, source_id: int) -> int:
        """The position after a source's last segment (0 for none). A user's notes on the
        file sit below 0 (engine/store/notes.py) and are not counted."""
        return int(
            self._db.value(
                "SELECT coalesce(max(ord) + 1, 0) FROM segments WHERE source_id = ? AND ord >= 0",
                (source_id,),
            )
        )

    def delete_of_source(self, source_id: int) -> None:
        self._db.delete_where("segments", "source_id = ?", (source_id,))

    # --- reading -------------------------------------------------------------------------

    def ids_of_source(self, source_id: int) -> list[int]:
        rows = self._db.rows_where("segments", "source_id = ?", (source_id,), select="id")
        return [r.id for r in rows]

    def by_ids(self, ids: Sequence[int]) -> dict[int, SegmentRow]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db.rows(self._select + f"WHERE g.id IN ({marks})", ids)
        return {r.id: SegmentRow.from_row(r) for r in rows}

    def of_source(self, source_id: int) -> list[SegmentRow]:
        rows = self._db.rows(self._select + "WHERE g.source_id = ? ORDER BY g.ord", (source_id,))
        return [SegmentRow.from_row(r) for r in rows]

    def drafts_of_source(self, source_id: int) -> list[tuple[int, SegmentDraft]]:
        """A source's segments as they were written, with their ids, in order: what a course
        pack carries, so that importing it writes the same rows (``extra`` included)."""
        rows = self._db.rows(
            "SELECT id, " + ", ".join(_SEGMENT_COLUMNS[2:]) + " FROM segments "
            "WHERE source_id = ? ORDER BY ord",
            (source_id,),
        )
        return [
            (
                int(r.id),
                SegmentDraft(
                    kind=SegmentKind(r.kind),
                    text=r.text,
                    heading=r.heading,
                    start_ms=r.start_ms,
                    end_ms=r.end_ms,
                    page=r.page,
                    path_in_archive=r.path_in_archive,
                    line_start=r.line_start,
                    line_end=r.line_end,
                    extra=r.extra,
                    timings=timings_from(r.timings),
                    needs_ocr=bool(r.needs_ocr),
                    words=timings_from(r.words),
                ),
            )
            for r in rows
        ]

    def any_timed_without_cues(self) -> bool:
        """Whether a segment with cues lacks its cue vectors (what :meth:`timed` with
        ``missing_only`` would list)."""
        return bool(
            self._db.rows(
                "SELECT 1 FROM segments WHERE timings IS NOT NULL"
                " AND id NOT IN (SELECT segment_id FROM sentence_vectors) LIMIT 1"
            )
        )

    def timed(self, *, missing_only: bool, batch: int = 256) -> Iterator[list[SegmentRow]]:
        """Segments with cues, in batches; ``missing_only``: those without cue vectors (a
        library from before they existed, or one whose vectors were cleared)."""
        missing = " AND id NOT IN (SELECT segment_id FROM sentence_vectors)" if missing_only else ""
        rows = self._db.rows(
            f"SELECT id FROM segments WHERE timings IS NOT NULL{missing} ORDER BY id"
        )
        ids = [r.id for r in rows]
        for start in range(0, len(ids), batch):
            found = self.by_ids(ids[start : start + batch])
            yield [found[i] for i in ids[start : start + batch] if i in found]

    def neighbours(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """The text of the segments of the same kind just before and after each given one
        in its file ("" at either end)."""
        marks = ",".join("?" * len(ids))
        rows = self._db.rows(
            "SELECT g.id, coalesce(p.text, '') AS before, coalesce(n.text, '') AS after "
            "FROM segments g "
            "LEFT JOIN segments p ON p.source_id = g.source_id AND p.ord = g.ord - 1 "
            "AND p.kind = g.kind "
            "LEFT JOIN segments n ON n.source_id = g.source_id AND n.ord = g.ord + 1 "
            f"AND n.kind = g.kind WHERE g.id IN ({marks})",
            ids,
        )
        return {int(r.id): (r.before, r.after) for r in rows}

    def texts(self, ids: Sequence[int]) -> list[SegmentText]:
        """(id, heading, text, source title) of the given segments."""
        rows = self._db.ids_in(_TEXT_SELECT + "WHERE g.id IN ({marks})", ids)
        return [SegmentText.from_row(r) for r in rows]

    def iter_texts(self, batch: int = 512) -> Iterator[list[SegmentText]]:
        """(id, heading, text, source title) of every segment with text, in batches."""
        last = 0
        while True:
            rows = self._db.rows(
                _TEXT_SELECT + "WHERE g.id > ? AND g.text != '' ORDER BY g.id LIMIT ?",
                (last, batch),
            )
            if not rows:
                return
            last = rows[-1].id
            yield [SegmentText.from_row(r) for r in rows]

    def ids_with_text(self) -> set[int]:
        """Segments that should have a vector: all that have text."""
        return {r.id for r in self._db.rows("SELECT id FROM segments WHERE text != ''")}

    def count(self) -> int:
        return int(self._db.value("SELECT count(*) FROM segments"))

    # --- full text -----------------------------------------------------------------------

    def fulltext(
        self,
        match: str | None,
        limit: int,
        *,
        kinds: Sequence[str] = (),
        course_id: int | None = None,
        terms_match: str | None = None,
    ) -> list[tuple[int, float]]:
        """bm25-ranked (segment id, score), higher is better, for an FTS5 MATCH expression
        on the Porter index (``match``) and one on the analysed terms (``terms_match``). A
        library in one language uses one index; in several, the two lists merge by score
        (each bm25 weighs terms within its own index)."""
        hits = [] if match is None else self._match("segments_fts", match, limit, kinds, course_id)
        if terms_match is not None and self._has_terms:
            hits += self._match("segments_terms", terms_match, limit, kinds, course_id)
            hits.sort(key=lambda hit: (-hit[1], hit[0]))
        return hits[:limit]

    def _match(
        self, table: str, match: str, limit: int, kinds: Sequence[str], course_id: int | None
    ) -> list[tuple[int, float]]:
        # The table's rank is bm25 with column weights body 1.0, heading 0.5 (lower, per
        # DESIGN), split identifiers 0.6; ORDER BY rank lets FTS5 use its top-k path.
        where, args = _filters(kinds, course_id)
        join = "JOIN segments g ON g.id = f.rowid JOIN sources s ON s.id = g.source_id "
        sql = (
            f"SELECT f.rowid AS id, f.rank FROM {table} f "
            + (join if where else "")
            + f"WHERE {table} MATCH ? "
            + where
            + " ORDER BY f.rank LIMIT ?"
        )
        rows = self._db.rows(sql, (match, *args, limit))
        return [(int(r.id), -float(r.rank)) for r in rows]

    def unanalysed(self) -> list[tuple[int, str]]:
        """Sources in a language FTS5's Porter does not read whose segments are still in
        its index (written before step 10 by a program that knew their language, or a
        user's note written since): (source id, language)."""
        if not self._has_terms:
            return []
        rows = self._db.rows(
            "SELECT s.id, s.language FROM sources s WHERE s.language IS NOT NULL "
            "AND s.language != 'en' AND EXISTS (SELECT 1 FROM segments g "
            "WHERE g.source_id = s.id AND g.text_terms IS NULL)"
        )
        return [(int(r.id), str(r.language)) for r in rows if not uses_porter(r.language)]

    def analyse(self, source_id: int, language: str) -> int:
        """Index a source's segments in ``language`` (inside a transaction); how many moved.
        The update triggers move each row from the Porter index to the analysed one."""
        rows = self._db.rows(
            "SELECT id, text, heading, extra FROM segments "
            "WHERE source_id = ? AND text_terms IS NULL",
            (source_id,),
        )
        updates = [
            (*(analysed(part, language) for part in (r.text, r.heading, r.extra)), r.id)
            for r in rows
        ]
        self._db.executemany(
            "UPDATE segments SET text_terms = ?, heading_terms = ?, extra_terms = ? WHERE id = ?",
            updates,
        )
        return len(updates)

    def analysed_languages(self) -> list[str]:
        """The languages of the library's text that is analysed in Python (not English)."""
        if not self._has_terms:
            return []
        rows = self._db.rows(
            "SELECT DISTINCT language FROM sources WHERE language IS NOT NULL ORDER BY language"
        )
        return [r.language for r in rows if not uses_porter(r.language)]

    def allowed_ids(self, kinds: Sequence[str], course_id: int | None) -> set[int]:
        where, args = _filters(kinds, course_id)
        rows = self._db.rows(
            "SELECT g.id FROM segments g JOIN sources s ON s.id = g.source_id WHERE 1 " + where,
            args,
        )
        return {r.id for r in rows}

    def document_frequency(self, terms: Iterable[str], *, analysed: bool = False) -> dict[str, int]:
        """How many segments contain each (already stemmed) term: in the Porter index, or
        with ``analysed`` in the index of analysed terms."""
        vocab = "segments_terms_vocab" if analysed else "segments_vocab"
        out: dict[str, int] = {}
        if analysed and not self._has_terms:
            return dict.fromkeys(terms, 0)
        with self._db.lock:
            for term in set(terms):
                found = self._db.row(f"SELECT doc FROM {vocab} WHERE term = ?", (term,))
                out[term] = 0 if found is None else int(found.doc)
        return out


def _terms(seg: SegmentDraft, language: str | None) -> tuple[str | None, ...]:
    """A draft's analysed text, heading and extra (NULLs: FTS5's Porter reads it)."""
    if language is None or uses_porter(language):
        return None, None, None
    return tuple(analysed(part, language) for part in (seg.text, seg.heading, seg.extra))


def _filters(kinds: Sequence[str], course_id: int | None) -> tuple[str, list[object]]:
    where, args = "", []
    if kinds:
        where += f" AND g.kind IN ({','.join('?' * len(kinds))})"
        args.extend(kinds)
    if course_id is not None:
        where += " AND s.course_id = ?"
        args.append(course_id)
    return where, args
