"""The engine's public API: everything the desktop app and the CLI may use.

``app/`` imports the engine only from here (tests/engine/test_public_api.py fails otherwise),
so the modules behind these names can be split and moved without touching the window. Tests,
benchmarks and tools may still reach the internals. The CLI is built on this module, so it is
not exported here: app/launcher.py, the one entry point of both, imports ``engine.cli`` itself.
"""

from __future__ import annotations

from engine import __version__
from engine.analysis import shown_words
from engine.changes import NOTHING, Changes
from engine.children import end_children
from engine.config import AUTO_SPEECH_MODEL, EngineConfig, IngestLimits, MediaConfig, SearchConfig
from engine.demo import DEMO_COURSE, DEMO_DIR, demo_files, demo_queries
from engine.errors import (
    Cancelled,
    CoursedexError,
    DownloadError,
    LibraryBusyError,
    LibraryDamagedError,
    LibraryError,
    ModelError,
    ModelMismatchError,
    NotFoundError,
    OutputExistsError,
    UnreadableFileError,
    WorkerCrashed,
)
from engine.formatting import (
    KIND_NAMES,
    copies_line,
    kind_named,
    location,
    outcome_counts,
    progress_line,
    shown_title,
    stage_text,
    time_left,
)
from engine.importing.hearing import ENGLISH_SPEECH_MODEL, MULTILINGUAL_SPEECH_MODEL
from engine.importing.places import (
    left_out,
    member_place,
    not_imported_line,
    shown_name,
    shown_path,
)
from engine.importing.progress import (
    FileResult,
    IngestProgress,
    IngestReport,
    Outcome,
    RemovedAfter,
    Stage,
)
from engine.ingest.kinds import DOCUMENT_EXTENSIONS, IMPORT_GROUPS, PHOTO_EXTENSIONS
from engine.integrations.anki import DeckWritten, write_deck
from engine.integrations.documents import Chapter, SlidePage
from engine.integrations.flashcards import Card, course_cards
from engine.integrations.handout import Handout, build_handout, find_lecture
from engine.integrations.handout_render import HANDOUT_FORMATS, write_handout
from engine.integrations.links import (
    Link,
    LinkError,
    describe_link,
    link_of,
    make_link,
    note_link,
    parse_link,
    quote_with_time,
    resolve_link,
    result_link,
)
from engine.integrations.transcript_export import (
    TRANSCRIPT_FORMATS,
    note_times,
    transcript_srt,
    transcript_text,
    write_transcript,
)
from engine.integrations.url_import import (
    WEB_COURSE,
    Fetched,
    FetchProgress,
    UrlImportError,
    fetch_url,
    import_url,
    is_url,
    media_folder,
    origin_at,
    remove_fetched,
    result_origin,
)
from engine.integrations.watch import FolderWatcher, WatchReport, followed
from engine.languages import LANGUAGES, language_name, parse_language
from engine.library import Library
from engine.library.outcomes import AddedNote, LanguageSet, Removal
from engine.library.recovery import SetAside, start_over
from engine.models import Embedder
from engine.models.catalog import (
    DEFAULT_EMBEDDER,
    KNOWN_MODELS,
    MULTILINGUAL_EMBEDDER,
    ModelSpec,
)
from engine.models.manifest import ModelManifest, ModelRole
from engine.models.registry import ModelInfo, ModelRegistry
from engine.notes import Note, NoteError, Place, note_json, place_text
from engine.numbers import MAX_THREADS, NumberError, seconds_ms, whole
from engine.outputs import check_output
from engine.packs import (
    ExportSummary,
    ImportSummary,
    PackError,
    PackFile,
    PackProgress,
    export_pack,
    import_pack,
)
from engine.packs.locate import Located, locate_file
from engine.paths import default_library, default_models, default_models_dir
from engine.pdfium_lock import PDFIUM_LOCK
from engine.plain_text import (
    capital,
    clock,
    human_size,
    masked,
    plural,
    printable,
    valid_text,
)
from engine.search import SearchFilters, SearchOutcome, SearchResult
from engine.search.results import (
    AtLines,
    AtMoment,
    OnPage,
    ResultPlace,
    ShownAt,
    SlideOnScreen,
    WholeFile,
    moment_ms,
    place_of,
)
from engine.store import Course, FileMark, LibraryMarks, Source
from engine.types import LibraryStats, SegmentKind, SourceKind, SourceStatus, Timing
from engine.words import fold, query_terms

__all__ = [
    "AUTO_SPEECH_MODEL",
    "DEFAULT_EMBEDDER",
    "DEMO_COURSE",
    "DEMO_DIR",
    "DOCUMENT_EXTENSIONS",
    "ENGLISH_SPEECH_MODEL",
    "HANDOUT_FORMATS",
    "IMPORT_GROUPS",
    "KIND_NAMES",
    "KNOWN_MODELS",
    "LANGUAGES",
    "MAX_THREADS",
    "MULTILINGUAL_EMBEDDER",
    "MULTILINGUAL_SPEECH_MODEL",
    "NOTHING",
    "PDFIUM_LOCK",
    "PHOTO_EXTENSIONS",
    "TRANSCRIPT_FORMATS",
    "WEB_COURSE",
    "AddedNote",
    "AtLines",
    "AtMoment",
    "Cancelled",
    "Card",
    "Changes",
    "Chapter",
    "Course",
    "CoursedexError",
    "DeckWritten",
    "DownloadError",
    "Embedder",
    "EngineConfig",
    "ExportSummary",
    "FetchProgress",
    "Fetched",
    "FileMark",
    "FileResult",
    "FolderWatcher",
    "Handout",
    "ImportSummary",
    "IngestLimits",
    "IngestProgress",
    "IngestReport",
    "LanguageSet",
    "Library",
    "LibraryBusyError",
    "LibraryDamagedError",
    "LibraryError",
    "LibraryMarks",
    "LibraryStats",
    "Link",
    "LinkError",
    "Located",
    "MediaConfig",
    "ModelError",
    "ModelInfo",
    "ModelManifest",
    "ModelMismatchError",
    "ModelRegistry",
    "ModelRole",
    "ModelSpec",
    "NotFoundError",
    "Note",
    "NoteError",
    "NumberError",
    "OnPage",
    "Outcome",
    "OutputExistsError",
    "PackError",
    "PackFile",
    "PackProgress",
    "Place",
    "Removal",
    "RemovedAfter",
    "ResultPlace",
    "SearchConfig",
    "SearchFilters",
    "SearchOutcome",
    "SearchResult",
    "SegmentKind",
    "SetAside",
    "ShownAt",
    "SlideOnScreen",
    "SlidePage",
    "Source",
    "SourceKind",
    "SourceStatus",
    "Stage",
    "Timing",
    "UnreadableFileError",
    "UrlImportError",
    "WatchReport",
    "WholeFile",
    "WorkerCrashed",
    "__version__",
    "build_handout",
    "capital",
    "check_output",
    "clock",
    "copies_line",
    "course_cards",
    "default_library",
    "default_models",
    "default_models_dir",
    "demo_files",
    "demo_queries",
    "describe_link",
    "end_children",
    "export_pack",
    "fetch_url",
    "find_lecture",
    "fold",
    "followed",
    "human_size",
    "import_pack",
    "import_url",
    "is_url",
    "kind_named",
    "language_name",
    "left_out",
    "link_of",
    "locate_file",
    "location",
    "make_link",
    "masked",
    "media_folder",
    "member_place",
    "moment_ms",
    "not_imported_line",
    "note_json",
    "note_link",
    "note_times",
    "origin_at",
    "outcome_counts",
    "parse_language",
    "parse_link",
    "place_of",
    "place_text",
    "plural",
    "printable",
    "progress_line",
    "query_terms",
    "quote_with_time",
    "remove_fetched",
    "resolve_link",
    "result_link",
    "result_origin",
    "seconds_ms",
    "shown_name",
    "shown_path",
    "shown_title",
    "shown_words",
    "stage_text",
    "start_over",
    "time_left",
    "transcript_srt",
    "transcript_text",
    "valid_text",
    "whole",
    "write_deck",
    "write_handout",
    "write_transcript",
]
