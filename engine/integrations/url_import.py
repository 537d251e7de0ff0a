"""Import a lecture from a web page: yt-dlp fetches it into the library, then it is indexed.

Only ever on the user's word (``coursedex ingest URL``, File > Add from URL), like a model
download: nothing in Coursedex reaches the network by itself. yt-dlp's extractors know the
video sites, and its generic one reads a plain page with a ``<video>`` (or a link straight to
a media file). The file lands in the library's ``media/`` folder; the page URL is kept as the
source's *origin*, so a hit can also point back to the page at its time
(``https://.../watch?v=x&t=83``). With ``subtitles_only`` only the page's subtitles are
fetched, and they are the source (searchable, linked to the page at each time).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from engine.errors import Cancelled, CoursedexError
from engine.ingest import MEDIA_EXTENSIONS, SUBTITLE_EXTENSIONS

if TYPE_CHECKING:
    from engine.importing.progress import IngestProgress, IngestReport
    from engine.library import Library

log = logging.getLogger(__name__)

MEDIA_FOLDER = "media"
WEB_COURSE = "From the web"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class UrlImportError(CoursedexError):
    """A URL whose page or media could not be fetched; the message says why."""


@dataclass(frozen=True, slots=True)
class Fetched:
    """What a fetch left in the library's media folder."""

    url: str  # the page the user gave (the origin)
    title: str
    path: Path  # the media file, or the subtitles when only they were asked for
    subtitles: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class FetchProgress:
    url: str
    done_bytes: int
    total_bytes: int | None


def is_url(text: str) -> bool:
    """An http(s) address with a host (what ``ingest`` fetches instead of reading a path)."""
    parts = urlsplit(text.strip())
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def media_folder(library: Library) -> Path:
    return library.folder / MEDIA_FOLDER


def fetch_url(
    url: str,
    folder: Path,
    *,
    subtitles_only: bool = False,
    progress: Callable[[FetchProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> Fetched:
    """Download the page's video (and its subtitles) or only its subtitles into ``folder``.

    Raises:
        UrlImportError: not an http(s) URL, the page or file cannot be fetched (with the HTTP
            status or network error), or there is no video, audio or subtitles on it.
        Cancelled: ``cancel`` was set; a partial download is left as ``.part`` and resumes.
    """
    if not is_url(url):
        raise UrlImportError(f"not a web address (http:// or https://): {url}")
    from yt_dlp import YoutubeDL
    from yt_dlp.utils import DownloadError

    folder.mkdir(parents=True, exist_ok=True)

    def hook(d: dict[str, Any]) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled(f"stopped fetching {url}")
        if progress is not None and d.get("status") == "downloading":
            total = d.get("total_bytes") or d.get("total_bytes_estimate")
            progress(FetchProgress(url, int(d.get("downloaded_bytes") or 0), total and int(total)))

    options = _options(folder, subtitles_only, hook)
    try:
        with YoutubeDL(options) as ydl:  # type: ignore[arg-type]
            info = ydl.extract_info(url, download=True)
    except DownloadError as e:
        raise UrlImportError(f"cannot import {url}: {_reason(e)}") from e
    if not isinstance(info, dict):
        raise UrlImportError(f"cannot import {url}: no video or audio found on that page")
    return _what_landed(url, dict(info), subtitles_only)


def _options(folder: Path, subtitles_only: bool, hook: Callable[[dict[str, Any]], None]) -> dict:
    return {
        # One folder per page: the file keeps the page's title as its name (the library's
        # title for it), and two pages of the same title never meet.
        "paths": {"home": str(folder)},
        "outtmpl": "%(extractor_key).20B-%(id).60B/%(title).80B.%(ext)s",
        "noplaylist": True,
        # A file that has both (no merge, no ffmpeg) up to 720p is plenty for a lecture.
        "format": "b[height<=720]/bv*[height<=720]+ba/b/bv*+ba",
        "merge_output_format": "mp4",
        "writesubtitles": True,
        "subtitleslangs": ["en.*", "en"] if not subtitles_only else ["all", "-live_chat"],
        "subtitlesformat": "srt/vtt/best",
        "skip_download": subtitles_only,
        "progress_hooks": [hook],
        "logger": _YtLog(),
        "quiet": True,
        "no_warnings": True,
        "noprogress": True,
        "socket_timeout": 30,
        "retries": 3,
        "continuedl": True,
    }


def _what_landed(url: str, info: dict[str, Any], subtitles_only: bool) -> Fetched:
    title = str(info.get("title") or url)
    downloads = info.get("requested_downloads") or []
    media = [
        Path(str(d["filepath"]))
        for d in downloads
        if d.get("filepath") and Path(str(d["filepath"])).suffix.lower() in MEDIA_EXTENSIONS
    ]
    subtitles = tuple(
        Path(str(s["filepath"]))
        for s in (info.get("requested_subtitles") or {}).values()
        if s.get("filepath") and Path(str(s["filepath"])).is_file()
    )
    subtitles = tuple(p for p in subtitles if p.suffix.lower() in SUBTITLE_EXTENSIONS)
    if subtitles_only:
        if not subtitles:
            raise UrlImportError(f"cannot import {url}: the page has no subtitles")
        return Fetched(url, title, subtitles[0], subtitles)
    found = [p for p in media if p.is_file()]
    if not found:
        raise UrlImportError(f"cannot import {url}: no video or audio found on that page")
    return Fetched(url, title, found[0], subtitles)


def _reason(error: Exception) -> str:
    """yt-dlp's message without its ``ERROR: [extractor] id:`` prefix and colours."""
    text = _ANSI.sub("", str(error)).strip()
    text = re.sub(r"^ERROR:\s*", "", text)
    text = re.sub(r"^\[[\w:]+\]\s*([\w.-]+:\s*)?", "", text)
    if text.lower().startswith("unsupported url"):
        return "no video or audio found on that page"
    return re.sub(r"\s*\(caused by .*\)$", "", text.split("\n", 1)[0])


class _YtLog:
    """yt-dlp's messages go to our log; its errors become the UrlImportError we raise."""

    def debug(self, message: str) -> None:
        log.debug("yt-dlp: %s", message)

    def info(self, message: str) -> None:
        log.debug("yt-dlp: %s", message)

    def warning(self, message: str) -> None:
        log.info("yt-dlp: %s", _ANSI.sub("", message))

    def error(self, message: str) -> None:
        log.info("yt-dlp: %s", _ANSI.sub("", message))


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
    fetched: Callable[[FetchProgress], None] | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> IngestReport:
    """Fetch ``url`` into the library's media folder, record its origin, index it.

    Raises:
        UrlImportError: the page or its media cannot be fetched (the reason is in the message).
        Cancelled: stopped while fetching.
    """
    got = fetch_url(
        url, media_folder(library), subtitles_only=subtitles_only, progress=fetched, cancel=cancel
    )
    library.set_origin(got.path.absolute().parent.resolve() / got.path.name, url)
    return library.ingest([got.path], course=course or WEB_COURSE, progress=progress, cancel=cancel)
