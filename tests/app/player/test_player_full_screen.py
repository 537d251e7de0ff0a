"""Full screen with a window manager: the checks run on a real X server (tests/app/x_server.py);
this file starts it and runs them there."""

from __future__ import annotations

from tests.app.media import MEDIA_VARIABLE, PlayerMedia
from tests.app.x_server import XServer


def test_f_then_esc_with_a_window_manager_leaves_one_window(
    x_server: XServer, media: PlayerMedia
) -> None:
    """The child plays the run's test lecture (made once per run) rather than its own."""
    folder = str(media.video.parent)
    x_server.run_tests(
        "tests/app/player/x_player_full_screen.py", variables={MEDIA_VARIABLE: folder}
    )
