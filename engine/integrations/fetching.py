"""Fetch a page's video (or only its subtitles) with yt-dlp, within bounds, leaving nothing
behind when it fails.

A URL is outside input: a server may stream forever, stop sending halfway, redirect to a
``file://`` address or put one in its ``<video>``. So a download stops at a size limit
(``IngestLimits.max_download_bytes``, checked against the announced length and against what
arrived) and when the server sends nothing for ``download_stall_ms``; addresses that are
not http(s) are refused with what they are; and any failure (those, a 404, an extractor's
own exception, a cancel, Ctrl+C) removes what this fetch wrote: the ``.part`` file, the
subtitles, the page's folder when the fetch made it. A fetch killed outright cannot: it holds
a lock per page folder while it writes (``media/.<page>.fetching``), and the next writer of
the library removes the partial files of the pages whose lock no one holds
(:func:`engine.partial_files.remove_stale_downloads`). Every error is a
:class:`UrlImportError` naming the URL and the reason, so an import of several targets
goes on with the others.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from engine.config import IngestLimits
from engine.errors import Cancelled, CoursedexError
from engine.ingest import MEDIA_EXTENSIONS, SUBTITLE_EXTENSIONS
from engine.own_folders import Folder, open_folder, own_folder
from engine.partial_files import fetch_lock, hold
from engine.plain_text import human_size
from engine.private_files import private_dir, tighten

log = logging.getLogger(__name__)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LEFT_BY_DOWNLOADS = (".part", ".ytdl")  # yt-dlp's partial files (and fragments' .part-FragN)


class UrlImportError(CoursedexError):
    """A URL whose page or media could not be fetched; the message says why."""


@dataclass(frozen=True, slots=True)
class Fetched:
    """What a fetch left in the library's media folder."""

    url: str  # the page the user gave (the origin)
    title: str
    path: Path  # the media file, or the subtitles when only they were asked for
    subtitles: tuple[Path, ...] = ()
    # The files and folders this fetch made (empty when the page was fetched before):
    # what to remove when the file cannot be imported.
    made: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class FetchProgress:
    url: str
    done_bytes: int
    total_bytes: int | None


def is_url(text: str) -> bool:
    """An http(s) address with a host (what ``ingest`` fetches instead of reading a path)."""
    parts = urlsplit(text.strip())
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def fetch_url(
    url: str,
    folder: Path,
    *,
    subtitles_only: bool = False,
    limits: IngestLimits | None = None,
    progress: Callable[[FetchProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> Fetched:
    """Download the page's video (and its subtitles) or only its subtitles into ``folder``.

    Raises:
        UrlImportError: not an http(s) URL, the page or file cannot be fetched (with the HTTP
            status or network error), it is larger than the limit or the server stalled, or
            there is no video, audio or subtitles on it. What the fetch wrote is removed.
        Cancelled: ``cancel`` was set; what the fetch wrote is removed.
    """
    if not is_url(url):
        raise UrlImportError(f"not a web address (http:// or https://): {url}")
    private_dir(own_folder(folder))
    with open_folder(folder) as media, contextlib.ExitStack() as held:
        guard = _Guard(url, limits or IngestLimits(), progress, cancel, media, held)
        return _fetch(url, folder, subtitles_only, guard)


def _fetch(url: str, folder: Path, subtitles_only: bool, guard: _Guard) -> Fetched:
    from yt_dlp import YoutubeDL

    try:
        with YoutubeDL(_options(folder, subtitles_only, guard)) as ydl:  # type: ignore[arg-type]
            ydl.add_post_processor(_before_download(guard, ydl), when="video")
            info = ydl.extract_info(url, download=True)
        if not isinstance(info, dict):
            raise UrlImportError(f"cannot import {url}: no video or audio found on that page")
        got = _what_landed(url, dict(info), subtitles_only)
    except BaseException as e:
        guard.remove_what_was_made()
        if isinstance(e, CoursedexError | KeyboardInterrupt | SystemExit):
            raise
        if not isinstance(e, Exception):
            raise
        log.info("fetching %s failed", url, exc_info=True)
        raise UrlImportError(f"cannot import {url}: {_reason(e)}") from e
    for made in guard.made():
        tighten(made)
    return Fetched(got.url, got.title, got.path, got.subtitles, guard.made())


def remove_fetched(got: Fetched) -> None:
    """Remove what a fetch made (a download whose file could not be imported)."""
    _remove(got.made)


def _options(folder: Path, subtitles_only: bool, guard: _Guard) -> dict[str, Any]:
    stall_s = max(1.0, guard.limits.download_stall_ms / 1000)
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
        "progress_hooks": [guard.hook],
        "logger": _YtLog(),
        "quiet": True,
        "no_warnings": True,
        "noprogress": True,
        # A read waits this long for a byte; then a retry, unless nothing came for as long.
        "socket_timeout": stall_s,
        "retries": 3,
        "retry_sleep_functions": {"http": guard.before_retry, "fragment": guard.before_retry},
        "continuedl": True,
    }


@dataclass(eq=False)
class _Guard:
    """The bounds of one fetch, checked as the bytes arrive, and what it made."""

    url: str
    limits: IngestLimits
    progress: Callable[[FetchProgress], None] | None
    cancel: threading.Event | None
    media: Folder  # the folder fetched into, open
    held: contextlib.ExitStack  # the page folders' locks (engine.partial_files.fetch_lock)
    last_bytes_at: float = field(default_factory=time.monotonic)
    received: dict[str, int] = field(default_factory=dict)  # per file being written
    folders: dict[Path, set[Path] | None] = field(default_factory=dict)  # None: made here
    target: Path | None = None

    def hook(self, d: dict[str, Any]) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled(f"stopped fetching {self.url}")
        if d.get("status") != "downloading":
            return
        self.last_bytes_at = time.monotonic()
        limit = self.limits.max_download_bytes
        announced = d.get("total_bytes")
        if announced and int(announced) > limit:
            raise UrlImportError(
                f"cannot import {self.url}: it is {human_size(int(announced))}, more than "
                f"the download limit of {human_size(limit)}"
            )
        name = str(d.get("tmpfilename") or d.get("filename") or "")
        self.received[name] = int(d.get("downloaded_bytes") or 0)
        done = sum(self.received.values())
        if done > limit:
            raise UrlImportError(
                f"cannot import {self.url}: the download went past the limit of "
                f"{human_size(limit)}; it was stopped and removed"
            )
        if self.progress is not None:
            total = announced or d.get("total_bytes_estimate")
            self.progress(FetchProgress(self.url, done, total and int(total)))

    def before_retry(self, n: int) -> float:
        """yt-dlp's pause before it tries a download again (after a read timed out or the
        connection dropped): none, unless nothing arrived for the stall timeout."""
        stall_s = self.limits.download_stall_ms / 1000
        if time.monotonic() - self.last_bytes_at >= 0.9 * stall_s:
            raise UrlImportError(
                f"cannot import {self.url}: the server sent nothing for {stall_s:g} s; "
                "the download was stopped and removed"
            )
        return 0.0

    def starting(self, info: dict[str, Any], target: Path) -> None:
        """Before anything of this page is written: refuse addresses that are not on the
        web, and note what its folder held."""
        for address in _addresses(info):
            scheme = urlsplit(address).scheme.lower()
            if scheme == "file":
                raise UrlImportError(
                    f"cannot import {self.url}: its video is a file on a computer "
                    f"({address}), not a web address; it is not fetched"
                )
            if scheme not in ("http", "https"):
                raise UrlImportError(
                    f"cannot import {self.url}: its video's address is not http(s): {address}"
                )
        self.target = target
        folder = target.parent
        if folder.parent.resolve() == self.media.path.resolve() and folder not in self.folders:
            # Before anything of it is written, and before what it holds is noted.
            self.held.enter_context(hold(self.media, fetch_lock(folder.name), self.cancel))
        if folder not in self.folders:
            self.folders[folder] = set(folder.iterdir()) if folder.is_dir() else None
        self.last_bytes_at = time.monotonic()

    def made(self) -> tuple[Path, ...]:
        """The files and folders that were not there before this fetch."""
        out: list[Path] = []
        for folder, before in self.folders.items():
            if before is None:
                out.append(folder)
            elif folder.is_dir():
                out.extend(p for p in folder.iterdir() if p not in before)
        return tuple(out)

    def remove_what_was_made(self) -> None:
        partial = []
        if self.target is not None and self.target.parent.is_dir():
            stem = self.target.stem  # title.mp4.part, title.f137.mp4.part, .ytdl
            partial = [
                p
                for p in self.target.parent.iterdir()
                if p.name.startswith(stem) and any(s in p.name for s in _LEFT_BY_DOWNLOADS)
            ]
        _remove((*self.made(), *partial))


def _before_download(guard: _Guard, ydl: Any) -> Any:
    """A yt-dlp post-processor that runs once a format is chosen, before anything of the
    page (subtitles, video) is written: :meth:`_Guard.starting`."""
    from yt_dlp.postprocessor.common import PostProcessor

    class BeforeDownload(PostProcessor):
        def run(self, information: Any) -> Any:
            guard.starting(dict(information), Path(ydl.prepare_filename(information)))
            return [], information

    return BeforeDownload(ydl)


def _addresses(info: dict[str, Any]) -> Iterator[str]:
    for f in info.get("requested_formats") or [info]:
        if f.get("url"):
            yield str(f["url"])
    for sub in (info.get("requested_subtitles") or {}).values():
        if sub.get("url"):
            yield str(sub["url"])


def _remove(paths: tuple[Path, ...]) -> None:
    import shutil

    for path in paths:
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        except OSError as e:
            log.warning("cannot remove %s, left by a download that failed: %s", path, e)


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


def _reason(error: BaseException) -> str:
    """yt-dlp's message without its ``ERROR: [extractor] id:`` prefix and colours; a
    redirect to a ``file://`` address said as such."""
    target = _redirected_to(error)
    if target is not None and not target.lower().startswith(("http:", "https:")):
        return f"it redirects to {target}, which is not a web address; it is not fetched"
    text = _ANSI.sub("", str(error)).strip()
    if "file:// urls are disabled" in text.lower():
        return "it leads to a file on a computer (file://), not a web address; it is not fetched"
    text = re.sub(r"^ERROR:\s*", "", text)
    text = re.sub(r"^\[[\w:]+\]\s*([\w.-]+:\s*)?", "", text)
    if text.lower().startswith("unsupported url"):
        return "no video or audio found on that page"
    return re.sub(r"\s*\(caused by .*\)$", "", text.split("\n", 1)[0]) or type(error).__name__


def _redirected_to(error: BaseException) -> str | None:
    """Where a refused redirect led: yt-dlp reports only "HTTP Error 302: Found"."""
    for e in _chain(error):
        status = getattr(e, "status", None) or getattr(e, "code", None)
        if not isinstance(status, int) or not 300 <= status < 400:
            continue
        headers = getattr(getattr(e, "response", None), "headers", None) or getattr(
            e, "headers", None
        )
        with contextlib.suppress(AttributeError, TypeError):
            location = headers.get("Location") if headers is not None else None
            if location:
                return str(location)
    return None


def _chain(error: BaseException) -> Iterator[object]:
    """``error`` and what caused it (yt-dlp keeps it in ``exc_info`` and ``cause``)."""
    seen: set[int] = set()
    todo: list[object] = [error]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        exc_info = getattr(e, "exc_info", None)
        if isinstance(exc_info, tuple) and len(exc_info) > 1:
            todo.append(exc_info[1])
        todo.extend(
            (getattr(e, "cause", None), getattr(e, "__cause__", None), e.__context__)
            if isinstance(e, BaseException)
            else ()
        )


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
