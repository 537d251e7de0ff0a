"""A file a pack's course expected, pointed at by the user ("Locate…", ``coursedex pack
locate``): taken only when its content is the file's (sha256), then linked in place of the
path where it was expected. Its index, notes and links stay: they follow the content."""

from __future__ import annotations

from pathlib import Path

from engine.errors import CoursedexError, NotFoundError, UnreadableFileError
from engine.library import Library
from engine.packs.media import same_content
from engine.regular_files import regular_file
from engine.store import Source


def locate_file(library: Library, expected: str, file: Path) -> Source:
    """Link the library's record at ``expected`` to ``file``; returns the record after.

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
        return source
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
    return moved
