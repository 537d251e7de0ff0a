"""A language the user sets for a file or a course, when the one found was wrong.

It is kept by the file's content (sha256, as notes are: importing or moving the file again
keeps it), what was heard or read in another language is forgotten, and the files are
queued to be imported again, each in its course: ``Library.resume(paths=...)`` imports them
with progress and cancel as any import (``coursedex relanguage`` does both).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from engine.errors import LibraryBusyError
from engine.store import Source, Store
from engine.types import SourceStatus


def choose_language(
    store: Store,
    sources: Sequence[Source],
    language: str | None,
    *,
    importing: Collection[str] = (),
) -> list[Path]:
    """Keep ``language`` (None: find it again) for each source's content and queue the
    sources to be imported again; returns their paths. A file never read (no content known
    yet) is left out: its next import finds its language; so is one already in ``language``
    (a detection the user confirms): its choice is kept, nothing is heard or read again.

    Raises:
        LibraryBusyError: their course is among those being imported (case-folded names).
    """
    if sources and sources[0].course.casefold() in importing:
        raise LibraryBusyError(f"{sources[0].course} is being imported: wait until it ends")
    again: list[Path] = []
    with store.transaction():
        for source in sources:
            if not source.sha256:
                continue
            store.recordings.choose_language(source.sha256, language)
            if language is not None and source.language == language:
                continue  # heard or read in it already: kept as the user's, nothing redone
            store.recordings.forget_transcript(source.sha256)
            store.catalog.set_source_status(source.id, SourceStatus.QUEUED, None)
            again.append(Path(source.path))
    return again
