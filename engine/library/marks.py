"""What another process changed in the library (a terminal's ``coursedex ingest``, a second
window, ``coursedex remove``), from two readings of its marks (each file's course, state
and content: :meth:`~engine.library.records.Records.marks`), told as the
:class:`~engine.changes.Changes` this process's own calls return."""

from __future__ import annotations

from engine.changes import Changes
from engine.store import LibraryMarks
from engine.types import SourceStatus

MANY_GONE = 20  # more files gone than this: one read of the whole library, not a row each


def changes_between(before: LibraryMarks, after: LibraryMarks) -> Changes:
    """What brings a view of the library read at ``before`` to ``after`` (notes are not
    marked: :meth:`~engine.library.records.Records.changes_since` says they may differ)."""
    gone_courses = before.courses - after.courses
    gone = [path for path in before.files if path not in after.files]
    one_by_one = [p for p in gone if before.files[p].course not in gone_courses]
    changed = [path for path, mark in after.files.items() if before.files.get(path) != mark]
    empty_new = after.courses - before.courses - {m.course for m in after.files.values()}
    indexed = any(after.files[p].status == SourceStatus.INDEXED.value for p in changed)
    return Changes(
        added=tuple(p for p in changed if p not in before.files),
        changed=tuple(p for p in changed if p in before.files),
        removed=tuple(gone),
        courses_removed=tuple(sorted(gone_courses)),
        results=bool(gone or gone_courses or indexed),
        # A course made empty or renamed has no row to tell it by; many files gone are
        # read faster as a whole.
        whole=bool(empty_new) or len(one_by_one) > MANY_GONE,
    )
