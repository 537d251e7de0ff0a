"""A file a pack's course expected, pointed at by the user ("Locate…", ``coursedex pack
locate``): taken only when its content is the file's (sha256), then linked in place of the
path where it was expected. Its index, notes and links stay: they follow the content."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.changes import Changes
from engine.errors import CoursedexError, NotFoundError, UnreadableFileError
from engine.library import Library
from engine.packs.media import same_content
from engine.regular_files import regular_file
from engine.store import Source


@dataclass(frozen=True, slots=True)
class Located:
    """A file located: the library's record after, and what linking it changed."""

    source: Source
    changes: Changes


def locate_file(library: Library, expected: str, file: Path) -> Located:
    """Link the library's record at ``expected`` to ``file``; returns the record after,
    with the changes (the record moved from one path to the other; its notes follow).

    Raises:
        NotFoundError: nothing in the library is at ``expected``.
        CoursedexError: ``file`` is not the same content, or is another file of the library.
        LibraryError: the library is read-only or another process is importing.
    """
    source = library.source(expected)
    if source is None:
        raise NotFoundError(f"{expected} is not in the library")
    chosen = file.expanduser().resolve()
    if str(chosen) == source.path:
        return Located(source, Changes())
    try:
        regular_file(chosen)
    except UnreadableFileError as e:
        raise CoursedexError(str(e)) from None
    if source.sha256 is None or not same_content(
        chosen, source.sha256, source.size or chosen.stat().st_size, source.kind
    ):
        raise CoursedexError(
            f"{chosen.name} is not {Path(source.path).name}: its content differs from the file "
            "the course was indexed from (sha256)"
        )
    other = library.source(str(chosen))
    if other is not None:
        raise CoursedexError(f"{chosen} is already in the library (course {other.course!r})")
    library.pack_port.relink(source, str(chosen))
    moved = library.source(str(chosen))
    if moved is None:  # removed by another process meanwhile
        raise NotFoundError(f"{expected} is not in the library")
    # Its row moves from one path to the other; its hits open the file where it is now.
    return Located(moved, Changes(changed=(expected, moved.path), notes_moved=True, results=True))
