"""Which files an import reads, and in which course: :func:`plan`.

A folder is a course of its name; loose files go to the course given or to "Unsorted".
Subtitles beside a lecture are its transcript; hidden files are left out; names the library
cannot record are kept for the import to refuse with a reason (:func:`storable`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine import ingest
from engine.types import SourceKind

UNSORTED = "Unsorted"  # the course of loose files dropped without a course name
MEDIA = (SourceKind.VIDEO, SourceKind.AUDIO)
BAD_NAME = "its name is not valid text (UTF-8): rename the file to import it"


@dataclass(frozen=True, slots=True)
class PlannedFile:
    path: Path
    course: str
    course_root: str | None
    kind: SourceKind


def plan(paths: Iterable[Path | str], course: str | None = None) -> list[PlannedFile]:
    """The files an ingest of ``paths`` would read. A folder becomes a course of its
    name; loose files go to ``course`` or "Unsorted". Subtitles beside a media file of
    the same name in the same ingest are that file's transcript, not sources of their own.
    Videos and audio come last, so everything else is searchable while they transcribe."""
    planned: list[PlannedFile] = []
    for raw in paths:
        given = resolved(Path(raw), expand=True, resolve=False)
        path = resolved(given)
        if path.is_dir():
            name = course or path.name
            files = sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p, path))
            root: str | None = str(path)
        else:
            # A file keeps the name it was given: a link is not its target (as in a folder,
            # where the files found keep their own names too).
            path = resolved(given.absolute().parent) / given.name
            name, files, root = course or UNSORTED, [path], None
        for f in files:
            kind = ingest.classify(f)
            if kind is None:
                if not path.is_dir():
                    planned.append(PlannedFile(f, name, root, SourceKind.NOTES))
                continue
            planned.append(PlannedFile(f, name, root, kind))
    return arranged(planned)


def arranged(planned: Iterable[PlannedFile]) -> list[PlannedFile]:
    """``planned`` once each, without the subtitles that are a lecture's transcript, and
    the lectures last."""
    planned = list(planned)
    media = (p.path for p in planned if p.kind in MEDIA)
    sidecars = {found for m in media if (found := ingest.find_sidecar(m)) is not None}
    unique: dict[Path, PlannedFile] = {p.path: p for p in planned if p.path not in sidecars}
    # Quick files first: notes, slides and code are searchable in seconds, while a video
    # can take minutes to transcribe.
    return sorted(unique.values(), key=lambda p: p.kind in MEDIA)


def resolved(path: Path, *, expand: bool = False, resolve: bool = True) -> Path:
    """``path`` with ``~`` expanded and links resolved where that can be done. A link loop
    or an unknown user's ``~`` stays as given (absolute): its import says why it cannot be
    read, instead of the whole import failing."""
    try:
        path = path.expanduser() if expand else path
        return path.resolve() if resolve else path
    except (RuntimeError, OSError):
        return path.absolute()


def storable(path: Path) -> bool:
    """False for a name the library cannot record: bytes that are not UTF-8 (possible on
    Linux) reach Python as lone surrogates, which SQLite refuses."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)
