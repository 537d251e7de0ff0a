"""What a zip holds, member by member, and whether it is course material or a code archive.

A learning platform's "Download all" is a zip of week folders: slides, notes, recordings, a
code archive. Such a zip is opened member by member (:mod:`engine.importing.unpacking`), each
member imported as its own kind. A zip of code stays one CODE source, as it always was
(:func:`engine.ingest.archive.parse_archive`).

The rule (:func:`holds_course_material`): a zip is course material when it holds a file of a
kind a code archive never held (slides, video, audio, subtitles, Word, OpenDocument, RTF or
e-book documents), or photos and no source code (a project's ``img/logo.png`` is no photo of
the board), unless it is plainly a source tree: a project file (``pyproject.toml``,
``package.json``, ``Makefile``...) at its root (or in the one folder all its files are in) and
more than half of its files source code. A project's ``docs/diagram.pdf`` keeps it code; a
course's ``Week 2/lab/Makefile`` beside its slides keeps it course material.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from engine.ingest.archive import skip_reason
from engine.ingest.kinds import (
    ARCHIVE_EXTENSIONS,
    AUDIO_EXTENSIONS,
    DOCUMENT_EXTENSIONS,
    PHOTO_EXTENSIONS,
    SLIDE_EXTENSIONS,
    SUBTITLE_EXTENSIONS,
    VIDEO_EXTENSIONS,
    classify,
)
from engine.types import SourceKind

# A zip in a zip in a zip is as deep as a course download goes (a week's folder of labs,
# each lab a zip); deeper is refused, named in the report.
MAX_NESTING = 3
PROJECT_FILES = frozenset(
    {"pyproject.toml", "setup.py", "setup.cfg", "package.json", "cargo.toml", "go.mod",
     "pom.xml", "build.gradle", "build.gradle.kts", "makefile", "cmakelists.txt", "gemfile",
     "requirements.txt", "composer.json", "meson.build", "build.sbt", ".gitignore"}
)  # fmt: skip
# Kinds of file no code archive is read for: a zip holding one is opened member by member.
MATERIAL_EXTENSIONS = (
    VIDEO_EXTENSIONS | AUDIO_EXTENSIONS | SUBTITLE_EXTENSIONS | SLIDE_EXTENSIONS
    | DOCUMENT_EXTENSIONS
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Member:
    """A file in a zip: its name ("/"-separated, as the zip spells it otherwise), and its
    kind (None: Coursedex reads no file of that kind)."""

    info: zipfile.ZipInfo
    name: str
    kind: SourceKind | None

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.name).suffix.lower()

    @property
    def is_archive(self) -> bool:
        return self.suffix in ARCHIVE_EXTENSIONS


def members(zf: zipfile.ZipFile) -> list[Member]:
    """The zip's files in name order: folders, repeated names, and what an archive carries
    that nobody wrote (``__MACOSX/``, ``._name``, ``.git/``, ``__pycache__/``) left out."""
    found: dict[str, Member] = {}
    for info in zf.infolist():
        name = info.filename.replace("\\", "/")
        if info.is_dir() or name in found or skip_reason(name) or name.endswith("/"):
            continue
        found[name] = Member(info, name, classify(PurePosixPath(name)))
    return sorted(found.values(), key=lambda m: m.name)


def holds_course_material(files: list[Member]) -> bool:
    """Whether the zip is course material to open member by member (see the module)."""
    sources = sum(1 for m in files if m.kind is SourceKind.CODE and not m.is_archive)
    photos = not sources and any(m.suffix in PHOTO_EXTENSIONS for m in files)
    if not photos and not any(m.suffix in MATERIAL_EXTENSIONS for m in files):
        return False
    # A project's file at its root: the zip's, or the one folder all its files are in (a
    # lab's Makefile in "Week 1/lab/" is a lab of the course, not the zip's project).
    tops = {m.name.split("/", 1)[0] for m in files if "/" in m.name}
    roots = {"", *tops} if len(tops) == 1 and all("/" in m.name for m in files) else {""}
    project = any(
        PurePosixPath(m.name).name.lower() in PROJECT_FILES and _folder(m.name) in roots
        for m in files
    )
    return not (project and sources * 2 > len(files))


def common_folder(files: list[Member]) -> str | None:
    """The one top folder every file is in, with folders of its own (Moodle's "Course
    name/Week 1/..."), or None: a zip of "Week 1/..." alone keeps its week in the places."""
    tops = {m.name.split("/", 1)[0] for m in files}
    if len(tops) != 1 or any(m.name.count("/") < 1 for m in files):
        return None
    if not any(m.name.count("/") >= 2 for m in files):
        return None
    return tops.pop()


def _folder(name: str) -> str:
    return name.rpartition("/")[0]
