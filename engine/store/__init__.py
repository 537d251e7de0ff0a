"""The only package that touches SQLite: schema, migrations, full-text index, transactions.

A library database holds courses, sources (one per indexed file), segments (the searchable
units) with an FTS5 external-content index over them, and each segment's embedding so the
vector index can always be rebuilt without re-running the model.

``Store`` (facade.py) is what the engine uses; behind it, one module per table group:

- schema.py      the migration scripts (the schema's history) and the step that runs them
- database.py    the connection, its lock, transactions, rows read by column name
- catalog.py     courses and sources
- segments.py    segments and their FTS5 index
- embeddings.py  segment vectors and cue (sentence) vectors
- media.py       kept transcriptions, scenes, slide links
- meta.py        the library's own keys and flags
- codec.py       how times and vectors are stored
"""

from engine.store.catalog import Course, Source
from engine.store.codec import now_iso
from engine.store.facade import Store
from engine.store.media import (
    FinishedTranscript,
    Scene,
    Showing,
    SlideLink,
    SlidePage,
    TranscriptPart,
)
from engine.store.schema import MIGRATIONS, SCHEMA_VERSION
from engine.store.segments import SegmentRow, SegmentText

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Course",
    "FinishedTranscript",
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
