"""What a call that writes to the library changed, told by the engine itself (issue 37).

It sits at the engine's base, beside engine/types.py: the import pipeline's report carries it
as the library's calls do.

Every mutating call of :class:`~engine.library.facade.Library` returns (or carries) one
:class:`Changes`: the files added, changed and removed, the courses removed and renamed, the
notes added or removed, and whether search results may differ. A caller never rebuilds it
from what it asked for: the window relays it unchanged on its ``library_changed``
notification and each view refreshes only what it names. Two of them made by different calls
are merged with ``|``. Modelled on Anki's ``OpChanges`` (rslib/src/ops.rs), which each
collection operation returns so the screens know what to redraw.

``whole`` is for a change not told row by row (an import that failed as a whole, courses
renamed by another process): whoever shows the library reads all of it again.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


def _merged(a: tuple[object, ...], b: tuple[object, ...]) -> tuple[object, ...]:
    return tuple(dict.fromkeys(a + b))  # both, in order, once each


@dataclass(frozen=True, slots=True)
class Changes:
    """What one call changed. Every field empty (and the flags False): nothing changed."""

    added: tuple[str, ...] = ()  # file paths new to the library (queued, indexed or failed)
    changed: tuple[str, ...] = ()  # files whose stored state or content changed
    removed: tuple[str, ...] = ()  # file paths no longer in the library
    courses_removed: tuple[str, ...] = ()  # course names no longer in the library
    courses_renamed: tuple[tuple[str, str], ...] = ()  # (old name, new name)
    notes_added: tuple[int, ...] = ()  # note ids
    notes_removed: tuple[int, ...] = ()  # note ids
    notes_moved: bool = False  # notes follow a file or course (renamed, removed, re-imported)
    results: bool = False  # search results may differ (something indexed or removed)
    whole: bool = False  # not told row by row: read the whole library again

    def __or__(self, other: Changes) -> Changes:
        values: dict[str, object] = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            values[f.name] = (mine or theirs) if isinstance(mine, bool) else _merged(mine, theirs)
        return Changes(**values)  # type: ignore[arg-type]

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    @property
    def files(self) -> tuple[str, ...]:
        """The files whose rows are new or to be read again (added or changed)."""
        return tuple(dict.fromkeys(self.added + self.changed))

    @property
    def notes(self) -> bool:
        """Whether a list of notes shown is out of date."""
        return bool(self.notes_added or self.notes_removed or self.notes_moved or self.whole)


NOTHING = Changes()
