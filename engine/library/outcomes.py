"""What the library's writing calls return when they have more to say than their
:class:`~engine.changes.Changes`: the count a removal removed, the files a language set
queues again, the note added. Each carries the changes of its call, as
:class:`~engine.importing.progress.IngestReport` does an import's."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from engine.changes import NOTHING, Changes
from engine.notes import Note


@dataclass(frozen=True, slots=True)
class Removal:
    """A course or file removed (:meth:`~engine.library.facade.Library.remove`)."""

    count: int  # sources removed
    changes: Changes


@dataclass(frozen=True, slots=True)
class LanguageSet:
    """A language set (:meth:`~engine.library.facade.Library.set_language`): ``again`` are
    the files to import again with ``resume(paths=...)``."""

    again: list[Path]
    changes: Changes


@dataclass(frozen=True, slots=True, eq=False)
class AddedNote(Note):
    """The note :meth:`add_note` added, with what adding it changed. Equal to the same note
    listed by :meth:`notes` (the changes are of the call, not of the note)."""

    changes: Changes = field(default=NOTHING)

    @classmethod
    def of(cls, note: Note, changes: Changes) -> AddedNote:
        return cls(**{f.name: getattr(note, f.name) for f in fields(Note)}, changes=changes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Note):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(Note))

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in fields(Note)))
