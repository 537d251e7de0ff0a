"""The self-test's last check: a lecture hit plays in the real player widget.

Playback must start at the hit, move on by the clock, and the transcript beside it must show
every line with the one spoken highlighted. The player is the app's own (app/player/view.py),
with the backend asked for: libVLC, Qt Multimedia, or the one the app picks.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from app.qt_messages import qt_messages
from app.selftest_expected import CheckFailed, CheckSkipped
from engine.api import Timing, clock

if TYPE_CHECKING:
    from app.player.view import PlayerView

log = logging.getLogger(__name__)

PLAY_TIMEOUT_S = 20.0
# Qt's log lines that explain a player that does not play.
PLAYBACK_MESSAGE = re.compile(r"QtMultimedia|QMediaPlayer|ffmpeg|libvlc", re.IGNORECASE)
# Where playback must start, around the hit's time: libVLC and Qt Multimedia start at the
# nearest frame they can decode from.
SEEK_TOLERANCE_MS = 1_500


def play_hit(backend: str, source: str, start_ms: int, transcript: Sequence[Timing]) -> str:
    """Play ``source`` from ``start_ms`` with ``backend`` ("vlc", "qt" or "auto"); the
    check's detail, or CheckFailed (with Qt's own words on playback, when it logged any) or
    CheckSkipped (no such player in this build)."""
    # Qt's log lines go to a file meanwhile (app/qt_messages.py says why no Python
    # handler): mostly about what a self-test lacks on purpose (no display, no audio
    # device), shown with --verbose; those about playback explain a player that fails.
    said: list[str] = []
    try:
        with qt_messages(said):
            return _play(backend, source, start_ms, transcript)
    except CheckFailed as e:
        # Qt Multimedia without a working backend plays nothing and reports no error;
        # only its log says why ("No QtMultimedia backends found").
        why = [m for m in said if PLAYBACK_MESSAGE.search(m)][:2]
        if not why:
            raise
        raise CheckFailed(f"{e} (Qt: {'; '.join(why)})") from e
    finally:
        for message in said:
            log.info("Qt: %s", message)


def _play(backend: str, source: str, start_ms: int, transcript: Sequence[Timing]) -> str:
    """The player made and shown, the lecture opened, playback checked (``_played``); the
    player is shut down whatever happens."""
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from app.player.playback import PlayerUnavailable, has_qt_multimedia
    from app.player.view import PlayerView

    app = QApplication.instance() or QApplication([sys.argv[0]])

    def wait(until: Callable[[], bool], timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while not until():
            if time.monotonic() > deadline:
                return False
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.02)
        return True

    # No sound from a self-test; libVLC draws nowhere on the offscreen platform.
    try:
        player = PlayerView(backend=backend, vlc_args=("--aout=dummy",))
    except PlayerUnavailable as e:  # no build carries libVLC: the user's VLC, if any
        if backend == "qt":  # the Linux build has no Qt Multimedia
            raise CheckSkipped(str(e)) from e
        if not has_qt_multimedia():  # and then nothing plays without VLC
            raise CheckFailed(str(e)) from e
        raise CheckSkipped(f"{e}; the app plays with Qt Multimedia") from e
    errors: list[str] = []
    player.error.connect(errors.append)
    try:
        player.resize(900, 420)
        player.show()
        player.open(source, start_ms, transcript)
        played = _played(player, start_ms, len(transcript), errors, wait)
        return f"{player.backend_name}, {played}" if backend == "auto" else played
    finally:
        player.shutdown()
        player.close()
        player.deleteLater()
        app.processEvents()


def _played(
    player: PlayerView,
    start_ms: int,
    lines: int,
    errors: list[str],
    wait: Callable[[Callable[[], bool], float], bool],
) -> str:
    """Playback started at the hit, moves on by the clock, and the transcript follows."""
    if not wait(lambda: player.is_playing() or bool(errors), PLAY_TIMEOUT_S):
        raise CheckFailed(f"{player.backend_name}: not playing after {PLAY_TIMEOUT_S:.0f} s")
    if errors:
        raise CheckFailed(f"{player.backend_name}: {errors[0]}")
    first = player.position_ms()
    if abs(first - start_ms) > SEEK_TOLERANCE_MS:
        raise CheckFailed(
            f"{player.backend_name} started at {clock(first)}, the hit is at {clock(start_ms)}"
        )
    if not wait(lambda: player.position_ms() >= first + 500 or bool(errors), 10.0):
        raise CheckFailed(f"{player.backend_name}: the position stays at {clock(first)}")
    if errors:
        raise CheckFailed(f"{player.backend_name}: {errors[0]}")
    if player.duration_ms() < 60_000:
        raise CheckFailed(f"{player.backend_name}: duration {player.duration_ms()} ms")
    rows = player.transcript_list
    if rows.count() != lines or not rows.selectedItems():
        raise CheckFailed(
            f"the transcript shows {rows.count()} of {lines} lines, "
            f"{len(rows.selectedItems())} highlighted"
        )
    return f"from {clock(first)}"
