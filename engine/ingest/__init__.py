"""File parsers: one file in, one :class:`~engine.types.ParsedSource` out.

Pure functions, no database and no models. Every failure a user should see is an
:class:`~engine.errors.UnreadableFileError` with a one-line reason.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from engine.config import EngineConfig
from engine.errors import CoursedexError, UnreadableFileError
from engine.ingest.archive import parse_archive, parse_code_file
from engine.ingest.chunking import chunk_transcript
from engine.ingest.documents import parse_document
from engine.ingest.kinds import (
    ARCHIVE_EXTENSIONS,
    AUDIO_EXTENSIONS,
    DOCUMENT_EXTENSIONS,
    PHOTO_EXTENSIONS,
    SUBTITLE_EXTENSIONS,
    VIDEO_EXTENSIONS,
    WEB_PAGE_EXTENSIONS,
    classify,
)
from engine.ingest.markup import is_saved_page
from engine.ingest.notes import parse_notes
from engine.ingest.opendoc import parse_odp
from engine.ingest.photos import parse_photo
from engine.ingest.slides import parse_pdf, parse_pptx
from engine.ingest.subtitles import duration_of, read_subtitles
from engine.ingest.text import check_file
from engine.languages import parse_language
from engine.types import ParsedSource, SourceKind

__all__ = [
    "MAX_SEGMENTS",
    "MEDIA_EXTENSIONS",
    "NO_SPEECH_RECOGNITION",
    "classify",
    "find_sidecar",
    "parse_file",
    "parse_subtitle_file",
]

log = logging.getLogger(__name__)

NO_SPEECH_RECOGNITION = "no subtitles beside it and speech recognition is not available yet"
# Sidecar preference for "lecture.mp4": lecture.srt, lecture.vtt, then lecture.<lang>.srt
# with English first (lecture.en.srt, lecture.en-US.vtt), then any other language.
_ENGLISH_TAGS = ("en", "eng", "english")
_LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,4})?$")
MEDIA_EXTENSIONS = VIDEO_EXTENSIONS | AUDIO_EXTENSIONS
# Each segment is embedded: 2 MB of one-line functions or a notebook of 100,000 cells would
# keep an import busy for an hour. The bound of subtitle cues (IngestLimits) holds here too.
MAX_SEGMENTS = 50_000


def find_sidecar(media: Path) -> Path | None:
    """The subtitle file that belongs to a video/audio file, or None.

    Same folder, same stem, extension .srt or .vtt (any case), optionally with a language
    tag between (``lecture.en.srt``).
    """
    try:
        siblings = [p for p in media.parent.iterdir() if p.is_file()]
    except OSError:
        return None
    candidates: list[tuple[int, str, Path]] = []
    for sibling in siblings:
        suffix = sibling.suffix.lower()
        if suffix not in SUBTITLE_EXTENSIONS:
            continue
        stem = sibling.name[: -len(suffix)]
        if stem == media.stem:
            rank = 0 if suffix == ".srt" else 1
        elif stem.startswith(media.stem + ".") and "." not in stem[len(media.stem) + 1 :]:
            tag = stem[len(media.stem) + 1 :].lower()
            rank = 2 if tag.split("-")[0].split("_")[0] in _ENGLISH_TAGS else 3
        else:
            continue
        candidates.append((rank, sibling.name, sibling))
    return min(candidates)[2] if candidates else None


def parse_subtitle_file(path: Path, config: EngineConfig, kind: SourceKind) -> ParsedSource:
    """Subtitles -> transcript windows; ``kind`` is SUBTITLES, or VIDEO/AUDIO for a sidecar.

    Raises:
        UnreadableFileError: empty, binary, too large, or no readable cue.
    """
    limits = config.limits
    cues, warnings = read_subtitles(path, limits.max_text_file_bytes, limits.max_subtitle_cues)
    segments = chunk_transcript(cues, config.chunking)
    title = path.stem
    language = None
    base, _, tag = title.rpartition(".")
    if base and _LANGUAGE_TAG.match(tag):
        title = base  # "lecture.en.srt" is titled "lecture"
        language = _tag_language(tag)
    return ParsedSource(
        kind=kind,
        title=title,
        segments=tuple(segments),
        duration_ms=duration_of(cues),
        warnings=tuple(warnings),
        language=language,
    )


def _tag_language(tag: str) -> str | None:
    """The language a subtitle file's name gives (``lecture.es.srt``, ``lecture.pt-BR.vtt``);
    None for a tag that names none (``lecture.v2.srt``): its text tells then."""
    try:
        return parse_language(tag)
    except CoursedexError:
        return None


def parse_file(path: Path, config: EngineConfig) -> ParsedSource:
    """Parse one file by its kind (see :func:`classify`).

    Video and audio are read through their sidecar subtitles (:func:`find_sidecar`); the
    result's kind stays VIDEO/AUDIO and its title is the media file's stem.

    Raises:
        UnreadableFileError: unsupported, empty, too large, corrupt, unsafe, (media)
            without subtitles, or more than ``MAX_SEGMENTS`` segments.
    """
    parsed = _parse_by_kind(path, config)
    if len(parsed.segments) > MAX_SEGMENTS:
        raise UnreadableFileError(
            f"{len(parsed.segments):,} pieces of text: more than {MAX_SEGMENTS:,}, "
            "too many to index from one file"
        )
    return parsed


def _parse_by_kind(path: Path, config: EngineConfig) -> ParsedSource:
    kind = classify(path)
    if kind is None and path.suffix.lower() == ".cdxpack":  # engine.packs.SUFFIX (above us)
        raise UnreadableFileError(
            "a course pack: import it with File > Import course pack… "
            "(`coursedex pack import FILE`), not as a file of a course"
        )
    if kind is None:
        raise UnreadableFileError(f"unsupported file type: {path.suffix or path.name}")
    suffix = path.suffix.lower()
    if kind in (SourceKind.VIDEO, SourceKind.AUDIO):
        check_file(path, config.limits.max_file_bytes)
        sidecar = find_sidecar(path)
        if sidecar is None:
            raise UnreadableFileError(NO_SPEECH_RECOGNITION)
        try:
            parsed = parse_subtitle_file(sidecar, config, kind)
        except UnreadableFileError as e:
            raise UnreadableFileError(f"subtitles {sidecar.name}: {e}") from e
        return ParsedSource(
            kind=kind,
            title=path.stem,
            segments=parsed.segments,
            duration_ms=parsed.duration_ms,
            warnings=parsed.warnings,
            language=parsed.language,
        )
    if kind is SourceKind.SUBTITLES:
        return parse_subtitle_file(path, config, kind)
    if kind is SourceKind.SLIDES:
        return _parse_pages(path, config)
    if suffix in DOCUMENT_EXTENSIONS or (
        suffix in WEB_PAGE_EXTENSIONS and is_saved_page(path, config.limits)
    ):
        return parse_document(path, config)
    if kind is SourceKind.NOTES:
        return parse_notes(path, config)
    if suffix in ARCHIVE_EXTENSIONS:
        return parse_archive(path, config)
    return parse_code_file(path, config)


def _parse_pages(path: Path, config: EngineConfig) -> ParsedSource:
    """A deck (.pdf, .pptx, .odp) or a photo: one page per page, slide or picture."""
    suffix = path.suffix.lower()
    if suffix in PHOTO_EXTENSIONS:
        return parse_photo(path, config.limits)
    if suffix == ".odp":
        return parse_odp(path, config.limits)
    if suffix == ".pdf":
        return parse_pdf(path, config.limits)
    return parse_pptx(path, config.limits)
