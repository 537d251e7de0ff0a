"""What the window shows of an indexed file beside a hit: a lecture's transcript and its
chapters, a deck's pages as the import read them, or the text of a code or notes file (or
of a file inside an imported archive)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.config import IngestLimits
from engine.errors import NotFoundError
from engine.ingest.documents import document_text
from engine.ingest.kinds import DOCUMENT_EXTENSIONS, WEB_PAGE_EXTENSIONS
from engine.ingest.safezip import open_zip, read_member
from engine.ingest.text import decode_text, read_text
from engine.store import Source, Store
from engine.types import SegmentKind, SourceKind, Timing

MAX_TITLE_CHARS = 80


@dataclass(frozen=True, slots=True)
class Chapter:
    """Where a lecture moves on to the next slide (or the next screen), and its title."""

    start_ms: int
    title: str
    page: int | None = None  # the linked slide page, when the chapter comes from a deck


@dataclass(frozen=True, slots=True)
class SlidePage:
    """A deck's page (1-based) as the import read it: its title and its text, the title
    first when it has one (a .pptx slide: its shapes, then its speaker notes)."""

    page: int
    title: str
    text: str


def transcript(store: Store, source: Source) -> list[Timing]:
    """The spoken sentences (or subtitle cues) of a lecture in time order, once each.

    Transcript windows overlap by a sentence or two; the overlap is dropped here.
    """
    lines: list[Timing] = []
    for row in store.segments.of_source(source.id):
        if row.kind != SegmentKind.TRANSCRIPT:
            continue
        units = row.timings or (
            (Timing(row.start_ms or 0, row.end_ms or 0, row.text),) if row.text else ()
        )
        lines += [u for u in units if not lines or u.start_ms >= lines[-1].end_ms]
    return lines


def source_text(source: Source, limits: IngestLimits, member: str | None = None) -> str:
    """The text of a code or notes file, or of ``member`` of an imported archive, decoded
    the way the import decoded it; a document's (.docx, .odt, .rtf, .epub, a saved page)
    text as its import wrote it out, whose lines its hits name.

    Raises:
        NotFoundError: the archive has no such member.
        UnreadableFileError: the file is gone or changed so it cannot be read as text.
    """
    if member is None and is_document(source):
        return document_text(Path(source.path), limits)
    if member is None:
        return read_text(Path(source.path), limits.max_file_bytes, "a text file")
    with open_zip(Path(source.path)) as zf:
        try:
            info = zf.getinfo(member)
        except KeyError:
            raise NotFoundError(f"{member} is not in {Path(source.path).name}") from None
        data = read_member(zf, info, limits.max_archive_member_bytes)
    return decode_text(data, "a text file")


def is_document(source: Source) -> bool:
    """Whether a file was read as a document (a .html that is code is shown as written)."""
    suffix = Path(source.path).suffix.lower()
    return suffix in DOCUMENT_EXTENSIONS or (
        suffix in WEB_PAGE_EXTENSIONS and source.kind is SourceKind.NOTES
    )


def chapters(store: Store, source: Source) -> list[Chapter]:
    """A lecture's chapters, earliest first: each time the slide linked to it changes, titled
    by the slide's title (its first line); without a linked deck, each time the text read
    off its frames changes, titled by that text's first line. Consecutive chapters with the
    same title are one (a slide shown twice in a row, "continued" pages).
    """
    links = store.recordings.slide_links(source.id)
    if links:
        titles: dict[int, dict[int, str]] = {}
        found: list[Chapter] = []
        for link in links:
            if link.slides_id not in titles:
                titles[link.slides_id] = _page_titles(store, link.slides_id)
            title = titles[link.slides_id].get(link.page) or f"Slide {link.page}"
            found.append(Chapter(link.start_ms, title, link.page))
    else:
        screens = [
            row
            for row in store.segments.of_source(source.id)
            if row.kind == SegmentKind.SCREEN and row.start_ms is not None
        ]
        found = [
            Chapter(row.start_ms or 0, title)
            for row in sorted(screens, key=lambda r: r.start_ms or 0)
            if (title := first_line(row.heading) or first_line(row.text))
        ]
    merged: list[Chapter] = []
    for chapter in found:
        if not merged or chapter.title.casefold() != merged[-1].title.casefold():
            merged.append(chapter)
    return merged


def slide_pages(store: Store, source: Source) -> list[SlidePage]:
    """A deck's pages in order, with the titles and text its import stored."""
    pages: dict[int, SlidePage] = {}
    for row in store.segments.of_source(source.id):
        if row.kind != SegmentKind.SLIDE or row.page is None:
            continue
        known = pages.get(row.page)
        if known is None:
            pages[row.page] = SlidePage(row.page, row.heading, row.text)
        elif row.text:
            pages[row.page] = SlidePage(row.page, known.title, f"{known.text}\n{row.text}")
    return [pages[page] for page in sorted(pages)]


def _page_titles(store: Store, deck_id: int) -> dict[int, str]:
    titles: dict[int, str] = {}
    for row in store.segments.of_source(deck_id):
        # A note on a page is a segment of the deck too: it titles nothing.
        if row.kind == SegmentKind.SLIDE and row.page is not None and row.page not in titles:
            title = first_line(row.heading) or first_line(row.text)
            if title:
                titles[row.page] = title
    return titles


def first_line(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= MAX_TITLE_CHARS else line[: MAX_TITLE_CHARS - 1] + "…"
