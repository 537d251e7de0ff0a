"""The last step of an import: each lecture of a course lined up with the slide deck it shows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.importing.align import Alignment, Moment, align_slides, speech_moments
from engine.store import SegmentRow, Source, Store
from engine.types import SegmentKind, SourceKind, SourceStatus

TIMED_KINDS = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)
SlideSpan = tuple[int, int, int, int, float]  # (start ms, end ms, deck id, page, score)
Pages = tuple[list[int], list[str]]  # a deck's page numbers and page texts, in page order


def link_slides(store: Store, courses: Iterable[str] | None = None) -> int:
    """Match the slide decks of each course to its videos and transcripts (both ways).

    Each lecture is aligned to every deck of its course and keeps the deck that fits
    best. Returns how many lectures got links.
    """
    linked = 0
    wanted = None if courses is None else set(courses)
    for course in store.catalog.courses():
        if wanted is not None and course.name not in wanted:
            continue
        sources = [s for s in store.catalog.sources(course.id) if s.status == SourceStatus.INDEXED]
        decks = [s for s in sources if s.kind == SourceKind.SLIDES]
        pages = {d.id: _page_texts(store.segments.of_source(d.id)) for d in decks}
        for lecture in (s for s in sources if s.kind in TIMED_KINDS):
            if not decks:  # nothing to line up with: only drop links to removed decks
                if store.recordings.slide_links(lecture.id):
                    store.recordings.replace_slide_links(lecture.id, [])
                continue
            links = _best_links(store, lecture, decks, pages)
            store.recordings.replace_slide_links(lecture.id, links)
            linked += bool(links)
    return linked


def _best_links(
    store: Store, lecture: Source, decks: Sequence[Source], pages: dict[int, Pages]
) -> list[SlideSpan]:
    """The lecture's links to the deck that fits it best (none when nothing fits)."""
    moments = _moments(store.segments.of_source(lecture.id), store.recordings.scenes(lecture.id))
    best: tuple[float, int, list[int], Alignment] | None = None
    for deck in decks:
        numbers, texts = pages[deck.id]
        if not texts or not moments:
            continue
        alignment = align_slides(texts, moments)
        if best is None or alignment.score > best[0]:
            best = (alignment.score, deck.id, numbers, alignment)
    if best is None:
        return []
    _, deck_id, numbers, alignment = best
    links: list[SlideSpan] = []
    for moment, page, score in zip(moments, alignment.pages, alignment.scores, strict=True):
        if page is None:
            continue
        number = numbers[page - 1]
        if links and links[-1][3] == number and links[-1][1] >= moment.start_ms:
            a, _, deck, p, s = links[-1]
            links[-1] = (a, moment.end_ms, deck, p, max(s, score))
        else:
            links.append((moment.start_ms, moment.end_ms, deck_id, number, score))
    return links


def _page_texts(rows: Sequence[SegmentRow]) -> Pages:
    """(page numbers, page texts) of a deck, in page order."""
    pages: dict[int, list[str]] = {}
    for row in rows:
        # The slides' own text: a note on a page (a segment of the deck too) is not shown.
        if row.kind == SegmentKind.SLIDE and row.page is not None:
            pages.setdefault(row.page, []).append(f"{row.heading}\n{row.text}".strip())
    numbers = sorted(pages)
    return numbers, ["\n".join(pages[n]) for n in numbers]


def _moments(
    rows: Sequence[SegmentRow], scenes: Sequence[tuple[int, int, int, str]]
) -> list[Moment]:
    """Stretches of a lecture to line up with slides: its scenes (screen text + what is said
    during each) when its frames were read, else 10-s steps of its speech."""
    spoken = [
        t for row in rows if row.kind == SegmentKind.TRANSCRIPT for t in (row.words or row.timings)
    ]
    # Overlapping windows repeat their shared sentence: keep each timed span once.
    spoken = sorted(set(spoken), key=lambda t: (t.start_ms, t.end_ms))
    if not scenes:
        return speech_moments(spoken)
    screens = [r for r in rows if r.kind == SegmentKind.SCREEN]
    out: list[Moment] = []
    for a, b, _, _ in scenes:
        speech = " ".join(t.text for t in spoken if a <= t.start_ms < b)
        screen = " ".join(r.text for r in screens if (r.start_ms or 0) < b and (r.end_ms or 0) > a)
        out.append(Moment(a, b, screen, speech))
    return out
