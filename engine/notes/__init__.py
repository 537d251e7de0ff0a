"""A user's notes on moments: a note attached to a place in a file (a lecture's time, a
slide's page, a line of code or of a note), kept when the file is imported again or moved,
found by search as its own kind (``bookmark``) and removed only by the user.

    places.py   Place and Note (what the API hands out), and the checks of a place
                against its file (a time within the lecture, a page within the deck, ...)

The notes are stored by :mod:`engine.store.notes` and written by the indexer (a note is also
a segment of its file, so search needs nothing of its own); :class:`engine.library.Library`
adds, lists and removes them (``add_note``, ``notes``, ``remove_note``).
"""

from engine.notes.places import (
    Extent,
    Note,
    NoteError,
    Place,
    check_place,
    note_from,
    note_json,
    note_order,
    note_text,
    place_text,
)

__all__ = [
    "Extent",
    "Note",
    "NoteError",
    "Place",
    "check_place",
    "note_from",
    "note_json",
    "note_order",
    "note_text",
    "place_text",
]
