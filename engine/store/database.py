"""The library database's one connection: opening, its lock, transactions, named rows.

Every table group (:mod:`engine.store.courses`, ``segments``, ``embeddings``,
``recordings``, ``meta``) works through one :class:`Database`, so they share the lock and
the transaction. Transactions and the plain table writes and reads are sqlite-utils'
(:attr:`Database.lite`); the named rows of hand-written queries are this module's.
"""

from __future__ import annotations

import collections
import functools
import itertools
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeAlias

import sqlite_utils
from sqlite_utils.db import Table

from engine.errors import LibraryDamagedError, LibraryError
from engine.store.schema import READABLE_VERSION, SCHEMA_VERSION, migrate

# A row read by column name: ``row.start_ms``. A named tuple made per column list, not
# sqlite3.Row, whose lookup by name scans the columns each time (search reads hundreds of
# segment rows per query: this keeps that as fast as reading by position).
Record: TypeAlias = Any


# SQLite's "database disk image is malformed" and "file is not a database".
_DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _is_damage(error: sqlite3.DatabaseError) -> bool:
    return getattr(error, "sqlite_errorcode", 0) & 0xFF in _DAMAGED


def _damaged(path: Path | str, error: sqlite3.DatabaseError | str) -> LibraryDamagedError:
    return LibraryDamagedError(
        f"the library database {path} is damaged ({error}): it may have been cut short by a "
        "full disk or a copy that did not finish, or a disk sector went bad. Restore it from "
        "a backup, or start over: the files it held are imported again, and the damaged files "
        "kept. Nothing was changed"
    )


def _full(path: Path | str) -> LibraryError:
    # The words of engine.importing.files.failure_reason, which an import's report shows.
    return LibraryError(
        f"disk full: the library database {path} cannot grow; free some space and try again"
    )


# SQLite's "database or disk is full", and its shared-memory file (-shm) that could not grow
# as the library opened (a "disk I/O error" that is a full disk).
_SHM_FULL = getattr(sqlite3, "SQLITE_IOERR_SHMSIZE", 4874)


def database_full(error: BaseException) -> bool:
    """Whether ``error`` is SQLite's "database or disk is full" (for a caller that reports
    a failure without knowing SQLite: the import's one line for a file)."""
    code = getattr(error, "sqlite_errorcode", 0) if isinstance(error, sqlite3.Error) else 0
    return code & 0xFF == sqlite3.SQLITE_FULL


def _is_full(error: sqlite3.Error) -> bool:
    return database_full(error) or getattr(error, "sqlite_errorcode", 0) == _SHM_FULL


@functools.lru_cache(maxsize=256)
def _record_type(names: tuple[str, ...]) -> type[Any]:
    return collections.namedtuple("Record", names, rename=True)


def _record(row: dict[str, Any]) -> Record:
    return _record_type(tuple(row))._make(row.values())


def _column_names(cursor: sqlite3.Cursor) -> tuple[str, ...]:
    return tuple(column[0] for column in cursor.description)


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _connect_read_only(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    conn = sqlite3.connect(
        f"{uri}?mode=ro", uri=True, check_same_thread=False, timeout=30.0, isolation_level=None
    )
    try:
        conn.execute("PRAGMA user_version").fetchone()
        return conn
    except sqlite3.OperationalError:
        # A WAL database needs its -shm file, which a read-only folder cannot get.
        conn.close()
    return sqlite3.connect(
        f"{uri}?immutable=1",
        uri=True,
        check_same_thread=False,
        timeout=30.0,
        isolation_level=None,
    )


def _lite(conn: sqlite3.Connection) -> sqlite_utils.Database:
    """sqlite-utils over our connection. It turns recursive triggers on: a REPLACE that
    deletes a segment must fire its delete trigger too, or the FTS index keeps the old
    text. Its plugins stay off: nothing installed elsewhere may change the library's
    connection."""
    return sqlite_utils.Database(conn, execute_plugins=False)


def _use_wal(lite: sqlite_utils.Database, wait_s: float = 30.0) -> None:
    """Switch to write-ahead logging. SQLite answers "database is locked" at once, without
    waiting, while another process opening the same new library switches it: try again
    until that one is done."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            lite.enable_wal()
            return
        except sqlite3.OperationalError as e:
            busy = getattr(e, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class Database:
    """One SQLite connection shared between threads: every call holds :attr:`lock` briefly.

    Rows come back as :data:`Record` (read by column name); the connection itself keeps
    plain tuples for callers that query it directly.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | str = ":memory:",
        lite: sqlite_utils.Database | None = None,
    ) -> None:
        self.conn = conn
        self.path = path
        self.lite = _lite(conn) if lite is None else lite
        self.lock = threading.RLock()
        # Bumped after every transaction: readers cache statistics per generation (search's
        # document frequencies) and drop them when it moves.
        self._generation = 0
        self._data_version: int | None = None
        self._outside = 0

    @property
    def generation(self) -> int:
        """Moves after every transaction here, and when another process has committed."""
        return self._generation + self.outside_commits()

    def outside_commits(self) -> int:
        """How many times another connection (another process importing into the library)
        was seen to have committed since this one opened; SQLite's data_version tells."""
        with self._using():
            version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
            if version != self._data_version:
                if self._data_version is not None:
                    self._outside += 1
                self._data_version = version
            return self._outside

    @classmethod
    def open(cls, path: Path | str, *, read_only: bool = False) -> Database:
        """Open (or create) a library database and migrate it to the current schema.
        ``read_only``: open it for reading only, changing nothing, not even its journal (on
        a read-only folder or mount, where SQLite cannot make its shared-memory file, as an
        immutable file: nothing else can write it there either).

        Raises:
            LibraryError: the file is not a Coursedex database, is newer than this program,
                or (read only) is older and would need an upgrade.
        """
        conn: sqlite3.Connection | None = None
        lite: sqlite_utils.Database | None = None
        try:
            if read_only:
                conn = _connect_read_only(Path(path))
            else:
                conn = sqlite3.connect(
                    str(path), check_same_thread=False, timeout=30.0, isolation_level=None
                )
            lite = _lite(conn)
            if str(path) != ":memory:" and not read_only:
                _use_wal(lite)
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            if not read_only:
                migrate(conn)
            elif not READABLE_VERSION <= _user_version(conn) <= SCHEMA_VERSION:
                raise LibraryError(
                    f"the library database {path} is read-only and was written by another "
                    "version of Coursedex: it cannot be opened until it can be upgraded"
                )
        except (sqlite3.DatabaseError, LibraryError) as e:
            if conn is not None:
                conn.close()
            if isinstance(e, LibraryError):
                raise
            if isinstance(e, sqlite3.DatabaseError) and _is_damage(e):
                raise _damaged(path, e) from e
            if isinstance(e, sqlite3.DatabaseError) and _is_full(e):
                raise _full(path) from e
            raise LibraryError(f"cannot open library database {path}: {e}") from e
        return cls(conn, path, lite)

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    def refuse_if_damaged(self) -> None:
        """SQLite's quick check of the whole file: a page overwritten where no read of a
        write goes (a bad sector, a restore gone wrong) is found before anything is written
        over it. It reads every page once (bench/quick_check.py: 1 ms for the demo course,
        3.8 s for a degree's 2.1 GB warm, about a minute from a slow disk cold), so a
        process runs it once, before its first write, and never to read.

        Raises:
            LibraryDamagedError: the check found the database damaged, in the words a read
                that meets a damaged page uses.
        """
        # On a connection of its own: the shared one's lock stays free for searches meanwhile.
        own: sqlite3.Connection | None = None
        try:
            if str(self.path) != ":memory:":
                own = _connect_read_only(Path(self.path))
            found = (own or self.conn).execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as e:  # a page the check cannot even read
            if _is_damage(e):
                raise _damaged(self.path, e) from e
            raise
        finally:
            if own is not None:
                own.close()
        if found != [("ok",)]:
            raise _damaged(self.path, "database disk image is malformed")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All writes inside commit together or roll back together, and the error is
        re-raised (sqlite-utils' atomic). A block inside another is a savepoint: it rolls
        back only its own writes."""
        with self.lock:
            try:
                with self.lite.atomic():
                    yield
            except sqlite3.OperationalError as e:  # at COMMIT: the last pages did not fit
                if _is_full(e):
                    raise _full(self.path) from e
                raise
            finally:
                self._generation += 1

    @contextmanager
    def _using(self) -> Iterator[None]:
        """Hold the lock; a page found damaged (a bad sector, a file cut short where the
        header is whole) or a full disk is a LibraryError saying so, not a traceback.

        Raises:
            LibraryError: SQLite found the database damaged, or the disk full.
        """
        with self.lock:
            try:
                yield
            except sqlite3.DatabaseError as e:
                if _is_damage(e):
                    raise _damaged(self.path, e) from e
                if _is_full(e):
                    raise _full(self.path) from e
                raise

    # --- sqlite-utils: one table's plain writes and reads -----------------------------------

    def table(self, name: str) -> Table:
        """sqlite-utils' view of one table; use it under :attr:`lock` (the helpers below do)."""
        return self.lite.table(name)

    def insert_all(
        self,
        name: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[object]],
        *,
        replace: bool = False,
    ) -> None:
        """Insert ``rows`` (values in the order of ``columns``) in batches; ``replace``: a
        row whose key is taken is replaced. Inside a transaction, a savepoint of it."""
        with self._using():
            self.table(name).insert_all(itertools.chain([list(columns)], rows), replace=replace)

    def rows_where(
        self,
        name: str,
        where: str | None = None,
        args: Sequence[object] = (),
        *,
        select: str = "*",
        order_by: str | None = None,
        limit: int | None = None,
    ) -> list[Record]:
        """The rows of one table that match ``where``, each read by column name."""
        with self._using():
            found = self.table(name).rows_where(
                where, list(args), select=select, order_by=order_by, limit=limit
            )
            return [_record(row) for row in found]

    def delete_where(
        self, name: str, where: str | None = None, args: Sequence[object] = ()
    ) -> None:
        """Delete the rows of one table that match ``where`` (all without it)."""
        with self._using():
            self.table(name).delete_where(where, list(args))

    # --- hand-written SQL --------------------------------------------------------------------

    def execute(self, sql: str, args: Sequence[object] = ()) -> sqlite3.Cursor:
        with self._using():
            return self.conn.execute(sql, tuple(args))

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        with self._using():
            self.conn.executemany(sql, rows)

    def rows(self, sql: str, args: Sequence[object] = ()) -> list[Record]:
        """Every row of ``sql``, each read by column name (``row.start_ms``)."""
        with self._using():
            cursor = self.conn.execute(sql, tuple(args))
            found = cursor.fetchall()
        make = _record_type(_column_names(cursor))._make
        return [make(values) for values in found]

    def row(self, sql: str, args: Sequence[object] = ()) -> Record | None:
        """The first row of ``sql`` (None when there is none)."""
        with self._using():
            cursor = self.conn.execute(sql, tuple(args))
            values = cursor.fetchone()
        return None if values is None else _record_type(_column_names(cursor))._make(values)

    def value(self, sql: str, args: Sequence[object] = ()) -> Any:
        """The single value of a one-column, one-row query (None when there is no row)."""
        with self._using():
            found = self.conn.execute(sql, tuple(args)).fetchone()
        return None if found is None else found[0]

    def ids_in(self, sql: str, ids: Sequence[int], chunk: int = 900) -> Iterator[Record]:
        """The rows of ``sql`` (which ends in ``IN ({marks})``) for the given ids, asking
        for at most ``chunk`` at a time (SQLite caps the number of parameters)."""
        for start in range(0, len(ids), chunk):
            part = ids[start : start + chunk]
            yield from self.rows(sql.format(marks=",".join("?" * len(part))), part)
