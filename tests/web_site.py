"""A lecture page served from 127.0.0.1 for the URL-import tests: no test reaches the
internet. The page has a <video> made by ffmpeg and its WebVTT subtitles in a <track>
(yt-dlp's generic extractor reads both); about.html has no video.

The hostile addresses of tools/hostile/addresses.py too (a video that never ends, one that
stops sending, redirects to and videos at ``file://`` addresses).
"""

from __future__ import annotations

import functools
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

from tools.hostile import addresses as hostile
from tools.local_server import local_server, with_stop

CAPYBARA_MS = 4_500
VTT = """WEBVTT

00:00:01.000 --> 00:00:03.000
Welcome to the third lecture on rodents.

00:00:04.500 --> 00:00:07.000
The capybara is the largest rodent alive.
"""
PAGE = """<!DOCTYPE html><html><head><title>Lecture 3 - Rodents</title></head><body>
<h1>Lecture 3</h1>
<video controls><source src="media/lecture.mp4" type="video/mp4">
<track kind="subtitles" src="media/lecture.vtt" srclang="en" label="English"></video>
</body></html>
"""


class _Site(SimpleHTTPRequestHandler):
    """The files under its folder, and tools/hostile/addresses.py's hostile addresses."""

    stop = threading.Event()  # set as the server shuts down: a stalled reply ends

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if not hostile.answer(self, self.stop):
            super().do_GET()


@contextmanager
def serve_site(root: Path) -> Iterator[str]:
    """http://127.0.0.1:PORT serving lecture-3.html (the page), media/lecture.mp4 and .vtt,
    and about.html (no video), from ``root``; and the hostile addresses of the module."""
    (root / "media").mkdir(parents=True)
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y",
         "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=10:duration=8",
         "-f", "lavfi", "-i", "sine=frequency=440:duration=8",
         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
         "-shortest", str(root / "media" / "lecture.mp4")],
        check=True,
    )  # fmt: skip
    (root / "media" / "lecture.vtt").write_text(VTT, encoding="utf-8")
    (root / "lecture-3.html").write_text(PAGE, encoding="utf-8")
    (root / "about.html").write_text(
        "<html><head><title>About</title></head><body><p>Nothing to watch.</p></body></html>",
        encoding="utf-8",
    )
    handler = with_stop(_Site, "Site")
    with local_server(functools.partial(handler, directory=str(root)), handler.stop) as url:
        yield url


def clear_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test server is local: no proxy from the environment may stand in between."""
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
