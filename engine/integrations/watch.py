"""Watch folders: a course can follow its folder, so what is added there becomes searchable
without a click, and what is changed is indexed again.

Polling, not file-system events: a scan every few seconds stats the followed folders (one
``stat`` per file; nothing is read unless its size or time changed), works the same on every
OS and on network shares, and needs no dependency. A file still being written (modified in
the last ``settle_s`` seconds) waits for the next scan. A file removed from the folder is
reported missing and keeps its place in the library (the panel shows it missing, and a file
put back is found again); only the user removes things.

Which courses follow their folder is kept in the library (:meth:`Library.follow`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CoursedexError
from engine.importing.planning import plan
from engine.importing.progress import IngestReport

if TYPE_CHECKING:
    from engine.library import Library

log = logging.getLogger(__name__)

INTERVAL_S = 5.0
SETTLE_S = 2.0


def followed(library: Library) -> list[str]:
    """The courses that follow their folder (and still have one)."""
    return [c.name for c in library.courses() if c.root and library.follows(c.name)]


@dataclass(frozen=True, slots=True)
class WatchReport:
    """What one scan did: the import of what was new or changed (None: nothing was), and the
    files found gone from their folder since the last scan."""

    imported: IngestReport | None = None
    missing: tuple[str, ...] = ()
    courses: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return self.imported is not None or bool(self.missing)


class FolderWatcher:
    """Scans the followed courses' folders, on a thread of its own once started.

    ``on_report`` is called from that thread after a scan that changed something.
    """

    def __init__(
        self,
        library: Library,
        *,
        interval_s: float = INTERVAL_S,
        settle_s: float = SETTLE_S,
        on_report: Callable[[WatchReport], None] | None = None,
    ) -> None:
        self.library = library
        self.interval_s = interval_s
        self.settle_s = settle_s
        self.on_report = on_report
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # (size, mtime) of each file as last handled: a file whose content the library
        # already has under a new time, or a duplicate, is not read again at every scan.
        self._handled: dict[str, tuple[int, int]] = {}
        self._missing: set[str] = set()

    def scan(self) -> WatchReport:
        """One pass over every followed folder: import what is new or changed, note what is
        gone. Stops early (what is left waits) when :meth:`stop` is called."""
        courses = followed(self.library)
        imported: IngestReport | None = None
        missing: list[str] = []
        for course in courses:
            if self._stop.is_set():
                break
            root = next((c.root for c in self.library.courses() if c.name == course), None)
            if not root or not Path(root).is_dir():
                continue
            due, gone = self._changes(course, Path(root))
            missing += gone
            if due:
                report = self.library.ingest(due, course=course, cancel=self._stop)
                for path in due:
                    self._remember(path)
                imported = _merged(imported, report)
        if imported is not None:
            log.info("watched folders: %s", _summary(imported))
        return WatchReport(imported, tuple(missing), tuple(courses))

    def _changes(self, course: str, root: Path) -> tuple[list[Path], list[str]]:
        known = {s.path: s for s in self.library.sources(course)}
        now = time.time()
        due: list[Path] = []
        for planned in plan([root], course):
            path = str(planned.path)
            try:
                st = planned.path.stat()
            except OSError:
                continue
            if 0 <= now - st.st_mtime < self.settle_s:
                continue  # still being written (or copied in): next scan (a clock ahead is not)
            stat = (st.st_size, st.st_mtime_ns)
            source = known.get(path)
            if self._handled.get(path) == stat:
                continue
            # A time of 0 is not the file's (a course pack's file not here): it is read.
            if source is not None and source.mtime_ns and (source.size, source.mtime_ns) == stat:
                self._handled[path] = stat
                continue
            due.append(planned.path)
        gone = [p for p in known if _inside(p, root) and not os.path.exists(p)]
        new_gone = [p for p in gone if p not in self._missing]
        self._missing = (self._missing - set(known)) | set(gone)
        return due, new_gone

    def _remember(self, path: Path) -> None:
        try:
            st = path.stat()
        except OSError:
            return
        self._handled[str(path)] = (st.st_size, st.st_mtime_ns)

    # --- the thread ------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="coursedex-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop scanning (an import under way is cancelled between files); True when the
        thread has ended within ``timeout_s``."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is None:
            return True
        thread.join(timeout_s)
        return not thread.is_alive()

    def _run(self) -> None:
        # The first scan waits one interval: the window's start (and its imports) go first.
        while not self._stop.wait(self.interval_s):
            try:
                report = self.scan()
            except CoursedexError as e:  # a busy or read-only library: try again later
                log.info("watched folders not scanned: %s", e)
            except Exception:
                log.warning("watched folders: the scan failed", exc_info=True)
            else:
                if report.changed and self.on_report is not None and not self._stop.is_set():
                    self.on_report(report)


def _inside(path: str, root: Path) -> bool:
    try:
        return Path(path).is_relative_to(root)
    except ValueError:
        return False


def _merged(a: IngestReport | None, b: IngestReport) -> IngestReport:
    if a is None:
        return b
    return IngestReport(a.files + b.files, a.seconds + b.seconds)


def _summary(report: IngestReport) -> str:
    counts: dict[str, int] = {}
    for f in report.files:
        counts[f.outcome.value] = counts.get(f.outcome.value, 0) + 1
    return ", ".join(f"{n} {what}" for what, n in counts.items())
