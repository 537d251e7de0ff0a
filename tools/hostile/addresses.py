"""Hostile web addresses for the URL import (issue 25, items 2 and 3): what a server on
127.0.0.1 answers (tests/web_site.py serves them beside its lecture page) and what each
import must end as. Nothing of them may stay in the library's ``media/`` folder.

``/endless.mp4``      a video that never ends (no length announced): stopped at the size limit
``/huge.mp4``         announces 100 GB: refused at its first bytes
``/stalls.mp4``       announces 1 MB, sends 256 KB, then nothing on an open connection:
                      stopped at the stall timeout
``/to-file.mp4``      redirects to ``file:///etc/hostname``: said so (not "HTTP Error 302")
``/file-video.html``  a page whose ``<video>`` is ``file:///etc/hostname``: said so, no
                      traceback, no empty folder
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

STALL_AFTER_BYTES = 256 * 1024
LOCAL_FILE = "file:///etc/hostname"
FILE_VIDEO_PAGE = f"""<!DOCTYPE html><html><head><title>Lecture 4 - Local</title></head><body>
<video controls><source src="{LOCAL_FILE}" type="video/mp4"></video>
</body></html>
"""


@dataclass(frozen=True, slots=True)
class Address:
    path: str
    reason: str  # a regular expression the error's reason matches


# With a download limit of 2 MB and a stall timeout of 1 s (the tests' settings).
ADDRESSES = (
    Address("/endless.mp4", r"the download went past the limit of 2 MB"),
    Address("/huge.mp4", r"it is 100 GB, more than the download limit of 2 MB"),
    Address("/stalls.mp4", r"the server sent nothing for 1 s"),
    Address("/to-file.mp4", rf"it redirects to {LOCAL_FILE}, which is not a web address"),
    Address("/file-video.html", rf"its video is a file on a computer \({LOCAL_FILE}\)"),
)


def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> bool:
    """Answer ``handler``'s GET if its path is one of the hostile addresses (True), until
    ``stop`` is set for those that go on."""
    path = handler.path.split("?", 1)[0]
    try:
        if path == "/endless.mp4":
            _video_headers(handler, None)
            block = b"\0" * 65536
            while not stop.is_set():
                handler.wfile.write(block)
        elif path == "/huge.mp4":
            _video_headers(handler, 100 * 1024**3)
            while not stop.is_set():
                handler.wfile.write(b"\0" * 65536)
        elif path == "/stalls.mp4":
            _video_headers(handler, 1024**2)
            handler.wfile.write(b"\0" * STALL_AFTER_BYTES)
            handler.wfile.flush()
            stop.wait(120)  # then nothing: the connection stays open, silent
        elif path == "/to-file.mp4":
            handler.send_response(302)
            handler.send_header("Location", LOCAL_FILE)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        elif path == "/file-video.html":
            body = FILE_VIDEO_PAGE.encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        else:
            return False
    except OSError:  # the client gave up: what the tests want of it
        pass
    return True


def _video_headers(handler: BaseHTTPRequestHandler, length: int | None) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "video/mp4")
    if length is not None:
        handler.send_header("Content-Length", str(length))
    else:
        handler.close_connection = True
    handler.end_headers()
