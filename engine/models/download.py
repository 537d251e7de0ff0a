"""One file over HTTP(S): resumable, checksummed, cancellable, written atomically.

The data goes to ``<dest>.part``; an interrupted transfer resumes from there with a Range
request; the finished file is hashed, fsynced and renamed into place. TLS uses the operating
system's certificate store (``truststore``) so that institution proxies with their own CA work.
"""

from __future__ import annotations

import http.client
import logging
import os
import re
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from email.message import Message
from pathlib import Path

from engine import __version__
from engine.errors import Cancelled, DownloadError, ModelError
from engine.models.manifest import fsync_dir, sha256_file

logger = logging.getLogger(__name__)

Progress = Callable[[int, int | None], None]

HF_PREFIX = "https://huggingface.co"
CHUNK_BYTES = 256 * 1024
_SHA256_RE = re.compile(r"[0-9a-f]{64}")
_CONTENT_RANGE_RE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_USER_AGENT = f"coursedex/{__version__} (model manager)"


def apply_mirror(url: str, mirror: str | None) -> str:
    """Replace the Hugging Face prefix of ``url`` with ``mirror`` (a base URL)."""
    if mirror and url.startswith(HF_PREFIX):
        return mirror.rstrip("/") + url[len(HF_PREFIX) :]
    return url


def ssl_context() -> ssl.SSLContext:
    """The OS certificate store when truststore is available, else Python's default."""
    try:
        import truststore
    except ImportError:
        return ssl.create_default_context()
    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def part_path(dest: Path) -> Path:
    return dest.with_suffix(dest.suffix + ".part")


class _Transient(Exception):
    """A transfer broke in a way that a new (resumed) request may fix."""


class _RecordingRedirects(urllib.request.HTTPRedirectHandler):
    """Keeps the headers of redirect hops: Hugging Face puts X-Linked-Etag (the file's
    sha256) on the 302 from its resolve URL, not on the CDN's final response."""

    def __init__(self) -> None:
        self.hop_headers: list[Message] = []

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: object,
        code: int,
        msg: str,
        headers: Message,
        newurl: str,
    ) -> urllib.request.Request | None:
        self.hop_headers.append(headers)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)  # type: ignore[arg-type]
        if new is not None and req.has_header("Range"):
            new.add_header("Range", str(req.get_header("Range")))
        return new


def advertised_sha256(headers: list[Message]) -> str | None:
    """A sha256 the server states for the file (X-Linked-Etag or ETag of 64 hex chars)."""
    for hop in headers:
        for name in ("X-Linked-Etag", "ETag"):
            value = hop.get(name)
            if value is None:
                continue
            value = value.strip()
            value = value.removeprefix("W/").strip('"').lower()
            if _SHA256_RE.fullmatch(value):
                return value
    return None


def download(
    url: str,
    dest: Path,
    *,
    sha256: str | None = None,
    size: int | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    timeout: float = 30.0,
    retries: int = 3,
) -> str:
    """Download ``url`` to ``dest`` and return the file's sha256 (hex).

    ``sha256``/``size`` are the pinned values when known. Without a pinned hash, one
    advertised by the server is checked instead; without either, the file is accepted with a
    warning. A broken transfer is resumed up to ``retries`` times.

    Raises:
        Cancelled: ``cancel`` was set; ``<dest>.part`` is kept for a later resume.
        DownloadError: HTTP error, too many broken transfers, or checksum/size mismatch
            (the bad file is deleted).
    """
    part = part_path(dest)
    headers: list[Message] = []
    attempt = 0
    while True:
        _check_cancel(cancel, dest)
        try:
            headers = _fetch(url, part, size, progress, cancel, timeout)
            break
        except _Transient as e:
            attempt += 1
            if attempt > retries:
                raise DownloadError(
                    f"download of {dest.name} failed after {attempt} attempts: {e}"
                ) from e
            logger.info("download of %s interrupted (%s); resuming", dest.name, e)
            time.sleep(min(0.2 * 2**attempt, 5.0))
    return _finish(url, dest, part, sha256, size, headers, cancel)


def _check_cancel(cancel: threading.Event | None, dest: Path) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"download of {dest.name} cancelled")


def _fetch(
    url: str,
    part: Path,
    size: int | None,
    progress: Progress | None,
    cancel: threading.Event | None,
    timeout: float,
) -> list[Message]:
    """One request: appends to ``part`` (or restarts it). Returns the headers seen."""
    offset = part.stat().st_size if part.exists() else 0
    if size is not None and offset > size:
        part.unlink()
        offset = 0
    if size is not None and offset == size and offset > 0:
        return []  # a previous attempt got every byte; the checksum decides
    response, redirects = _open(url, part, offset, timeout)
    with response:
        seen = [*redirects.hop_headers, response.headers]
        total: int | None
        if response.status == 206:
            total = _resumed_total(response.headers, offset)
            if total is None:
                part.unlink(missing_ok=True)
                raise _Transient("server sent an unexpected byte range")
            mode = "ab"
        else:
            if offset:
                logger.info("server ignored the Range request for %s; restarting", part.name)
            offset = 0
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            mode = "wb"
        if total is None:
            total = size
        done = _copy(response, part, mode, offset, total, progress, cancel)
    if total is not None and done < total:
        raise _Transient(f"connection closed after {done} of {total} bytes")
    return seen


def _open(
    url: str, part: Path, offset: int, timeout: float
) -> tuple[http.client.HTTPResponse, _RecordingRedirects]:
    """The response to a GET of ``url`` from byte ``offset`` on, and the redirects taken.

    Raises:
        _Transient: a failure worth retrying (connection, 5xx, 429, a stale resume range).
        DownloadError: one that is not (other HTTP errors, TLS).
    """
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    request.add_header("Accept-Encoding", "identity")
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    redirects = _RecordingRedirects()
    opener = urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=ssl_context()), redirects
    )
    try:
        return opener.open(request, timeout=timeout), redirects
    except urllib.error.HTTPError as e:
        if e.code == 416 and offset:
            # Our range starts at or past the end: the .part is stale or complete; start over.
            part.unlink(missing_ok=True)
            raise _Transient("server refused the resume range") from e
        if e.code in _RETRYABLE_STATUS:
            raise _Transient(f"HTTP {e.code} {e.reason}") from e
        raise DownloadError(f"download of {url} failed: HTTP {e.code} {e.reason}") from e
    except urllib.error.URLError as e:
        if isinstance(e.reason, ssl.SSLError):
            raise DownloadError(f"download of {url} failed: TLS error: {e.reason}") from e
        raise _Transient(f"cannot connect: {e.reason}") from e
    except (OSError, http.client.HTTPException) as e:
        raise _Transient(str(e) or type(e).__name__) from e


def _copy(
    response: http.client.HTTPResponse,
    part: Path,
    mode: str,
    done: int,
    total: int | None,
    progress: Progress | None,
    cancel: threading.Event | None,
) -> int:
    """Write the body to ``part`` (appending or from the start); returns the bytes in it."""
    try:
        with part.open(mode) as f:
            while True:
                if cancel is not None and cancel.is_set():
                    f.flush()
                    os.fsync(f.fileno())
                    raise Cancelled(f"download of {part.name} cancelled; it can resume")
                chunk = response.read(CHUNK_BYTES)
                if not chunk:
                    break
                f.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
            f.flush()
            os.fsync(f.fileno())
    except (OSError, http.client.HTTPException) as e:
        # A dropped connection; what arrived stays in .part for the resumed request.
        raise _Transient(str(e) or type(e).__name__) from e
    return done


def _resumed_total(headers: Message, offset: int) -> int | None:
    """The full size from a 206's Content-Range, or None if it does not continue at offset."""
    match = _CONTENT_RANGE_RE.match(headers.get("Content-Range", ""))
    if match is None or int(match.group(1)) != offset:
        return None
    if match.group(3) == "*":
        return offset + int(match.group(2)) - int(match.group(1)) + 1
    return int(match.group(3))


def _finish(
    url: str,
    dest: Path,
    part: Path,
    sha256: str | None,
    size: int | None,
    headers: list[Message],
    cancel: threading.Event | None,
) -> str:
    actual_size = part.stat().st_size
    if size is not None and actual_size != size:
        part.unlink(missing_ok=True)
        raise DownloadError(
            f"download of {dest.name} from {url} has {actual_size} bytes, expected {size}"
        )
    expected = sha256.lower() if sha256 else advertised_sha256(headers)
    try:
        digest = sha256_file(part, cancel)
    except ModelError as e:
        raise DownloadError(f"cannot read the downloaded {dest.name}: {e}") from e
    if expected is None:
        logger.warning(
            "no checksum known for %s; accepted with sha256 %s (recorded in the manifest)",
            url,
            digest,
        )
    elif digest != expected:
        part.unlink(missing_ok=True)
        raise DownloadError(
            f"checksum mismatch for {dest.name} from {url}: got {digest[:12]}..., "
            f"expected {expected[:12]}...; the file was deleted"
        )
    try:
        os.replace(part, dest)
        fsync_dir(dest.parent)
    except OSError as e:
        raise DownloadError(f"cannot move {part} into place: {e.strerror or e}") from e
    return digest
