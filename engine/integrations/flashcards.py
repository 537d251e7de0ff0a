"""A course's flashcards: one per note the student took, or, for a course with no notes at
all, one per slide.

A note's card asks with the note's text and answers with where it was taken: the sentence
spoken at that time and the slide on screen then (or the keyframe), the slide's text for a
note on a page, the lines around a note on a code or notes line, and the ``coursedex://``
link in every case. A slide's card asks with the slide's title and answers with what was said
while it was on screen (else its text), its picture and the link to that moment.

A course with notes on only some slides gets cards for its notes only, by default: once a
student takes notes they choose what to learn, and a card per remaining slide would bury
those. ``slides=True`` adds a card for every slide page no note is on.

Each card has a guid made of what it is about (the file's sha256 and the note's place, or
the deck's sha256 and the page), not of a row id: a second export of the same course, from
this library or a rebuilt one, gives the same guids, and Anki updates those cards.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import NotFoundError
from engine.integrations import documents
from engine.integrations.links import make_link
from engine.integrations.pictures import Picture, page_picture
from engine.plain_text import clock
from engine.store import Source
from engine.types import SourceKind, SourceStatus, Timing

if TYPE_CHECKING:
    from engine.library import Library

SAID_WORDS = 120  # what was said while a slide was shown, at most (a card, not a transcript)


@dataclass(frozen=True, slots=True)
class Card:
    """One flashcard. ``front`` and ``back`` are HTML (every text in them escaped)."""

    guid_parts: tuple[str, ...]  # what the card is about: its guid is made of these
    front: str
    back: str
    where: str  # HTML: the place, as a coursedex:// link
    picture: Picture | None = None
    kind: str = "slide"  # "note" or "slide"

    @property
    def key(self) -> str:
        """A stable text id of what the card is about (the guid's source)."""
        return hashlib.sha256("\x1f".join(self.guid_parts).encode()).hexdigest()


def course_cards(library: Library, course: str, *, slides: bool = False) -> list[Card]:
    """The cards of ``course`` (any case): its notes', or its slides' when it has no notes
    (with ``slides``: also a card for each slide page no note is on).

    Raises:
        NotFoundError: no such course, or nothing in it to make a card of.
    """
    name = library.course(course).name
    sources = [s for s in library.sources(name) if s.status == SourceStatus.INDEXED]
    cards = note_cards(library, name)
    if not cards or slides:
        noted = {c.guid_parts[1:3] for c in cards if c.kind == "note"}
        cards += [c for c in slide_cards(library, sources) if c.guid_parts[1:3] not in noted]
    if not cards:
        raise NotFoundError(f"the course {name!r} has no notes and no slides to make cards of")
    return cards


def note_cards(library: Library, course: str) -> list[Card]:
    """One card per note of the course (notes arrive with engine.notes)."""
    del library, course
    return []


def slide_cards(library: Library, sources: Sequence[Source]) -> list[Card]:
    """One card per page of each deck: its title; what was said while it was shown."""
    lectures = {s.path: s for s in sources}
    spoken: dict[str, list[Timing]] = {}
    return [
        _slide_card(library, deck, page, lectures, spoken)
        for deck in sources
        if deck.kind == SourceKind.SLIDES
        for page in documents.slide_pages(library.store, deck)
    ]


def _slide_card(
    library: Library,
    deck: Source,
    page: documents.SlidePage,
    lectures: dict[str, Source],
    spoken: dict[str, list[Timing]],
) -> Card:
    """A slide's card; ``spoken`` keeps the transcripts read for the cards before it."""
    store = library.store
    title = documents.first_line(page.title) or documents.first_line(page.text)
    title = title or f"Slide {page.page}"
    link = make_link(deck.path, page=page.page, sha256=deck.sha256)
    where = f"{deck.title}, slide {page.page}"
    said = ""
    shown = [s for s in store.recordings.shown_at(deck.id, page.page) if s.video_path in lectures]
    if shown:
        lecture = lectures[shown[0].video_path]
        if lecture.path not in spoken:
            spoken[lecture.path] = documents.transcript(store, lecture)
        spans = [(s.start_ms, s.end_ms) for s in shown if s.video_path == lecture.path]
        said = _words(
            " ".join(
                t.text for t in spoken[lecture.path] if any(a <= t.start_ms < b for a, b in spans)
            )
        )
        link = make_link(lecture.path, start_ms=shown[0].start_ms, sha256=lecture.sha256)
        where = f"{lecture.title} at {clock(shown[0].start_ms)} ({where})"
    body = said or _body(page.text, title)
    return Card(
        ("slide", deck.sha256 or deck.path, str(page.page)),
        front=f"{_e(title)}<div class=from>{_e(deck.title)}, slide {page.page}</div>",
        back=f"<p>{_e(body)}</p>" if body else "",
        where=_where(link, where),
        picture=page_picture(Path(deck.path), deck.sha256 or "", page.page, 640),
    )


def _body(text: str, title: str) -> str:
    """A slide's text without its title line, on one line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and lines[0] == title:
        lines = lines[1:]
    return " · ".join(lines)


def _words(text: str) -> str:
    words = text.split()
    return " ".join(words[:SAID_WORDS]) + (" …" if len(words) > SAID_WORDS else "")


def _where(link: str, text: str) -> str:
    return f'<a href="{_e(link)}">{_e(text)}</a>'


def _e(text: str) -> str:
    return html.escape(text, quote=True)
