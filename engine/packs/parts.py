"""A pack's JSON parts written from, and read back into, the engine's values.

Reading trusts nothing: every field is checked for its type and range, and any surprise is
a :class:`PackError` naming where it is (``course.json: source 3, segment 12: start_ms``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from engine.ingest.safezip import member_escapes
from engine.languages import LANGUAGES
from engine.numbers import RECORDING_SLACK_MS, span_fault
from engine.packs.format import (
    FORMAT,
    SHA256,
    THUMBNAIL_NAME,
    VERSION,
    Manifest,
    PackError,
    PackLimits,
    PackLink,
    PackNote,
    PackScene,
    PackSource,
)
from engine.plain_text import printable
from engine.types import SegmentDraft, SegmentKind, SourceKind, Timing

_MAX_INT = 2**53  # what JSON readers agree on
_MAX_TEXT = 16 * 1024**2


def dumps(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# --- writing ------------------------------------------------------------------------------


def _timings(timings: Sequence[Timing]) -> list[list[object]]:
    return [[t.start_ms, t.end_ms, t.text] for t in timings]


def segment_json(seg: SegmentDraft, cues: int) -> dict[str, object]:
    """A segment as ``course.json`` holds it: what is unset is left out."""
    out: dict[str, object] = {"kind": seg.kind.value, "text": seg.text}
    optional: dict[str, object] = {
        "heading": seg.heading,
        "start_ms": seg.start_ms,
        "end_ms": seg.end_ms,
        "page": seg.page,
        "path_in_archive": seg.path_in_archive,
        "line_start": seg.line_start,
        "line_end": seg.line_end,
        "extra": seg.extra,
        "timings": _timings(seg.timings),
        "words": _timings(seg.words),
        "needs_ocr": seg.needs_ocr,
        "cues": cues,
    }
    out.update({k: v for k, v in optional.items() if v not in (None, "", [], False, 0)})
    return out


def source_json(source: PackSource) -> dict[str, object]:
    return {
        "path": source.path,
        "kind": source.kind.value,
        "title": source.title,
        "sha256": source.sha256,
        "size": source.size,
        "duration_ms": source.duration_ms,
        "speech_model": source.speech_model,
        "language": source.language,
        "segments": [segment_json(s, n) for s, n in zip(source.segments, source.cues, strict=True)],
        "scenes": [[s.start_ms, s.end_ms, s.keyframe_ms, s.thumbnail] for s in source.scenes],
    }


def course_json(sources: Sequence[PackSource], links: Sequence[PackLink]) -> bytes:
    return dumps(
        {
            "sources": [source_json(s) for s in sources],
            "slide_links": [
                [k.video, k.start_ms, k.end_ms, k.slides, k.page, k.score] for k in links
            ],
        }
    )


def notes_json(notes: Sequence[PackNote]) -> bytes:
    return dumps(
        [
            {
                k: v
                for k, v in {
                    "source": n.source,
                    "text": n.text,
                    "at_ms": n.at_ms,
                    "page": n.page,
                    "line": n.line,
                    "path_in_archive": n.path_in_archive,
                }.items()
                if v is not None
            }
            for n in notes
        ]
    )


def manifest_json(manifest: Manifest) -> bytes:
    return dumps(
        {
            "format": FORMAT,
            "version": manifest.version,
            "course": manifest.course,
            "model_id": manifest.model_id,
            "dimension": manifest.dimension,
            "made_by": manifest.made_by,
            "created": manifest.created,
            "parts": {
                name: {"sha256": sha, "size": size}
                for name, (sha, size) in sorted(manifest.parts.items())
            },
        }
    )


# --- reading ------------------------------------------------------------------------------


class Fields:
    """Typed reads of one JSON object; a wrong field names its place in the pack."""

    def __init__(self, value: object, where: str) -> None:
        if not isinstance(value, dict):
            raise PackError(f"{where}: not an object")
        self.d: dict[str, Any] = value
        self.where = where

    def bad(self, key: str, what: str) -> PackError:
        return PackError(f"{self.where}: {key} is {what}")

    def int(self, key: str, *, optional: bool = False, low: int = 0) -> Any:
        value = self.d.get(key)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= _MAX_INT:
            raise self.bad(key, f"not a whole number from {low}")
        return value

    def text(self, key: str, *, optional: bool = False, default: str | None = None) -> Any:
        value = self.d.get(key, default)
        if value is None and optional:
            return None
        if not isinstance(value, str) or len(value) > _MAX_TEXT:
            raise self.bad(key, "not a text")
        if "\x00" in value:
            raise self.bad(key, "a text with a NUL character")
        return value

    def list(self, key: str) -> list[Any]:
        value = self.d.get(key, [])
        if not isinstance(value, list):
            raise self.bad(key, "not a list")
        return value


class _Recording:
    """A file's length as a pack gives it, against which each of its times is checked as
    the engine checks its own (:func:`engine.numbers.span_fault`, a second of slack)."""

    def __init__(self, path: str, duration_ms: int | None) -> None:
        self.name = path.rsplit("/", 1)[-1]
        self.length = duration_ms or None  # 0: not known

    def check(self, start_ms: int | None, end_ms: int | None, where: str) -> None:
        start = start_ms if start_ms is not None else end_ms
        if start is None:
            return
        end = end_ms if end_ms is not None else start
        fault = span_fault(start, end, self.length, self.name, slack_ms=RECORDING_SLACK_MS)
        if fault is not None:
            raise PackError(f"{where}: {fault}")


def _timings_from(raw: list[Any], where: str, recording: _Recording) -> tuple[Timing, ...]:
    out: list[Timing] = []
    for item in raw:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in item[:2])
            or not isinstance(item[2], str)
            or not 0 <= item[0] <= _MAX_INT
            or not 0 <= item[1] <= _MAX_INT
        ):
            raise PackError(f"{where}: a time is not [start_ms, end_ms, text]")
        recording.check(item[0], item[1], where)
        out.append(Timing(item[0], item[1], item[2]))
    return tuple(out)


def _segment(raw: object, where: str, recording: _Recording) -> tuple[SegmentDraft, int]:
    f = Fields(raw, where)
    try:
        kind = SegmentKind(f.text("kind"))
    except ValueError:
        raise f.bad("kind", "not a kind Coursedex knows") from None
    member = f.text("path_in_archive", optional=True)
    if member is not None and member_escapes(member):
        raise f.bad("path_in_archive", f"a path out of its archive: {printable(member)[:100]}")
    seg = SegmentDraft(
        kind=kind,
        text=f.text("text"),
        heading=f.text("heading", default=""),
        start_ms=f.int("start_ms", optional=True),
        end_ms=f.int("end_ms", optional=True),
        page=f.int("page", optional=True, low=1),
        path_in_archive=member,
        line_start=f.int("line_start", optional=True, low=1),
        line_end=f.int("line_end", optional=True, low=1),
        extra=f.text("extra", default=""),
        timings=_timings_from(f.list("timings"), where + ": timings", recording),
        needs_ocr=bool(f.d.get("needs_ocr", False) is True),
        words=_timings_from(f.list("words"), where + ": words", recording),
    )
    recording.check(seg.start_ms, seg.end_ms, where)
    if seg.line_start is not None and seg.line_end is not None and seg.line_end < seg.line_start:
        raise PackError(
            f"{where}: it ends (line {seg.line_end}) before it starts (line {seg.line_start})"
        )
    cues = f.int("cues", optional=True) or 0
    return seg, cues


def relative_path_escapes(path: str) -> bool:
    """A source's place in the course that is empty, absolute, climbs out (``..``), names a
    drive, or has a part that is no name (``.``, ``a//b``): the folder given for the media
    must hold it, as a file (an export writes none of these)."""
    parts = path.replace("\\", "/").split("/")
    return (
        member_escapes(path)
        or any(p in ("", ".", "..") for p in parts)  # ``./././.`` is the course's folder
        or any(":" in p for p in parts)
    )


def _scene(raw: object, where: str, recording: _Recording) -> PackScene:
    if (
        not isinstance(raw, list)
        or len(raw) != 4
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in raw[:3])
        or not isinstance(raw[3], str)
    ):
        raise PackError(f"{where}: not [start_ms, end_ms, keyframe_ms, thumbnail]")
    if raw[3] and not THUMBNAIL_NAME.fullmatch(raw[3]):
        raise PackError(f"{where}: thumbnail {printable(raw[3])[:100]!r} is not a thumbnail's name")
    recording.check(raw[0], raw[1], where)
    recording.check(raw[2], raw[2], where)
    return PackScene(raw[0], raw[1], raw[2], raw[3])


def _source(raw: object, where: str) -> PackSource:
    f = Fields(raw, where)
    path = f.text("path")
    if relative_path_escapes(path):
        raise f.bad("path", f"not a place inside the course: {printable(path)[:100]}")
    try:
        kind = SourceKind(f.text("kind"))
    except ValueError:
        raise f.bad("kind", "not a kind of file Coursedex knows") from None
    sha = f.text("sha256")
    if not SHA256.fullmatch(sha):
        raise f.bad("sha256", "not a sha256")
    path = path.replace("\\", "/")
    duration_ms = f.int("duration_ms", optional=True)
    recording = _Recording(path, duration_ms)
    read = [
        _segment(s, f"{where}, segment {i + 1}", recording)
        for i, s in enumerate(f.list("segments"))
    ]
    scenes = f.list("scenes")
    return PackSource(
        path=path,
        kind=kind,
        title=f.text("title"),
        sha256=sha,
        size=f.int("size"),
        duration_ms=duration_ms,
        speech_model=f.text("speech_model", optional=True),
        segments=tuple(s for s, _ in read),
        cues=tuple(n for _, n in read),
        scenes=tuple(_scene(s, f"{where}, scene {i + 1}", recording) for i, s in enumerate(scenes)),
        language=_language(f.text("language", optional=True)),
    )


def _language(code: str | None) -> str | None:
    """A file's language as a pack gives it: one Coursedex knows, else not known (a code
    from a newer Coursedex, or a hand-made pack's word, does not refuse the pack)."""
    return code if code in LANGUAGES else None


def _link(raw: object, count: int) -> PackLink:
    bad = PackError("course.json: a slide link is not [video, start, end, deck, page, score]")
    if not isinstance(raw, list) or len(raw) != 6:
        raise bad
    numbers: list[Any] = raw
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in numbers[:5]):
        raise bad
    video, start, end, deck, page, score = numbers
    if not (0 <= video < count and 0 <= deck < count and page >= 1):
        raise bad
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise PackError("course.json: a slide link's score is not a number")
    return PackLink(video, start, end, deck, page, float(score))


def read_json(data: bytes, name: str) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise PackError(f"{name} is not JSON ({type(e).__name__})") from None


def bounded(part: str, count: int, most: int, what: str) -> None:
    """Refuses a pack holding more of something than :class:`PackLimits` lets in, counted
    before any of them is read."""
    if count > most:
        raise PackError(f"{part}: {count:,} {what}, more than the {most:,} a pack may hold")


def course_from(
    data: bytes, limits: PackLimits
) -> tuple[tuple[PackSource, ...], tuple[PackLink, ...]]:
    f = Fields(read_json(data, "course.json"), "course.json")
    raw_sources = f.list("sources")
    if not raw_sources:
        raise PackError("course.json: the pack holds no file")
    bounded("course.json", len(raw_sources), limits.max_sources, "files")
    segments = sum(
        len(s["segments"])
        for s in raw_sources
        if isinstance(s, dict) and isinstance(s.get("segments"), list)
    )
    bounded("course.json", segments, limits.max_segments, "segments")
    sources = tuple(_source(s, f"course.json: file {i + 1}") for i, s in enumerate(raw_sources))
    paths = [s.path.casefold() for s in sources]
    if len(set(paths)) != len(paths):
        raise PackError("course.json: two files have the same place in the course")
    if len({s.sha256 for s in sources}) != len(sources):
        raise PackError("course.json: two files have the same content (sha256)")
    links = tuple(_link(k, len(sources)) for k in f.list("slide_links"))
    return sources, links


def manifest_from(data: bytes) -> Manifest:
    """The manifest, checked for the format and version first: a newer pack is refused by
    its version before anything else of it is judged."""
    f = Fields(read_json(data, "manifest.json"), "manifest.json")
    if f.d.get("format") != FORMAT:
        raise PackError("not a Coursedex course pack (its manifest names another format)")
    version = f.int("version", low=1)
    if version > VERSION:
        raise PackError(
            f"this pack was made by a newer Coursedex (pack version {version}; this one "
            f"reads version {VERSION}): update Coursedex to import it"
        )
    parts: dict[str, tuple[str, int]] = {}
    raw_parts = f.d.get("parts")
    if not isinstance(raw_parts, dict):
        raise f.bad("parts", "not an object")
    for name, entry in raw_parts.items():
        p = Fields(entry, f"manifest.json: part {printable(name)[:100]}")
        sha = p.text("sha256")
        if not SHA256.fullmatch(sha):
            raise p.bad("sha256", "not a sha256")
        parts[name] = (sha, p.int("size"))
    course = f.text("course").strip()
    if not course:
        raise f.bad("course", "empty")
    return Manifest(
        course=course,
        model_id=f.text("model_id"),
        dimension=f.int("dimension", low=1),
        version=version,
        made_by=f.text("made_by", default=""),
        created=f.text("created", default=""),
        parts=parts,
    )
