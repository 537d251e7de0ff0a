"""The engine's results as text a user reads, written once for the CLI and the window: the
kinds of result by name, where a hit is, an import's counts and progress. It sits above search
and importing; the plain helpers it builds on (times, counts, sizes, printable names) are
below everything, in :mod:`engine.plain_text`."""

from __future__ import annotations

import math
from pathlib import PurePath
from typing import TYPE_CHECKING

from engine.importing.places import member_place, shown_name
from engine.importing.progress import IngestReport, Outcome
from engine.plain_text import clock, plural, printable
from engine.search.results import AtLines, AtMoment, OnPage, WholeFile
from engine.types import SegmentKind

if TYPE_CHECKING:
    from engine.importing.progress import IngestProgress
    from engine.search import SearchResult


# What the window calls each kind of result; the CLI's --kind takes these words too.
KIND_NAMES = {
    SegmentKind.TRANSCRIPT: "Speech",
    SegmentKind.SCREEN: "On screen",
    SegmentKind.SLIDE: "Slides",
    SegmentKind.CODE: "Code",
    SegmentKind.NOTE: "Notes",
    SegmentKind.BOOKMARK: "My notes",  # the user's own, at places in files (engine/notes)
}


def kind_named(text: str) -> SegmentKind | None:
    """The kind of result ``text`` names: its value (``slide``), its plural or the window's
    name (``Slides``, ``On screen``, ``on-screen``), in any case; None for no kind."""
    word = " ".join(text.lower().replace("-", " ").split())
    for kind in SegmentKind:
        if word in (kind.value, kind.value + "s", KIND_NAMES[kind].lower()):
            return kind
    return None


def outcome_counts(report: IngestReport) -> list[str]:
    """An import's counts as words: ``1 indexed``, ``2 errors``, ``1 duplicate``."""
    nouns = {Outcome.ERROR: "error", Outcome.DUPLICATE: "duplicate"}  # the rest are verbs
    return [
        plural(report.count(o), nouns[o]) if o in nouns else f"{report.count(o)} {o.value}"
        for o in Outcome
        if report.count(o)
    ]


def shown_title(result: SearchResult) -> str:
    """A hit's file as its row names it: its title; for a file taken out of a course zip, its
    place there first ("Week 1/handout.docx · Open addressing"), the title left out when it
    only repeats the file's name."""
    member = member_place(result.source)
    if member is None:
        return result.title
    place = member[1]
    name = PurePath(place)
    same = result.title.strip().casefold() in ("", name.stem.casefold(), name.name.casefold())
    return place if same else f"{place} · {result.title}"


def copies_line(report: IngestReport) -> str:
    """Where an import's duplicates are (files whose content the library holds already: it
    keeps one copy, listed in the course that has it): one by name, with its course and the
    file holding its content, or how many and in which courses; "" when there are none."""
    copies = [f for f in report.files if f.outcome == Outcome.DUPLICATE]
    if len(copies) == 1:
        f = copies[0]
        return (
            f"{printable(shown_name(f.path))} is already in the library, in the course "
            f"“{printable(f.kept_in)}” ({printable(f.detail)}): it is listed there, once"
        )
    if not copies:
        return ""
    courses = sorted({f.kept_in for f in copies}, key=str.casefold)
    named = ", ".join(f"“{printable(c)}”" for c in courses)
    return (
        f"{plural(len(copies), 'file')} already in the library, in "
        f"{'the course' if len(courses) == 1 else 'the courses'} {named}: each is listed "
        "there, once"
    )


def location(result: SearchResult) -> str:
    """Where in its file a hit is: ``mm:ss``, ``page N``, ``member:line`` inside an archive,
    ``line N``, or nothing for a hit that is the whole file."""
    match result.place:
        case AtMoment(start_ms=at):
            return clock(at)
        case OnPage(page=page):
            return f"page {page}"
        case AtLines(line=line, path_in_archive=str(member)):
            return f"{member}:{line}"
        case AtLines(line=line):
            return f"line {line}"
        case WholeFile(path_in_archive=member):
            return member or ""


def stage_text(p: IngestProgress) -> str:
    """The file's stage with the file's share done (across all its stages, so it never
    falls back as the stage changes): ``transcribing 43%``."""
    if p.file_fraction is not None and p.result is None:
        return f"{p.stage} {min(99, round(p.file_fraction * 100))}%"  # 100% is done
    return p.stage


def time_left(seconds: float | None) -> str:
    """The time left as a person says it, coarse enough not to flicker: ``about 3 min left``;
    never zero while work remains (``less than a minute left``); "" when not known yet."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "less than a minute left"
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    hours, minutes = divmod(5 * math.ceil(minutes / 5), 60)
    return f"about {hours} h {minutes:02d} min left" if minutes else f"about {hours} h left"


def progress_line(p: IngestProgress) -> str:
    """Which file of how many, its stage, share and detail, and the time left:
    ``2/3 lecture.mp4: transcribing 43% (0.04x), about 2 min left``."""
    stage = stage_text(p) + (f" ({p.detail})" if p.detail else "")
    left = time_left(p.eta_s)
    left = f", {left}" if left else ""
    return f"{p.index + 1}/{p.total} {printable(shown_name(p.path))}: {stage}{left}"
