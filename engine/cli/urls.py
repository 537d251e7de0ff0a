"""``coursedex ingest URL``: pages fetched with yt-dlp, then indexed with the files given."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence

from engine.api import (
    WEB_COURSE,
    Cancelled,
    FetchProgress,
    FileResult,
    IngestProgress,
    IngestReport,
    Outcome,
    UrlImportError,
    human_size,
    import_url,
    is_url,
)
from engine.cli.context import Context


def ingest_all(
    ctx: Context,
    targets: Sequence[str],
    progress: Callable[[IngestProgress], None],
    cancel: threading.Event,
) -> IngestReport:
    """Files and folders as ``ingest`` always did; each URL fetched into the library's media
    folder (in ``--course``, else "From the web") and indexed; a page that cannot be
    fetched is an error of its own with the reason, and the rest go on. ``cancel`` set
    during a download: that URL is "cancelled" and the rest are not fetched."""
    library = ctx.library()
    paths = [t for t in targets if not is_url(t)]
    report = (
        library.ingest(paths, course=ctx.args.course, progress=progress, cancel=cancel)
        if paths or not targets
        else IngestReport([])
    )
    for url in (t for t in targets if is_url(t)):
        started = time.monotonic()  # the summary's seconds count the download too
        try:
            fetched = import_url(
                library,
                url,
                course=ctx.args.course or WEB_COURSE,
                subtitles_only=ctx.args.subtitles_only,
                keep_failed=ctx.args.keep_downloads,
                fetched=_fetch_line,
                progress=progress,
                cancel=cancel,
            )
        except UrlImportError as e:
            # The line names the URL already: the reason alone beside it.
            reason = str(e).removeprefix(f"cannot import {url}: ")
            report.files.append(FileResult(url, Outcome.ERROR, reason))
            continue
        except Cancelled:  # a signal: the command ends with its status (130, 143), not 1
            report.files.append(FileResult(url, Outcome.CANCELLED, "stopped while fetching"))
            break
        finally:
            report.seconds += time.monotonic() - started
            if sys.stderr.isatty():
                sys.stderr.write("\r\x1b[K")
        report.files.extend(fetched.files)
    return report


def _fetch_line(p: FetchProgress) -> None:
    if not sys.stderr.isatty():
        return
    total = f" of {human_size(p.total_bytes)}" if p.total_bytes else ""
    sys.stderr.write(f"\rfetching {p.url}: {human_size(p.done_bytes)}{total}\x1b[K")
    sys.stderr.flush()
