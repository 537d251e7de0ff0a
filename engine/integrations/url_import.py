"""Import a lecture from a web page: yt-dlp fetches it into the library, then it is indexed.

Only ever on the user's word (``coursedex ingest URL``, File > Add from URL), like a model
download: nothing in Coursedex reaches the network by itself. yt-dlp's extractors know the
video sites, and its generic one reads a plain page with a ``<video>`` (or a link straight to
a media file). The file lands in the library's ``media/`` folder; the page URL is kept as the
source's *origin*, so a hit can also point back to the page at its time
(``https://.../watch?v=x&t=83``). With ``subtitles_only`` only the page's subtitles are
fetched, and they are the source (searchable, linked to the page at each time). The download,
its bounds and its clean-up are :mod:`engine.integrations.fetching`'s.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from engine.importing.progress import FileResult, IngestReport, Outcome
from engine.integrations.fetching import (
    Fetched,
    FetchProgress,
    UrlImportError,
    fetch_url,
    is_url,
    remove_fetched,
)

if TYPE_CHECKING:
    from engine.importing.progress import IngestProgress
    from engine.library import Library

__all__ = [
    "MEDIA_FOLDER",
    "WEB_COURSE",
    "FetchProgress",
    "Fetched",
    "UrlImportError",
    "fetch_url",
    "import_url",
    "is_url",
    "media_folder",
    "origin_at",
    "result_origin",
]

log = logging.getLogger(__name__)

MEDIA_FOLDER = "media"
WEB_COURSE = "From the web"


def media_folder(library: Library) -> Path:
    return library.folder / MEDIA_FOLDER


# --- origins: where an imported file came from ---------------------------------------------


def origin_at(url: str, start_ms: int | None) -> str:
    """The page at a time: ``&t=83`` (or ``?t=83``), the form video sites read; a ``t``
    already in the URL is replaced."""
    if start_ms is None:
        return url
    base, hash_mark, fragment = url.partition("#")
    parts = urlsplit(base)
    query = [q for q in parts.query.split("&") if q and not q.startswith("t=")]
    query.append(f"t={max(0, start_ms) // 1000}")
    rebuilt = parts._replace(query="&".join(query)).geturl()
    return rebuilt + hash_mark + fragment


def result_origin(library: Library, source: str, start_ms: int | None) -> str | None:
    """A hit's place on the page it came from, or None when it came from no page."""
    page = library.origin(source)
    return None if page is None else origin_at(page, start_ms)


def import_url(
    library: Library,
    url: str,
    *,
    course: str | None = None,
    subtitles_only: bool = False,
    keep_failed: bool = False,
    fetched: Callable[[FetchProgress], None] | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> IngestReport:
    """Fetch ``url`` into the library's media folder, record its origin, index it.

    A download that cannot be imported (no speech found, say) is removed, with its row,
    unless ``keep_failed``: the report's error then names the URL, not a file the user
    never chose. The size limit and stall timeout are the library's
    (``config.limits.max_download_bytes``, ``download_stall_ms``).

    Raises:
        UrlImportError: the page or its media cannot be fetched (the reason is in the message).
        Cancelled: stopped while fetching.
    """
    got = fetch_url(
        url,
        media_folder(library),
        subtitles_only=subtitles_only,
        limits=library.config.limits,
        progress=fetched,
        cancel=cancel,
    )
    path = got.path.absolute().parent.resolve() / got.path.name
    library.set_origin(path, url)
    report = library.ingest([path], course=course or WEB_COURSE, progress=progress, cancel=cancel)
    failed = [f for f in report.files if f.outcome == Outcome.ERROR and Path(f.path) == path]
    if not failed or keep_failed or not got.made:
        return report
    try:
        library.remove(str(path))
    except Exception:  # the file goes anyway; its row says "missing" at worst
        log.warning("cannot remove the row of %s, whose import failed", path, exc_info=True)
    remove_fetched(got)
    report.files = [
        FileResult(url, Outcome.ERROR, f"{f.detail} (the download was removed)", 0, f.stages)
        if Path(f.path) == path
        else f
        for f in report.files
    ]
    return report
