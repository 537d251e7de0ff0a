"""A damaged library database read as far as SQLite can, read-only, for starting it over
(engine.library.recovery): whether it passes SQLite's quick check, which courses and files
it listed, and the user's notes it held. Each read goes row by row until SQLite cannot read
on, and says whether it reached the end; nothing here ever writes to the file."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.store.notes import NoteRow


@dataclass(frozen=True, slots=True)
class HeldFile:
    """A file the damaged library listed, with its course (None: the name was unreadable)."""

    path: str
    course: str | None


@dataclass(frozen=True, slots=True)
class HeldCourse:
    """A course of the damaged library: its folder (None: imported file by file) and whether
    it followed that folder."""

    name: str
    root: str | None
    follows: bool


def fails_check(db: Path) -> bool:
    """Whether the database fails SQLite's quick check, or cannot be opened at all."""
    try:
        with _read_only(db) as conn:
            return conn.execute("PRAGMA quick_check").fetchall() != [("ok",)]
    except sqlite3.DatabaseError:
        return True


@contextlib.contextmanager
def _read_only(db: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    try:
        yield conn
    finally:
        conn.close()


def read_held(db: Path, follow_key: str) -> tuple[list[HeldFile], list[HeldCourse], bool]:
    """The files and courses the database lists, row by row until SQLite cannot read on,
    and whether it read them to the end. A course follows its folder when the meta table
    holds ``follow_key`` + its case-folded name with the value "1"."""
    held: list[HeldFile] = []
    courses: dict[int, HeldCourse] = {}
    if not db.exists() or db.stat().st_size == 0:
        return held, [], False
    try:
        with _read_only(db) as conn:
            follows: set[str] = set()
            with contextlib.suppress(sqlite3.DatabaseError):
                for key, value in conn.execute("SELECT key, value FROM meta"):
                    if str(key).startswith(follow_key) and value == "1":
                        follows.add(str(key).removeprefix(follow_key))
            with contextlib.suppress(sqlite3.DatabaseError):
                for course_id, name, root in conn.execute("SELECT id, name, root FROM courses"):
                    if isinstance(name, str) and name:
                        root = root if isinstance(root, str) and root else None
                        courses[course_id] = HeldCourse(name, root, name.casefold() in follows)
            for course_id, path in conn.execute("SELECT course_id, path FROM sources"):
                if isinstance(path, str) and path:
                    known = courses.get(course_id)
                    held.append(HeldFile(path, known.name if known else None))
    except sqlite3.DatabaseError:
        return held, list(courses.values()), False
    return held, list(courses.values()), True


def read_notes(db: Path) -> list[NoteRow]:
    """The user's notes the database holds, row by row until SQLite cannot read on (none
    from a library made before notes, or whose notes table is unreadable)."""
    notes: list[NoteRow] = []
    if not db.exists() or db.stat().st_size == 0:
        return notes
    with contextlib.suppress(sqlite3.DatabaseError), _read_only(db) as conn:
        rows = conn.execute(
            "SELECT course, sha256, path_in_archive, at_ms, page, line, text, created, "
            "last_path, last_title FROM notes ORDER BY id"
        )
        for course, sha, member, at_ms, page, line, text, created, path, title in rows:
            if isinstance(sha, str) and isinstance(text, str) and text.strip():
                notes.append(
                    NoteRow(
                        0,
                        str(course or ""),
                        sha,
                        member,
                        at_ms,
                        page,
                        line,
                        text,
                        float(created or 0),
                        str(path or ""),
                        str(title or ""),
                    )
                )
    return notes
