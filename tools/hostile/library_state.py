"""Hostile library folders (issue 34, items 4 and 6): a library whose own folders or files
lead out of it, and what writers killed with SIGKILL leave behind
(tests/engine/library/test_library_state.py).

``linked_cases(library, outside)`` puts one hostile thing in a library's folder per case: its
``thumbs``, ``vectors`` or ``media`` folder a link to ``outside`` (a folder of the test's own
standing for ``/etc``), a file or a broken link in a folder's place, ``library.lock`` or
``library.db`` a link to a file outside. Each must be refused in one line (``reason``, a
regular expression) and nothing written where the link leads.

``killed_writer(target)`` is a real process killed with SIGKILL while it writes ``target``
the way every export does (a temp file beside it, renamed over it at the end): it returns
the temp file it left. ``live_writer(target)`` is the same process left running.
``serve_slow_video()`` is a web server whose videos never end and arrive slowly, so a
download can be killed (or found running) while its ``.part`` file is small.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tools.local_server import local_server, with_stop

ROOT = Path(__file__).resolve().parents[2]
LINK = r"is a link to .+: Coursedex writes only in the library's own folders"
NOT_A_FOLDER = r"is a file, not a folder"


@dataclass(frozen=True, slots=True)
class LibraryCase:
    name: str  # the entry of the library's folder made hostile
    what: str  # for the report
    reason: str  # a regular expression the one-line refusal matches
    make: Callable[[Path, Path], None]  # (library folder, outside folder)


def _link_folder(name: str) -> Callable[[Path, Path], None]:
    def make(library: Path, outside: Path) -> None:
        _clear(library / name)
        (library / name).symlink_to(outside, target_is_directory=True)

    return make


def _link_file(name: str) -> Callable[[Path, Path], None]:
    def make(library: Path, outside: Path) -> None:
        _clear(library / name)
        target = outside / f"outside-{name}"
        target.write_bytes(b"")
        (library / name).symlink_to(target)

    return make


def _file_instead(name: str) -> Callable[[Path, Path], None]:
    def make(library: Path, outside: Path) -> None:
        _clear(library / name)
        (library / name).write_text("not a folder\n", encoding="utf-8")

    return make


def _broken_link(name: str) -> Callable[[Path, Path], None]:
    def make(library: Path, outside: Path) -> None:
        _clear(library / name)
        (library / name).symlink_to(outside / "gone", target_is_directory=True)

    return make


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


LIBRARY_CASES = (
    *(
        LibraryCase(name, f"{name}/ is a link to a folder outside", LINK, _link_folder(name))
        for name in ("thumbs", "vectors", "media")
    ),
    LibraryCase("thumbs", "thumbs is a file", NOT_A_FOLDER, _file_instead("thumbs")),
    LibraryCase("vectors", "vectors is a broken link", LINK, _broken_link("vectors")),
    LibraryCase("library.lock", "library.lock is a link outside", LINK, _link_file("library.lock")),
    LibraryCase("library.db", "library.db is a link outside", LINK, _link_file("library.db")),
)


def outside_state(outside: Path) -> dict[str, bytes]:
    """What the folder a link leads to holds (to compare before and after)."""
    return {
        str(p.relative_to(outside)): p.read_bytes()
        for p in sorted(outside.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# --- writers killed with SIGKILL ----------------------------------------------------------

_WRITER = """
import sys
from pathlib import Path
from engine.index.atomic_files import atomic_write

def write(tmp: Path) -> None:
    with tmp.open("wb") as f:
        f.write(b"PK half a pack" * 1000)
        f.flush()
        print(tmp, flush=True)
        sys.stdin.read()  # until killed

atomic_write(Path(sys.argv[1]), write)
"""


@contextmanager
def live_writer(target: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A process in the middle of writing ``target`` (an export's temp file beside it), and
    that temp file; killed with SIGKILL at the end."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(target)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line:
            raise RuntimeError(f"the writer of {target} ended before writing (exit {proc.wait()})")
        yield proc, target.parent / Path(line).name  # it may write by another path to it
    finally:
        kill(proc)


def killed_writer(target: Path) -> Path:
    """The temp file a writer of ``target`` killed with SIGKILL mid-write left beside it."""
    with live_writer(target) as (_proc, temp):
        pass
    return temp


def kill(proc: subprocess.Popen[str]) -> None:
    """SIGKILL, as a crash or ``kill -9`` ends it, then reaped."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()


def wait_for(found: Callable[[], object], what: str, seconds: float = 60) -> object:
    """Poll until ``found()`` is truthy (no timing is asserted: the bound only stops a hang)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = found()
        if got:
            return got
        time.sleep(0.05)
    raise TimeoutError(f"no {what} after {seconds} s")


# --- a web server whose videos never end --------------------------------------------------


class _Slow(BaseHTTPRequestHandler):
    stop = threading.Event()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "video/mp4")
        self.close_connection = True
        self.end_headers()
        try:
            while not self.stop.is_set():
                self.wfile.write(b"\0" * 16384)
                self.wfile.flush()
                self.stop.wait(0.05)
        except OSError:  # the client went away (killed): what the tests do to it
            pass


@contextmanager
def serve_slow_video() -> Iterator[str]:
    """http://127.0.0.1:PORT: every path a video of no announced length, ~300 KB/s, forever."""
    handler = with_stop(_Slow, "Slow")
    with local_server(handler, handler.stop) as url:
        yield url


def coursedex(*args: str) -> subprocess.Popen[str]:
    """``coursedex ARGS`` in a process of its own (to be killed), without proxies."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.Popen(
        [sys.executable, "-m", "engine.cli", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
