"""Damage at rest to a library's database (issue 34, item 5), and a disk that fills while
it is written (item 9).

One 4 KB page of ``library.db`` overwritten, as a bad sector or a restore gone wrong
leaves it: the header and the schema are whole, so the database opens and most reads work;
SQLite's check finds it. Every command that writes must refuse such a library in one line,
exit 1, and leave it as it was (tests/engine/library/test_damaged_writes.py).

``PAGE_DAMAGE`` names the table or index whose first page is overwritten: those that no
import, note or removal reads before it writes (the tester's case: imports, pack imports,
notes and removals wrote to such a library with exit 0), and one that some do.
``overwrite_page`` also takes a page by number: the middle of the file, where the tester
wrote.

``FREE_BYTES``: how much room :func:`fill` leaves on a small file system (1 MB) holding a
new library, before an import of a short subtitled lecture or a course pack: the disk fills
at a different write each time (the file's row, its text, its screen text, the vector
index). Each ends in one line and the right exit status, with no file left "indexing"
(tests/engine/library/test_one_line_failures.py).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np

# A case's name: the table or index whose root page is garbage (None: the file's middle page).
PAGE_DAMAGE: dict[str, str | None] = {
    "slide links": "slide_links",
    "the index of sources by content": "sources_sha256",
    "the notes' index": "notes_sha256",
    "the full-text index": "segments_fts_idx",
    "the middle of the file": None,
}


FREE_BYTES = (50_000, 80_000, 120_000, 150_000, 180_000)


def fill(disk: Path, leave: int) -> Path:
    """Fill the file system at ``disk`` until ``leave`` bytes are free; returns the filler
    (delete it to free the room again)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    written = 0
    try:
        while True:
            written += os.write(fd, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.ftruncate(fd, max(0, written - leave))
        os.close(fd)
    return filler


def root_page(db: Path, name: str) -> int:
    """The first page (1-based) of table or index ``name``."""
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        found = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,))
        row = found.fetchone()
    finally:
        conn.close()
    if row is None or not row[0]:
        raise ValueError(f"{db} has no table or index {name!r}")
    return int(row[0])


def page_size(db: Path) -> int:
    """The page size a database file's header records (bytes 16-17; 1 means 65536)."""
    with db.open("rb") as f:
        f.seek(16)
        size = int.from_bytes(f.read(2), "big")
    return 65536 if size == 1 else size


def overwrite_page(db: Path, target: str | None, seed: int = 5) -> int:
    """Overwrite with random bytes the root page of ``target`` (a table or index name), or
    with None the page in the middle of the file; returns the page's number. The database
    must be closed with its write-ahead log checkpointed (else the log hides the damage)."""
    size = page_size(db)
    pages = db.stat().st_size // size
    number = root_page(db, target) if target is not None else max(2, pages // 2)
    with db.open("r+b") as f:
        f.seek((number - 1) * size)
        f.write(np.random.default_rng(seed).bytes(size))
    return number
