"""Timestamp links: ``coursedex://open?source=PATH&t=SECONDS`` (or ``&page=N``, ``&line=N``).

A link names a moment in one file of a library: a time in a lecture, a page of a deck, a line
of a code or notes file (``&member=`` for a file inside an imported archive). It also carries
the file's sha256 (``&sha256=``), so a link still opens the file after it moved: the path is
tried first, then any indexed file with the same content. Times are seconds in the link (what
a person reads and types) and milliseconds inside the engine.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, quote, urlsplit

from engine.errors import CoursedexError, NotFoundError
from engine.formatting import location
from engine.numbers import (
    MAX_COUNT,
    RECORDING_SLACK_MS,
    NumberError,
    seconds_ms,
    span_fault,
    whole,
)
from engine.plain_text import clock
from engine.search.results import AtLines, AtMoment, OnPage, WholeFile

if TYPE_CHECKING:
    from engine.library import Library
    from engine.notes import Note
    from engine.search import SearchResult
    from engine.store import Source

SCHEME = "coursedex"
_HEX64 = re.compile(r"[0-9a-f]{64}")


class LinkError(CoursedexError):
    """Text that is not a Coursedex link, or a link with a value that cannot be a moment."""


@dataclass(frozen=True, slots=True)
class Link:
    """One moment in one file. ``source`` is the path the link was made with (or, after
    :func:`resolve_link`, where that file is now)."""

    source: str
    start_ms: int | None = None
    page: int | None = None  # 1-based
    line: int | None = None  # 1-based
    member: str | None = None  # a file inside an imported archive
    sha256: str | None = None


def make_link(
    source: str,
    *,
    start_ms: int | None = None,
    page: int | None = None,
    line: int | None = None,
    member: str | None = None,
    sha256: str | None = None,
) -> str:
    """``coursedex://open?source=...&t=...``: seconds with at most millisecond precision,
    trailing zeros dropped (``t=83.5``, ``t=120``)."""
    parts = [f"source={quote(source, safe='/:')}"]
    if start_ms is not None:
        parts.append(f"t={_seconds(max(0, start_ms))}")
    if page is not None:
        parts.append(f"page={page}")
    if member:
        parts.append(f"member={quote(member, safe='/')}")
    if line is not None:
        parts.append(f"line={line}")
    if sha256:
        parts.append(f"sha256={sha256}")
    return f"{SCHEME}://open?{'&'.join(parts)}"


def parse_link(text: str) -> Link:
    """The moment a link names.

    ``t`` may be seconds (``83``, ``83.5``, ``83s``) or a clock (``1:23``, ``1:02:03``).

    Raises:
        LinkError: not a ``coursedex://open`` link, no ``source``, or a value that is not a
            time (0 to 10,000,000 seconds), page or line (1 to 1,000,000,000; ASCII digits).
    """
    text = text.strip()
    try:
        parts = urlsplit(text)
    except ValueError as e:  # an unclosed "[" reads as a broken IPv6 address
        raise LinkError(f"not a Coursedex link ({e}): {text}") from e
    if parts.scheme.lower() != SCHEME:
        raise LinkError(f"not a Coursedex link (it must start with {SCHEME}://open?): {text}")
    action = parts.netloc or parts.path.strip("/")
    if action.lower() != "open":
        raise LinkError(f"a Coursedex link opens a file ({SCHEME}://open?...), not {action!r}")
    query = parse_qs(parts.query, keep_blank_values=True)

    def one(name: str) -> str | None:
        values = query.get(name)
        return values[-1].strip() if values else None

    source = one("source")
    if not source:
        raise LinkError(f"the link names no file (source=...): {text}")
    sha = (one("sha256") or "").lower() or None
    if sha is not None and not _HEX64.fullmatch(sha):
        raise LinkError(f"sha256 must be 64 hex digits, not {sha!r}")
    return Link(
        source=source,
        start_ms=_time_ms(one("t")),
        page=_positive(one("page"), "page"),
        line=_positive(one("line"), "line"),
        member=one("member") or None,
        sha256=sha,
    )


def resolve_link(library: Library, link: Link) -> Link:
    """The link with ``source`` where its file is in this library now.

    The path first (when the library has it and the file is there), then an indexed file with
    the link's sha256 that is on disk, then one with the same file name and content hash as the
    library's record of the old path.

    Raises:
        NotFoundError: no file of the library is the one the link names.
        LinkError: its time is past the end of the recording.
    """
    source = library.source(link.source) or library.source(_normal(link.source))
    if source is not None:  # "/c1/../c1/lec.mp4" is the library's "/c1/lec.mp4"
        link = replace(link, source=source.path)
    if source is not None and Path(source.path).exists():
        return _within(link, source)
    hashes = [h for h in (link.sha256, source.sha256 if source else None) if h]
    for sha in hashes:
        found = _present(library.sources_with_content(sha))
        if found is not None:
            return _within(replace(link, source=found.path, sha256=sha), found)
    if source is not None:
        return _within(link, source)  # gone from disk: the window says so when it opens it
    raise NotFoundError(
        f"{link.source} is not in this library"
        + (", and no file in it has the same content" if hashes else "")
    )


def within_recording(start_ms: int, source: Source) -> None:
    """Raises LinkError when ``start_ms`` is past the end of ``source``'s recording (a second
    of slack: a link's time is rounded to the millisecond, a probed length is not exact)."""
    length = source.duration_ms
    past = span_fault(start_ms, start_ms, length, source.path, slack_ms=RECORDING_SLACK_MS)
    if length is not None and past is not None:
        raise LinkError(
            f"{Path(source.path).name} is {clock(length)} long: "
            f"nothing at {_seconds(start_ms)} seconds"
        )


def _normal(path: str) -> str:
    """``path`` with ``.``, ``..`` and doubled separators taken out, by the text alone: it
    is only looked up among the library's files, so a path that leads out stays unknown."""
    return os.path.normpath(path) if os.path.isabs(path) else path


def _within(link: Link, source: Source) -> Link:
    if link.start_ms is not None:
        within_recording(link.start_ms, source)
    return link


def link_of(result: SearchResult, sha256: str | None = None) -> str:
    """The link to a search result's moment (pass the file's sha256 so it survives a move)."""
    match result.place:
        case AtMoment(start_ms=at):
            return make_link(result.source, start_ms=at, sha256=sha256)
        case OnPage(page=page):
            return make_link(result.source, page=page, sha256=sha256)
        case AtLines(line=line, path_in_archive=member):
            return make_link(result.source, line=line, member=member, sha256=sha256)
        case WholeFile(path_in_archive=member):
            return make_link(result.source, member=member, sha256=sha256)


def note_link(note: Note) -> str | None:
    """The link to a note's place (None while no file in the library has its content)."""
    if note.source_path is None:
        return None
    place = note.place
    return make_link(
        note.source_path,
        start_ms=place.at_ms,
        page=place.page,
        line=place.line,
        member=place.path_in_archive,
        sha256=place.sha256,
    )


def result_link(library: Library, result: SearchResult) -> str:
    """:func:`link_of` with the file's hash taken from the library."""
    source = library.source(result.source)
    return link_of(result, source.sha256 if source else None)


def quote_with_time(result: SearchResult, link: str) -> str:
    """A result as a citation to paste: the words, where they are, and the link.

    ``"...snippet..." (Lecture title, 12:34) coursedex://open?...``
    """
    words = " ".join(result.snippet.split())
    where = location(result)
    cite = f"{result.title}, {where}" if where else result.title
    return f"\u201c{words}\u201d ({cite}) {link}"


def describe_link(link: Link) -> str:
    """A short human reading of a link: ``lecture.mp4 at 01:23``."""
    name = Path(link.source).name
    if link.start_ms is not None:
        return f"{name} at {clock(link.start_ms)}"
    if link.page is not None:
        return f"{name} page {link.page}"
    if link.line is not None:
        return f"{link.member or name} line {link.line}"
    return name


def _present(sources: list[Source]) -> Source | None:
    return next((s for s in sources if Path(s.path).exists()), None)


def _seconds(ms: int) -> str:
    whole, rest = divmod(ms, 1000)
    return str(whole) if rest == 0 else f"{whole}.{rest:03d}".rstrip("0")


def _time_ms(value: str | None) -> int | None:
    if value is None or value == "":
        return None
    try:
        return seconds_ms(value, "t")
    except NumberError as e:
        raise LinkError(str(e)) from e


def _positive(value: str | None, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return whole(value, name, 1, MAX_COUNT)
    except NumberError as e:
        raise LinkError(str(e)) from e
