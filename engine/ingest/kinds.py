"""File kinds by extension, shared by the dispatcher and the archive reader."""

from __future__ import annotations

from pathlib import PurePath

from engine.types import SourceKind

VIDEO_EXTENSIONS = frozenset({".mp4", ".mkv", ".webm", ".mov", ".m4v", ".avi"})
AUDIO_EXTENSIONS = frozenset({".mp3", ".m4a", ".wav", ".flac", ".ogg"})
SUBTITLE_EXTENSIONS = frozenset({".srt", ".vtt"})
SLIDE_EXTENSIONS = frozenset({".pdf", ".pptx", ".odp"})
NOTE_EXTENSIONS = frozenset({".md", ".markdown", ".txt", ".rst"})
# Documents are read as notes are (headed sections, lines: engine/ingest/documents.py); a
# standalone .html/.htm is one too when it is a saved page (engine/ingest/markup.py).
DOCUMENT_EXTENSIONS = frozenset({".docx", ".odt", ".rtf", ".epub"})
WEB_PAGE_EXTENSIONS = frozenset({".html", ".htm"})
# Photos and scans are pages read with OCR (engine/ingest/photos.py).
PHOTO_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".webp"})
ARCHIVE_EXTENSIONS = frozenset({".zip"})
NOTEBOOK_EXTENSIONS = frozenset({".ipynb"})
SOURCE_EXTENSIONS = frozenset(
    {
        ".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".java", ".c", ".h",
        ".cpp", ".hpp", ".cc", ".cxx", ".hh", ".hxx", ".go", ".rs", ".rb", ".php", ".cs",
        ".kt", ".kts", ".swift", ".scala", ".r", ".m", ".jl", ".lua", ".pl", ".hs", ".ml",
        ".ex", ".exs", ".erl", ".clj", ".dart", ".sql", ".sh", ".bash", ".zsh", ".ps1",
        ".bat", ".html", ".htm", ".css", ".scss", ".vue", ".svelte", ".json", ".yaml",
        ".yml", ".toml", ".xml", ".ini", ".cfg", ".mk", ".cmake", ".gradle", ".asm", ".s",
        ".v", ".vhd", ".f90", ".tex",
    }
)  # fmt: skip
# Files known by their whole name rather than an extension.
SOURCE_FILENAMES = frozenset({"makefile", "dockerfile", "cmakelists.txt", "rakefile", "gemfile"})

CODE_EXTENSIONS = SOURCE_EXTENSIONS | NOTEBOOK_EXTENSIONS | ARCHIVE_EXTENSIONS

# What a file picker offers, group by group, from the lists above (a notebook is code and
# notes both): the window's Add files dialog builds its filters from it.
IMPORT_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("Lectures", VIDEO_EXTENSIONS | AUDIO_EXTENSIONS | SUBTITLE_EXTENSIONS),
    ("Slides", SLIDE_EXTENSIONS),
    ("Documents", DOCUMENT_EXTENSIONS | WEB_PAGE_EXTENSIONS),
    ("Photos and scans", PHOTO_EXTENSIONS),
    ("Code", CODE_EXTENSIONS),
    ("Notes", NOTE_EXTENSIONS | NOTEBOOK_EXTENSIONS),
)


def classify(path: PurePath) -> SourceKind | None:
    """Return the kind of source a file is by its extension, or None when Coursedex skips it.

    A photo is a one-page deck read with OCR; a document is read as notes. A .html/.htm is
    code here; its parser makes a saved page a document (notes) by its content."""
    suffix = path.suffix.lower()
    if path.name.lower() in SOURCE_FILENAMES:
        return SourceKind.CODE
    if suffix in VIDEO_EXTENSIONS:
        return SourceKind.VIDEO
    if suffix in AUDIO_EXTENSIONS:
        return SourceKind.AUDIO
    if suffix in SUBTITLE_EXTENSIONS:
        return SourceKind.SUBTITLES
    if suffix in SLIDE_EXTENSIONS or suffix in PHOTO_EXTENSIONS:
        return SourceKind.SLIDES
    if suffix in DOCUMENT_EXTENSIONS:
        return SourceKind.NOTES
    if suffix in CODE_EXTENSIONS:
        return SourceKind.CODE
    if suffix in NOTE_EXTENSIONS:
        return SourceKind.NOTES
    return None
