"""Open a ``coursedex://`` link in the window: the lecture at its time, the deck at its page,
the file at its line, as if the moment had been picked from the results."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt

from app.window import MainWindow
from engine.api import (
    CoursedexError,
    Library,
    Link,
    SearchResult,
    SegmentKind,
    SourceKind,
    location,
    parse_link,
    place_of,
    resolve_link,
)

log = logging.getLogger(__name__)

_SEGMENT_OF = {
    SourceKind.VIDEO: SegmentKind.TRANSCRIPT,
    SourceKind.AUDIO: SegmentKind.TRANSCRIPT,
    SourceKind.SUBTITLES: SegmentKind.TRANSCRIPT,
    SourceKind.SLIDES: SegmentKind.SLIDE,
    SourceKind.CODE: SegmentKind.CODE,
    SourceKind.NOTES: SegmentKind.NOTE,
}


def result_for(library: Library, link: Link) -> SearchResult:
    """The moment a link names, in the shape the preview opens.

    Raises:
        NotFoundError: no file of the library is the one the link names (even by content).
    """
    found = resolve_link(library, link)
    source = library.source(found.source)
    if source is None:  # resolve_link returns only files the library has
        raise CoursedexError(f"{found.source} is not in the library")
    return SearchResult(
        segment_id=0,
        source=source.path,
        source_kind=source.kind,
        kind=SegmentKind.SLIDE if found.page is not None else _SEGMENT_OF[source.kind],
        course=source.course,
        title=source.title,
        heading="",
        place=place_of(
            start_ms=found.start_ms,
            page=found.page,
            line_start=found.line,
            line_end=found.line,
            line=found.line,
            path_in_archive=found.member,
        ),
        snippet="",
        highlights=(),
        score=0.0,
        fulltext_rank=None,
        dense_rank=None,
    )


def open_link(window: MainWindow, text: str) -> bool:
    """Show the link's moment in ``window`` and bring the window to the front; a link that
    cannot be opened says why in the status line."""
    try:
        result = result_for(window.library, parse_link(text))
    except CoursedexError as e:
        log.info("link not opened: %s", e)
        window.search_pane.status.setText(f"Cannot open the link: {e}")
        to_front(window)
        return False
    window.open_result(result)
    where = location(result)
    window.search_pane.status.setText(f"Opened {result.title}" + (f" at {where}" if where else ""))
    to_front(window)
    return True


def to_front(window: MainWindow) -> None:
    if window.isMinimized():
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()
