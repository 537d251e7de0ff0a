"""A course's flashcards: one per note the student took, or, for a course with no notes at
all, one per slide.

A note's card asks with the note's text and answers with where it was taken: the sentence
spoken at that time (and the next) and the slide on screen then (or the keyframe), the
slide's text for a note on a page, the lines around a note on a code or notes line, and the
``coursedex://`` link in every case. A slide's card asks with the slide's title and answers
with what was said while it was on screen (else its text), its picture and the link to that
moment.

A course with notes on only some slides gets cards for its notes only, by default: once a
student takes notes they choose what to learn, and a card per remaining slide would bury
those. ``slides=True`` adds a card for every slide page no note is on (a note at a moment
of a lecture is on the slide shown then).

Each card has a guid made of what it is about (the file's sha256 and the note's place, or
the deck's sha256 and the page), not of a row id: a second export of the same course, from
this library or a rebuilt one, gives the same guids, and Anki updates those cards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CoursedexError, NotFoundError
from engine.ingest.kinds import PHOTO_EXTENSIONS
from engine.integrations import documents
from engine.integrations.links import make_link
from engine.integrations.pictures import Picture, page_picture, thumbnail_picture
from engine.notes import Note, Place
from engine.plain_text import clock, html_text
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
    slide: tuple[str, int] | None = None  # the (deck sha256, page) it shows

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
        noted = {c.slide for c in cards}
        cards += [c for c in slide_cards(library, sources) if c.slide not in noted]
    if not cards:
        raise NotFoundError(f"the course {name!r} has no notes and no slides to make cards of")
    return cards


def note_cards(library: Library, course: str) -> list[Card]:
    """One card per note of the course, in lecture order (a note whose file is gone too:
    its text is the question; the answer is where it was)."""
    cards: list[Card] = []
    seen: dict[tuple[str, ...], int] = {}
    spoken: dict[str, list[Timing]] = {}
    for note in library.notes(course):
        place = note.place
        spot = (place.sha256, place.path_in_archive or "", _spot(place))
        seen[spot] = seen.get(spot, -1) + 1  # two notes at one place: two cards
        source = library.source(note.source_path) if note.source_path else None
        back, where, picture, slide = _answer(library, note, source, spoken)
        title = source.title if source else (note.source_title or Path(note.last_path).name)
        if place.path_in_archive:
            title = f"{title}: {place.path_in_archive}"
        cards.append(
            Card(
                ("note", *spot, str(seen[spot])),
                front=f"{html_text(note.text)}<div class=from>{html_text(title)}</div>",
                back=back,
                where=where,
                picture=picture,
                kind="note",
                slide=slide,
            )
        )
    return cards


def _spot(place: Place) -> str:
    if place.at_ms is not None:
        return f"t={place.at_ms}"
    if place.page is not None:
        return f"page={place.page}"
    if place.line is not None:
        return f"line={place.line}"
    return "file"


def _answer(
    library: Library, note: Note, source: Source | None, spoken: dict[str, list[Timing]]
) -> tuple[str, str, Picture | None, tuple[str, int] | None]:
    """What a note's card answers with: (back, where, picture, the slide it shows)."""
    place = note.place
    if source is None:
        gone = note.last_path or note.source_title or "its file"
        return "", html_text(f"{Path(gone).name} (no longer in the library)"), None, None
    link = make_link(
        source.path,
        start_ms=place.at_ms,
        page=place.page,
        line=place.line,
        member=place.path_in_archive,
        sha256=source.sha256,
    )
    if place.at_ms is not None:
        if source.path not in spoken:
            spoken[source.path] = library.lectures.transcript(source)
        said = _sentence_at(spoken[source.path], place.at_ms)
        picture, slide = _on_screen(library, source, place.at_ms)
        where = _where(link, f"{source.title} at {clock(place.at_ms)}")
        return (f"<p>{html_text(said)}</p>" if said else ""), where, picture, slide
    if place.page is not None:
        page = next(
            (p for p in library.lectures.slide_pages(source) if p.page == place.page),
            None,
        )
        body = _body(page.text, page.title) if page else ""
        picture = page_picture(Path(source.path), source.sha256 or "", place.page, 640)
        where = _where(link, f"{source.title}, slide {place.page}")
        return (
            (f"<p>{html_text(body)}</p>" if body else ""),
            where,
            picture,
            (place.sha256, place.page),
        )
    if place.line is not None:
        lines = _lines_at(library, source, place.path_in_archive, place.line)
        name = place.path_in_archive or Path(source.path).name
        where = _where(link, f"{name}, line {place.line}")
        return (f"<pre>{html_text(lines)}</pre>" if lines else ""), where, None, None
    return "", _where(link, source.title), None, None


def _sentence_at(lines: Sequence[Timing], at_ms: int) -> str:
    """The sentence spoken at ``at_ms`` (else the last one before it) and the next one: a
    note is often taken as a point is made, which a sentence alone may cut short."""
    at = max((i for i, t in enumerate(lines) if t.start_ms <= at_ms), default=0)
    return " ".join(" ".join(t.text.split()) for t in lines[at : at + 2])


def _on_screen(
    library: Library, lecture: Source, at_ms: int
) -> tuple[Picture | None, tuple[str, int] | None]:
    """The slide linked to a lecture's moment (its page drawn), else the keyframe."""
    lectures = library.lectures
    shown = lectures.slide_at(lecture, at_ms)
    deck = library.source(shown.path) if shown else None
    if shown is not None and deck is not None:
        picture = page_picture(Path(deck.path), deck.sha256 or "", shown.page, 640)
        if picture is not None:
            return picture, (deck.sha256 or "", shown.page)
    return thumbnail_picture(library.thumbs, lectures.thumbnail_at(lecture, at_ms)), None


def _lines_at(library: Library, source: Source, member: str | None, line: int) -> str:
    """The noted line with two lines around it (nothing when the file cannot be read)."""
    try:
        text = library.source_text(source.path, member)
    except CoursedexError:
        return ""
    lines = text.splitlines()
    return "\n".join(lines[max(0, line - 3) : line + 2])


def slide_cards(library: Library, sources: Sequence[Source]) -> list[Card]:
    """One card per page of each deck: its title; what was said while it was shown. A photo
    or a scan is no deck: its first line read by OCR is no card's question."""
    lectures = {s.path: s for s in sources}
    spoken: dict[str, list[Timing]] = {}
    return [
        _slide_card(library, deck, page, lectures, spoken)
        for deck in sources
        if deck.kind == SourceKind.SLIDES and Path(deck.path).suffix.lower() not in PHOTO_EXTENSIONS
        for page in library.lectures.slide_pages(deck)
    ]


def _slide_card(
    library: Library,
    deck: Source,
    page: documents.SlidePage,
    lectures: dict[str, Source],
    spoken: dict[str, list[Timing]],
) -> Card:
    """A slide's card; ``spoken`` keeps the transcripts read for the cards before it."""
    reads = library.lectures
    title = documents.first_line(page.title) or documents.first_line(page.text)
    title = title or f"Slide {page.page}"
    link = make_link(deck.path, page=page.page, sha256=deck.sha256)
    where = f"{deck.title}, slide {page.page}"
    said = ""
    shown = [s for s in reads.shown_at(deck, page.page) if s.video_path in lectures]
    if shown:
        lecture = lectures[shown[0].video_path]
        if lecture.path not in spoken:
            spoken[lecture.path] = reads.transcript(lecture)
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
        front=f"{html_text(title)}<div class=from>{html_text(deck.title)}, slide {page.page}</div>",
        back=f"<p>{html_text(body)}</p>" if body else "",
        where=_where(link, where),
        picture=page_picture(Path(deck.path), deck.sha256 or "", page.page, 640),
        slide=(deck.sha256 or "", page.page),
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
    return f'<a href="{html_text(link)}">{html_text(text)}</a>'
