"""The window on a small screen at 1.5x, with a window manager: the checks run on a real X
server (tests/app/x_server.py) at QT_SCALE_FACTOR=1.5; this file starts it and runs them."""

from __future__ import annotations

from tests.app.media import MEDIA_VARIABLE, PlayerMedia
from tests.app.x_server import XServer


def test_the_window_and_the_player_fit_a_small_screen_at_1_5x(
    x_server: XServer, media: PlayerMedia
) -> None:
    x_server.run_tests(
        "tests/app/x_small_screen.py",
        variables={MEDIA_VARIABLE: str(media.video.parent), "QT_SCALE_FACTOR": "1.5"},
    )
