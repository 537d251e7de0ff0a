"""A hit's place as the kind a test expects: fails, naming the place it has, when the hit
is at another kind of place (engine/search/results.py)."""

from __future__ import annotations

from typing import NamedTuple

from engine.search import SearchResult
from engine.search.results import AtLines, AtMoment, OnPage, WholeFile


def at_moment(result: SearchResult) -> AtMoment:
    """The moment of a lecture a hit is at."""
    assert isinstance(result.place, AtMoment), result.place
    return result.place


def on_page(result: SearchResult) -> OnPage:
    """The page of a deck or document a hit is on."""
    assert isinstance(result.place, OnPage), result.place
    return result.place


def at_lines(result: SearchResult) -> AtLines:
    """The lines of a code or notes file a hit is at."""
    assert isinstance(result.place, AtLines), result.place
    return result.place


class Locators(NamedTuple):
    """A hit's place as flat fields, None where its kind of place has no such thing: for
    tests that compare the places of hits of any kind at once."""

    start_ms: int | None = None
    end_ms: int | None = None
    page: int | None = None
    path_in_archive: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    line: int | None = None


def locators(result: SearchResult) -> Locators:
    match result.place:
        case AtMoment(start_ms=start, end_ms=end):
            return Locators(start_ms=start, end_ms=end)
        case OnPage(page=page):
            return Locators(page=page)
        case AtLines(line_start=first, line_end=last, line=line, path_in_archive=member):
            return Locators(path_in_archive=member, line_start=first, line_end=last, line=line)
        case WholeFile(path_in_archive=member):
            return Locators(path_in_archive=member)
