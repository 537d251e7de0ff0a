"""The library panel's context menu under a real X server (issue 24, item 3): the checks run
there (tests/app/library/x_panel_menu.py, keys typed by xdotool); this file starts it and
runs them."""

from __future__ import annotations

from tests.app.x_server import XServer


def test_the_menu_key_and_shift_f10_open_the_picked_rows_menu(x_server: XServer) -> None:
    x_server.run_tests("tests/app/library/x_panel_menu.py")
