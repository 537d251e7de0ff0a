"""What a course pack holds, and how its parts are written and read.

A pack is a zip (stored or deflated members only) of:

- ``manifest.json``: the format's name and version, the course, the embedder's model id and
  dimension, and the sha256 and size of every other part (what a reader checks first);
- ``course.json``: the sources (kind, title, path relative to the course, sha256, size,
  duration), each with its segments (text, heading, times, page, lines, word times) and its
  scenes, and the slide links between them;
- ``vectors.npy``: float32, one row per segment with text, in the order of ``course.json``;
- ``sentences.npy``: float16, the cue vectors of every timed segment one after another
  (each segment says how many rows are its own);
- ``thumbs/<name>.jpg``: the scenes' thumbnails;
- ``notes.json`` (optional): the notes on the course's places.

Parts are JSON and NPY, never pickle: a pack comes from another person. The version goes up
when a reader of the old one could not read a new pack right; a reader refuses a newer one.

Every value of a pack is checked as the same value typed by a user or read by a parser is
(:func:`engine.numbers.span_fault` for times, :func:`engine.notes.check_place` for a note's
place). Two outcomes, by what the value is part of:

- the course itself (its files, their segments, word times and scenes): one wrong value
  (a segment ending before it starts or after its lecture, a file at ``./././.``), or more
  files, segments or notes than :class:`PackLimits` allows, and the whole pack is refused
  in one line naming it; nothing is written. Coursedex never writes such a course, and its
  vectors follow its segments: none can be taken out alone.
- a note or a slide link, each standing alone: at a place its file does not have (a time
  after the lecture's end, page 9999 of a deck, a line past the file's last), it is left
  out and named (``Pack.left_out``, the import's summary), as ``notes add`` refuses that
  one note; the rest comes in. One that is malformed (no text, two places, no file of the
  pack) refuses the pack.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.errors import CoursedexError
from engine.types import SegmentDraft, SourceKind

FORMAT = "coursedex-pack"
VERSION = 1
SUFFIX = ".cdxpack"
MANIFEST = "manifest.json"
COURSE = "course.json"
VECTORS = "vectors.npy"
SENTENCES = "sentences.npy"
NOTES = "notes.json"
THUMBS = "thumbs/"
# A thumbnail's name in a pack and in a library: the video's sha256 prefix and the scene.
THUMBNAIL_NAME = re.compile(r"[0-9a-f]{16}-[0-9]{4}\.jpg")
SHA256 = re.compile(r"[0-9a-f]{64}")


class PackError(CoursedexError):
    """A pack cannot be imported (damaged, tampered, unsafe, too large, too new); the
    message is one line, and nothing of the pack was written."""


@dataclass(frozen=True, slots=True)
class PackProgress:
    """How far a pack's import or export is: its stage, and that stage's work done."""

    stage: str  # import: "checking", "finding files", "embedding", "writing"; export:
    # "reading" (a file a step), "writing"
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


Progress = Callable[[PackProgress], None]


@dataclass(frozen=True, slots=True)
class PackLimits:
    """Bounds on a pack from someone else: its size on disk, each part's and all of them
    uncompressed, how many parts, how far a part may expand (a zip bomb), and how many
    files, segments and notes it holds (each costs time to import: a pack of 1.2 MB held
    200,000 notes and was still importing after 300 s).

    The counts are ten times and more what a large real course holds. Such a course: 60
    hours of lectures (a year, two semesters of 30 h) at about 270 segments an hour (the
    demo's 6.5-minute lecture has 21 transcript windows and 8 of on-screen text), 60 slide
    decks of 40 pages, and code: some 25,000 segments in 200 to 300 files. Notes: one a
    minute of lecture, a keen student's pace, is 3,600."""

    max_pack_bytes: int = 2 * 1024**3
    max_part_bytes: int = 512 * 1024**2
    max_total_bytes: int = 3 * 1024**3
    max_parts: int = 200_000
    max_compression_ratio: float = 200.0
    max_sources: int = 10_000  # files: 30 times a large course's 300
    # Segments in all its files: 8 times a large course's 25,000; their vectors fill
    # vectors.npy to 300 MB at 384 numbers each, under max_part_bytes. Importing them
    # takes minutes (bench/pack_import.py), each one's vector added to the search index.
    max_segments: int = 200_000
    # Notes: ~3 times a note a minute of 60 hours. Each is embedded on import (a pack
    # carries no vector of a note), some milliseconds each (bench/pack_import.py).
    max_notes: int = 10_000


@dataclass(frozen=True, slots=True)
class PackScene:
    start_ms: int
    end_ms: int
    keyframe_ms: int
    thumbnail: str  # a part's name under thumbs/ ("" when the scene has none)


@dataclass(frozen=True, slots=True)
class PackSource:
    """One file of the course, everything but its bytes."""

    path: str  # relative to the course, with / between folders
    kind: SourceKind
    title: str
    sha256: str
    size: int
    duration_ms: int | None
    speech_model: str | None
    segments: tuple[SegmentDraft, ...]
    cues: tuple[int, ...]  # per segment, how many rows of sentences.npy are its own
    scenes: tuple[PackScene, ...] = ()
    # Its text's language (engine.languages code); None: not known, as in a pack made
    # before languages were recorded.
    language: str | None = None


@dataclass(frozen=True, slots=True)
class PackLink:
    """A slide page shown in a lecture: sources by their place in the pack."""

    video: int
    start_ms: int
    end_ms: int
    slides: int
    page: int
    score: float


@dataclass(frozen=True, slots=True)
class PackNote:
    """A note on a place of one of the pack's sources (by its place in the pack)."""

    source: int
    text: str
    at_ms: int | None = None
    page: int | None = None
    line: int | None = None
    path_in_archive: str | None = None


@dataclass(frozen=True, slots=True)
class Manifest:
    course: str
    model_id: str
    dimension: int
    version: int = VERSION
    made_by: str = ""
    created: str = ""
    parts: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (sha256, size)


@dataclass(frozen=True, slots=True)
class Pack:
    """A pack read and checked whole, ready to import: nothing of it was trusted unread."""

    manifest: Manifest
    sources: tuple[PackSource, ...]
    links: tuple[PackLink, ...]
    vectors: np.ndarray  # float32 (segments with text, dimension)
    sentences: np.ndarray  # float16 (cues, dimension)
    thumbnails: dict[str, bytes]
    notes: tuple[PackNote, ...] = ()
    # A line for each note or slide link left out, at a place its file does not have.
    left_out: tuple[str, ...] = ()
