"""The only package that touches SQLite: schema, migrations, full-text index, transactions.

A library database holds courses, sources (one per indexed file), segments (the searchable
units) with an FTS5 external-content index over them, and each segment's embedding so the
vector index can always be rebuilt without re-running the model.

``Store`` (facade.py) is what the engine uses. Its table groups are public attributes
(``store.catalog.course_id(name)``, ``store.segments.by_ids(ids)``, ``store.embeddings``,
``store.recordings``, ``store.meta``), so each transaction is taken where it can be seen;
it does itself only what spans several groups. One module per table group:

- migrations.py  the migration scripts: the schema's history, one script per version
- schema.py      the step that runs them
- database.py    the connection, its lock, transactions, rows read by column name
- courses.py     courses and sources (the catalog)
- segments.py    segments and their FTS5 index
- embeddings.py  segment vectors and cue (sentence) vectors
- recordings.py  what a video or audio file adds: kept transcriptions, scenes, slide links
- notes.py       a user's notes at places in files, kept by content across re-imports
- meta.py        the library's own keys and flags
- codec.py       how times and vectors are stored
- salvage.py     a damaged database read as far as SQLite can, read-only, to start it over

sqlite-utils is the data layer: its ``Database`` wraps our connection (recursive triggers
on, write-ahead logging), its ``atomic()`` is every transaction (nested ones are
savepoints), bulk writes go through ``insert_all`` (segments, vectors, cue vectors, scenes,
slide links; ``replace=True`` for a row stored again), deletes through ``delete_where``,
and one table's simple reads through ``rows_where``. Hand-written SQL remains where it
does not fit:

- the migration scripts: they are the schema's history, byte for byte what created every
  existing library; sqlite-utils' ``create_table``/``enable_fts`` would write other SQL
  (quoted names, its own triggers) and has no FTS5 ``rank`` setting or ``fts5vocab`` table;
- the ranked, filtered full-text query (bm25 ``rank`` with column weights, joined to
  sources for the kind and course filters; ``table.search`` quotes the query and has
  neither) and the vocabulary's document frequencies;
- what search reads for every query or result: segments by id, neighbours, stored and
  cue vectors, the thumbnail and slide at a moment, a course's id. ``rows_where`` gives a
  dict per row after asking whether the table exists (about 10x slower for a one-row
  lookup, 8 vs 80 microseconds); these read named tuples (``Database.rows``) instead;
- queries over several tables (the catalog's source rows with their counts, statistics),
  updates of some columns (a source's status, a course's name, an upsert that keeps
  ``added_at``), and a transcription part whose place is computed in the same statement.
"""

from engine.store.codec import now_iso
from engine.store.courses import Course, FileMark, LibraryMarks, Source
from engine.store.facade import Store
from engine.store.notes import NoteRow
from engine.store.recordings import (
    FinishedTranscript,
    Scene,
    Showing,
    SlideLink,
    SlidePage,
    TranscriptPart,
)
from engine.store.schema import MIGRATIONS, SCHEMA_VERSION
from engine.store.segment_rows import SegmentRow, SegmentText

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Course",
    "FileMark",
    "FinishedTranscript",
    "LibraryMarks",
    "NoteRow",
    "Scene",
    "SegmentRow",
    "SegmentText",
    "Showing",
    "SlideLink",
    "SlidePage",
    "Source",
    "Store",
    "TranscriptPart",
    "now_iso",
]
