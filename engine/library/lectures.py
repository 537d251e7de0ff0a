"""What integrations (handouts, flashcards) read of a lecture or a deck the library holds,
by its record rather than its path: what was said, its chapters, a deck's pages, and what
was on screen when (the slide linked to a moment, where a page was shown, the keyframe's
thumbnail). Read only; :class:`~engine.library.facade.Library` hands it out as
``library.lectures`` so that integrations never reach its store."""

from __future__ import annotations

from engine.integrations import documents
from engine.store import Showing, SlideLink, SlidePage, Source, Store
from engine.types import Timing


class Lectures:
    """Reads of one library's lectures and decks from its ``store``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def transcript(self, lecture: Source) -> list[Timing]:
        """The spoken sentences (or subtitle cues) in time order, once each."""
        return documents.transcript(self._store, lecture)

    def chapters(self, lecture: Source) -> list[documents.Chapter]:
        return documents.chapters(self._store, lecture)

    def slide_pages(self, deck: Source) -> list[documents.SlidePage]:
        """A deck's pages as its import read them (titles and text)."""
        return documents.slide_pages(self._store, deck)

    def slide_links(self, lecture: Source) -> list[SlideLink]:
        """Where the lecture shows which page of which deck, in time order."""
        return self._store.recordings.slide_links(lecture.id)

    def slide_at(self, lecture: Source, at_ms: int) -> SlidePage | None:
        """The slide linked to the lecture's moment (None: none)."""
        return self._store.recordings.slide_at(lecture.id, at_ms)

    def shown_at(self, deck: Source, page: int) -> list[Showing]:
        """Where a deck's page is shown in the lectures linked to it."""
        return self._store.recordings.shown_at(deck.id, page)

    def thumbnail_at(self, lecture: Source, at_ms: int) -> str | None:
        """The name (in the library's thumbs/) of the keyframe shown at that moment."""
        return self._store.recordings.thumbnail_at(lecture.id, at_ms)
