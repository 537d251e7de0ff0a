"""How a note's place reads, the same in the editor, the Notes panel and the player's button:
``lecture-01 · 12:34``, ``slides · p. 5``, ``code.zip/sort.py:42``, ``notes.md:7``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.api import Note, clock

GONE = "no longer in the library"


def place_text(
    title: str,
    path: str,
    *,
    at_ms: int | None = None,
    page: int | None = None,
    line: int | None = None,
    member: str | None = None,
) -> str:
    """A lecture's time and a deck's page follow its title; a line follows the file's name
    (and the archive member's), as an editor names a place in code."""
    if at_ms is not None:
        return f"{title} · {clock(at_ms)}"
    if page is not None:
        return f"{title} · p. {page}"
    if member is None and line is None:
        return title
    name = "/".join(part for part in (Path(path).name, member) if part)
    return f"{name}:{line}" if line is not None else name


def note_place(note: Note) -> str:
    """Where ``note`` is, for a person; a note whose file left the library says so (named
    where the file was last seen)."""
    path, place = note.source_path or note.last_path, note.place
    title = note.source_title or (Path(path).stem if path else "a file")
    where = place_text(
        title,
        path,
        at_ms=place.at_ms,
        page=place.page,
        line=place.line,
        member=place.path_in_archive,
    )
    return where if note.source_path is not None else f"{where} ({GONE})"


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a note is about to be added: a file of the library (its path as the library
    knows it) and a place in it (none: the whole file)."""

    source: str
    title: str
    at_ms: int | None = None
    page: int | None = None
    line: int | None = None
    member: str | None = None

    def text(self) -> str:
        return place_text(
            self.title,
            self.source,
            at_ms=self.at_ms,
            page=self.page,
            line=self.line,
            member=self.member,
        )
