"""A real X server with a window manager, for the app tests that the offscreen platform cannot
show: full screen, window activation, a second window. Xvfb picks a free display itself
(``-displayfd``) and openbox manages its windows, as a desktop's window manager would.

One process has one QApplication on one platform, and the test run's is offscreen, so such a
test runs in a child pytest on the X server's xcb platform:

    def test_full_screen_with_a_window_manager(x_server: XServer) -> None:
        x_server.run_tests("tests/app/player/x_player_full_screen.py")  # fails with its report

The child's test file (not named ``test_*``: the run collects it only through its parent) marks
itself ``pytestmark = ON_X_SERVER`` and uses the usual fixtures; ``press`` sends real key
events through the X server (xdotool), so they reach the window the window manager focused.
The ``x_server`` fixture skips, with the reason, where Xvfb, openbox or xdotool is missing
(``scripts/setup test`` installs them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ON_X_VARIABLE = "COURSEDEX_TEST_ON_X"  # set in the child: its DISPLAY is a managed X server
ON_X_SERVER = pytest.mark.skipif(
    not os.environ.get(ON_X_VARIABLE),
    reason="runs only on an X server with a window manager, started by the x_server fixture",
)
TOOLS = ("Xvfb", "openbox", "xdotool", "xwininfo")
START_TIMEOUT_S = 30.0  # for Xvfb to name its display and openbox to manage it
CHILD_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class XServer:
    display: str  # ":N"
    folder: Path  # the server's and window manager's logs

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(DISPLAY=self.display, QT_QPA_PLATFORM="xcb", **{ON_X_VARIABLE: self.display})
        env.pop("WAYLAND_DISPLAY", None)
        if "PYTEST_XDIST_WORKER" in env:  # its child pytest's stuck report is its own
            env["PYTEST_XDIST_WORKER"] += "-x"
        return env

    def run_tests(self, *targets: str, variables: Mapping[str, str] | None = None) -> None:
        """Run ``targets`` (pytest paths or node ids) in a child pytest on this server, with
        ``variables`` added to its environment; fail with its output unless every test in
        them passed."""
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                   "-o", "addopts=--no-qt-log -ra", *targets]  # fmt: skip
        done = subprocess.run(
            command,
            cwd=ROOT,
            env={**self.environment(), **(variables or {})},
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
            check=False,
        )
        report = (done.stdout + done.stderr)[-12_000:]
        if done.returncode != 0 or " passed" not in done.stdout or "skipped" in done.stdout:
            pytest.fail(f"on the X server {self.display}:\n{report}", pytrace=False)


def press(*keys: str) -> None:
    """Real key presses through the X server (xdotool names: "f", "Escape", "Tab",
    "shift+Tab", "ctrl+l"), delivered to the window that has the X focus."""
    subprocess.run(["xdotool", "key", "--delay", "60", *keys], check=True, timeout=30)


def type_text(text: str) -> None:
    """``text`` typed as real key presses through the X server."""
    subprocess.run(["xdotool", "type", "--delay", "40", text], check=True, timeout=60)


@dataclass(frozen=True, slots=True)
class XWindow:
    """Where the X server (not Qt) says a window is."""

    id: int
    top_level: int  # its ancestor that is a child of the root: a window manager's frame
    viewable: bool  # mapped, and every ancestor too: it shows on the screen
    x: int  # on the screen
    y: int
    width: int
    height: int


def _xwininfo(window: int, *options: str) -> str:
    done = subprocess.run(["xwininfo", "-id", str(window), *options], capture_output=True,
                          text=True, check=True, timeout=30)  # fmt: skip
    return done.stdout


def _field(label: str, text: str, base: int = 10) -> int:
    found = re.search(rf"{label}:\s+(-?(?:0x)?[0-9a-f]+)", text)
    if found is None:
        raise RuntimeError(f"xwininfo said no {label!r}: {text[-400:]}")
    return int(found.group(1), base)


def x_window(window: int) -> XWindow:
    """The X server's view of ``window`` (a QWidget's ``winId()``)."""
    info = _xwininfo(window)
    current = window
    while True:
        tree = _xwininfo(current, "-tree")
        parent = _field("Parent window id", tree, 16)
        if parent == _field("Root window id", tree, 16):
            break
        current = parent
    return XWindow(
        window,
        current,
        "Map State: IsViewable" in info,
        _field("Absolute upper-left X", info),
        _field("Absolute upper-left Y", info),
        _field("Width", info),
        _field("Height", info),
    )


def _start(folder: Path) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes], str]:
    """Xvfb on a free display, then openbox on it, once it says it is managing the screen."""
    read_end, write_end = os.pipe()
    with (folder / "xvfb.log").open("wb") as log:
        server = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_end),
                "-screen",
                "0",
                "1600x1000x24",
                "-nolisten",
                "tcp",
            ],
            pass_fds=(write_end,),
            stdout=log,
            stderr=log,
        )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as named:
        number = named.readline().strip().decode()  # Xvfb writes it once it accepts clients
    if not number:
        server.kill()
        server.wait()
        raise RuntimeError(f"Xvfb did not start: {(folder / 'xvfb.log').read_text()[-800:]}")
    display = f":{number}"
    ready = folder / "openbox-ready"
    with (folder / "openbox.log").open("wb") as log:
        manager = subprocess.Popen(
            ["openbox", "--sm-disable", "--startup", f"touch {ready}"],
            env={**os.environ, "DISPLAY": display},
            stdout=log,
            stderr=log,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while not ready.exists() and manager.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not ready.exists():
        for process in (manager, server):
            process.kill()
            process.wait()
        raise RuntimeError(f"openbox did not start: {(folder / 'openbox.log').read_text()[-800:]}")
    return server, manager, display


@pytest.fixture
def x_server() -> Iterator[XServer]:
    """A fresh Xvfb with openbox for one test; both end with it."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (scripts/setup test installs them)")
    folder = Path(tempfile.mkdtemp(prefix="x-server-"))
    server, manager, display = _start(folder)
    try:
        yield XServer(display, folder)
    finally:
        for process in (manager, server):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(folder, ignore_errors=True)
