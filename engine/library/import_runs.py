"""An import run in a library, with its :class:`~engine.importing.session.ImportSession`:
the session holds what the run holds while it runs; as it ends, the removals asked during
it are carried out, and its report says what the run and they changed."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from engine.config import EngineConfig
from engine.errors import CoursedexError, NotFoundError
from engine.importing.pipeline import ImportJob, Pipeline
from engine.importing.progress import IngestProgress, IngestReport, RemovedAfter
from engine.importing.session import ImportSession, import_changes
from engine.library.outcomes import Removal

log = logging.getLogger(__name__)


def run_jobs(
    pipeline: Pipeline,
    session: ImportSession,
    config: EngineConfig,
    jobs: Sequence[ImportJob],
    progress: Callable[[IngestProgress], None] | None,
    cancel: threading.Event | None,
    remove: Callable[[str], Removal],
) -> IngestReport:
    """Run ``jobs``; ``remove`` removes a target under the run's write lock as it ends."""
    told = None if progress is None else _telling(session, progress)
    session.begin(jobs)
    after = IngestReport()
    try:
        report = pipeline.run(jobs, config, told, cancel)
    finally:
        remove_after(session, after, remove)
    report.changes = import_changes(jobs, report) | after.changes
    report.removed_after = after.removed_after
    return report


def _telling(
    session: ImportSession, progress: Callable[[IngestProgress], None]
) -> Callable[[IngestProgress], None]:
    """``progress``, the session told first of each file that ends."""

    def told(p: IngestProgress) -> None:
        if p.result is not None:
            session.file_ended(p.path)
        progress(p)

    return told


def remove_after(
    session: ImportSession, report: IngestReport, remove: Callable[[str], Removal]
) -> None:
    """Carry out the removals asked during the import, now that it is over (its files in
    the import are gone already; the course and its other files go now), into ``report``."""
    for target, stopped in session.end():
        try:
            removal = remove(target)
        except NotFoundError:
            continue  # the import removed all of it
        except CoursedexError as e:
            log.warning("could not remove %s after the import: %s", target, e)
            continue
        report.changes |= removal.changes
        course = bool(removal.changes.courses_removed)
        report.removed_after.append(RemovedAfter(target, course, removal.count, stopped))
