"""A lecture handout: what was on screen beside what was said while it was there.

:func:`build_handout` reads a lecture from the library into a :class:`Handout`: its chapters,
then one :class:`Shown` per slide (or screen) in the order the lecture shows them, each with
its picture, the paragraphs spoken while it was up and the student's notes at their times.
``handout_render`` writes it as HTML or Markdown. Every time carries its ``coursedex://``
link, so a printed or mailed handout still leads back to the moment.

Where the pictures come from: the slide linked to each stretch of the lecture (the page drawn
from the PDF); without a deck, the keyframe of each chapter (where the text on screen
changes); without either, the lecture is one stretch of text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import NotFoundError
from engine.integrations import documents
from engine.integrations.links import make_link
from engine.integrations.pictures import Picture, page_picture, thumbnail_picture
from engine.store import SlideLink, Source
from engine.types import SourceKind, SourceStatus, Timing

if TYPE_CHECKING:
    from engine.library import Library

LECTURE_KINDS = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)
PARAGRAPH_WORDS = 70  # a paragraph ends after about this many words...
PARAGRAPH_PAUSE_MS = 2_000  # ...or at a pause this long
OPENING = "Before the first slide"


@dataclass(frozen=True, slots=True)
class Said:
    """A paragraph of what was said, from the start of its first sentence."""

    start_ms: int
    text: str
    link: str


@dataclass(frozen=True, slots=True)
class Remark:
    """A student's note in a handout, where it was taken (a time, or a slide page)."""

    at_ms: int | None
    page: int | None
    text: str
    link: str


@dataclass(frozen=True, slots=True)
class Shown:
    """One slide (or screen) while it was up: from ``start_ms`` to ``end_ms``."""

    start_ms: int
    end_ms: int
    title: str
    link: str
    page: int | None = None  # the deck's page
    picture: Picture | None = None
    again_ms: int | None = None  # shown before, from then: its picture is there
    slide_text: str = ""  # a page with no picture: its text stands in
    items: tuple[Said | Remark, ...] = ()  # paragraphs and notes in time order


@dataclass(frozen=True, slots=True)
class ChapterLine:
    start_ms: int
    title: str
    link: str


@dataclass(frozen=True, slots=True)
class Handout:
    title: str
    course: str
    path: str
    link: str
    duration_ms: int | None
    deck: str | None  # the title of the deck whose pages are shown
    chapters: tuple[ChapterLine, ...]
    shown: tuple[Shown, ...]
    remarks: tuple[Remark, ...] = ()  # notes on the whole lecture (no time)


def find_lecture(library: Library, name: str) -> Source:
    """The lecture ``name`` names: its path as the library knows it (or as typed, made
    absolute), else the one lecture whose file name, stem or title it is (any case).

    Raises:
        NotFoundError: no lecture, or several, go by that name.
    """
    for path in (name, str(Path(name).expanduser().absolute())):
        source = library.source(path)
        if source is not None and source.kind in LECTURE_KINDS:
            return source
    folded = name.casefold()
    found = [
        s
        for s in library.sources()
        if s.kind in LECTURE_KINDS
        and folded
        in (Path(s.path).name.casefold(), Path(s.path).stem.casefold(), s.title.casefold())
    ]
    if len(found) == 1:
        return found[0]
    if found:
        raise NotFoundError(f"{len(found)} lectures are named {name!r}: give the file's path")
    raise NotFoundError(f"no lecture named {name!r} in the library (see `coursedex list`)")


def build_handout(library: Library, path: str) -> Handout:
    """The handout of the lecture at ``path`` (a path as the library knows it).

    Raises:
        NotFoundError: no such lecture, or it is not indexed (nothing to hand out).
    """
    lecture = find_lecture(library, path)
    if lecture.status != SourceStatus.INDEXED:
        raise NotFoundError(f"{Path(lecture.path).name} is not indexed yet: nothing to hand out")
    lectures = library.lectures
    spoken = lectures.transcript(lecture)
    decks = {s.id: s for s in library.sources(lecture.course) if s.kind == SourceKind.SLIDES}
    stretches = _stretches(library, lecture, decks)
    shown_decks = {link.slides_id for link in lectures.slide_links(lecture)}
    notes = lecture_notes(library, lecture, [d for i, d in decks.items() if i in shown_decks])
    shown = _parts(lecture, stretches, spoken, notes)
    chapters = lectures.chapters(lecture)
    deck = next((decks[i].title for i in shown_decks if i in decks), None)
    return Handout(
        title=lecture.title,
        course=lecture.course,
        path=lecture.path,
        link=_file_link(lecture),
        duration_ms=lecture.duration_ms or _last_end(spoken) or None,
        deck=deck,
        chapters=tuple(
            ChapterLine(c.start_ms, c.title, _link(lecture, c.start_ms)) for c in chapters
        ),
        shown=tuple(shown),
        remarks=tuple(n.remark for n in notes if n.at_ms is None and n.page is None),
    )


# --- what was on screen when -----------------------------------------------------------------


def _parts(
    lecture: Source, stretches: Sequence[_Stretch], spoken: Sequence[Timing], notes: list[_Note]
) -> list[Shown]:
    """Each stretch with what was said in it and the notes taken then (or on its page: the
    first time the page is shown, which alone carries its picture)."""
    at_time = [n for n in notes if n.at_ms is not None]
    on_page = [n for n in notes if n.at_ms is None and n.page is not None]
    shown: list[Shown] = []
    first_of_page: dict[tuple[str, int], int] = {}
    for i, stretch in enumerate(stretches):
        start = 0 if i == 0 else stretch.start_ms
        end = stretches[i + 1].start_ms if i + 1 < len(stretches) else None
        key = (stretch.deck_sha, stretch.page or 0)
        again = first_of_page.get(key) if stretch.page is not None else None
        items: list[tuple[tuple[int, int], Said | Remark]] = []
        if stretch.page is not None and again is None:
            first_of_page[key] = stretch.start_ms
            pinned = [n for n in on_page if n.page == stretch.page and n.sha256 == key[0]]
            items += [((stretch.start_ms - 1, 0), n.remark) for n in pinned]
        sentences = [t for t in spoken if start <= t.start_ms and (end is None or t.start_ms < end)]
        items += [((p.start_ms, 0), p) for p in _paragraphs(sentences, lecture)]
        # A note comes after the paragraph it was taken in.
        items += [((n.at_ms or 0, 1), n.remark) for n in at_time if _within(n.at_ms, start, end)]
        items.sort(key=lambda item: item[0])
        if not items and stretch.title == OPENING:
            continue
        shown.append(
            Shown(
                start_ms=stretch.start_ms,
                end_ms=end if end is not None else max(stretch.end_ms, _last_end(sentences)),
                title=stretch.title,
                link=_link(lecture, stretch.start_ms),
                page=stretch.page,
                picture=None if again is not None else stretch.picture,
                again_ms=again,
                slide_text="" if again is not None or _drawn(stretch.picture) else stretch.text,
                items=tuple(item for _, item in items),
            )
        )
    return shown


@dataclass(frozen=True, slots=True)
class _Stretch:
    start_ms: int
    end_ms: int
    title: str
    page: int | None = None
    deck_sha: str = ""
    picture: Picture | None = None
    text: str = ""


def _stretches(library: Library, lecture: Source, decks: dict[int, Source]) -> list[_Stretch]:
    """The lecture cut where its slide changes (linked slides), else where the text on its
    screen changes (chapters, with their keyframes), else one stretch."""
    lectures = library.lectures
    links = lectures.slide_links(lecture)
    if links:
        return _slide_stretches(library, lecture, decks, links)
    out = [
        _Stretch(
            c.start_ms,
            c.start_ms,
            c.title,
            picture=thumbnail_picture(library.thumbs, lectures.thumbnail_at(lecture, c.start_ms)),
        )
        for c in lectures.chapters(lecture)
    ]
    if not out or out[0].start_ms > 0:
        out.insert(0, _Stretch(0, 0, "Transcript" if not out else OPENING))
    return out


def _slide_stretches(
    library: Library,
    lecture: Source,
    decks: dict[int, Source],
    links: Sequence[SlideLink],
) -> list[_Stretch]:
    lectures = library.lectures
    pages: dict[int, dict[int, documents.SlidePage]] = {}
    pictures: dict[tuple[int, int], Picture | None] = {}
    out: list[_Stretch] = []
    for link in links:
        deck = decks.get(link.slides_id)
        if deck is None:
            continue
        if out and out[-1].page == link.page and out[-1].deck_sha == (deck.sha256 or ""):
            out[-1] = replace(out[-1], end_ms=link.end_ms)
            continue
        if deck.id not in pages:
            pages[deck.id] = {p.page: p for p in lectures.slide_pages(deck)}
        page = pages[deck.id].get(link.page)
        key = (deck.id, link.page)
        if key not in pictures:
            pictures[key] = page_picture(Path(deck.path), deck.sha256 or "", link.page)
        picture = pictures[key] or thumbnail_picture(
            library.thumbs, lectures.thumbnail_at(lecture, link.start_ms)
        )
        title = page and (documents.first_line(page.title) or documents.first_line(page.text))
        out.append(
            _Stretch(
                link.start_ms,
                link.end_ms,
                title or f"Slide {link.page}",
                link.page,
                deck.sha256 or "",
                picture,
                page.text if page else "",
            )
        )
    if out and out[0].start_ms > 0:
        out.insert(0, _Stretch(0, out[0].start_ms, OPENING))
    return out


# --- what was said, and the notes ------------------------------------------------------------


def _paragraphs(sentences: Sequence[Timing], lecture: Source) -> list[Said]:
    """Sentences joined into paragraphs of about PARAGRAPH_WORDS, broken at long pauses."""
    out: list[Said] = []
    words: list[str] = []
    start = end = 0
    for sentence in sentences:
        text = " ".join(sentence.text.split())
        if not text:
            continue
        if words and (
            len(words) >= PARAGRAPH_WORDS or sentence.start_ms - end >= PARAGRAPH_PAUSE_MS
        ):
            out.append(Said(start, " ".join(words), _link(lecture, start)))
            words = []
        if not words:
            start = sentence.start_ms
        words += text.split(" ")
        end = sentence.end_ms
    if words:
        out.append(Said(start, " ".join(words), _link(lecture, start)))
    return out


@dataclass(frozen=True, slots=True)
class _Note:
    at_ms: int | None
    page: int | None
    sha256: str
    remark: Remark


def lecture_notes(library: Library, lecture: Source, decks: Iterable[Source]) -> list[_Note]:
    """The student's notes on the lecture (at a time, or on the whole file) and on the
    pages of the decks shown in it."""
    out: list[_Note] = []
    for note in library.notes(source=lecture.path):
        at = note.place.at_ms
        link = _link(lecture, at) if at is not None else _file_link(lecture)
        out.append(_Note(at, None, note.place.sha256, Remark(at, None, note.text, link)))
    for deck in decks:
        for note in library.notes(source=deck.path):
            page = note.place.page
            if page is None:
                continue  # a note on the whole deck is not about this lecture's moments
            link = make_link(deck.path, page=page, sha256=deck.sha256)
            out.append(_Note(None, page, note.place.sha256, Remark(None, page, note.text, link)))
    return out


def _drawn(picture: Picture | None) -> bool:
    """Whether a picture is the slide page itself (a video frame may show it only in part)."""
    return picture is not None and picture.name.startswith("slide-")


def _within(at_ms: int | None, start: int, end: int | None) -> bool:
    return at_ms is not None and start <= at_ms and (end is None or at_ms < end)


def _last_end(lines: Sequence[Timing]) -> int:
    return max((t.end_ms for t in lines), default=0)


def _file_link(lecture: Source) -> str:
    return make_link(lecture.path, sha256=lecture.sha256)


def _link(lecture: Source, at_ms: int) -> str:
    return make_link(lecture.path, start_ms=at_ms, sha256=lecture.sha256)
