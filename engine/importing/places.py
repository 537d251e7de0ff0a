"""Where a file taken out of a zip came from, as a user reads it (see
:mod:`engine.importing.unpacking` for where it is kept): its place in the zip
("Week 3/lecture.pdf"), and the zip's members an import left out, named zip by zip."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath

from engine.importing.progress import FileResult, Outcome
from engine.plain_text import plural, printable

ARCHIVES_FOLDER = "archives"
KEY = re.compile(r"~[0-9a-f]{12}$")
_NAMED = 3  # members named on the summary line; the report's lines name them all


def member_place(path: str | PurePath) -> tuple[str, str] | None:
    """For a file taken out of a zip: the zip's name and the member's place in it
    (``("course.zip", "Week 3/lecture.pdf")``); None for any other file."""
    parts = PurePath(path).parts
    for i in range(1, len(parts) - 1):
        if parts[i - 1] == ARCHIVES_FOLDER and KEY.search(parts[i]):
            return KEY.sub("", parts[i]), "/".join(parts[i + 1 :])
    return None


def shown_name(path: str | PurePath) -> str:
    """A file's name in a list of its course's files: a member's place in its zip
    ("Week 3/lecture.pdf"), any other file's name."""
    member = member_place(path)
    return member[1] if member is not None else PurePath(path).name


def shown_path(path: str | PurePath) -> str:
    """A file as a report names it: "course.zip: Week 3/lecture.pdf" for a member of a
    zip, the path itself for any other file."""
    member = member_place(path)
    return f"{member[0]}: {member[1]}" if member is not None else str(path)


def left_out(results: Iterable[FileResult]) -> dict[str, list[FileResult]]:
    """The members of zips that were not imported (left out, or failed), zip by zip."""
    found: dict[str, list[FileResult]] = {}
    for f in results:
        member = member_place(f.path) if f.outcome == Outcome.ERROR else None
        if member is not None:
            found.setdefault(member[0], []).append(f)
    return found


def not_imported_line(archive: str, files: list[FileResult]) -> str:
    """ "3 files in course.zip not imported: Week 3/a.pdf, Week 3/b.xyz, Week 4/c.bin" (a
    few named, then how many more)."""
    names = [printable(shown_name(f.path)) for f in files[:_NAMED]]
    if len(files) > _NAMED:
        names.append(f"{len(files) - _NAMED} more")
    what = plural(len(files), "file")
    return f"{what} in {printable(archive)} not imported: {', '.join(names)}"
