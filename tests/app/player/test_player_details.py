"""The player's smaller promises (issue 24, item 9): Copy link says it copied, for a moment and
to a screen reader; the transcript shows the line being spoken as soon as its size changes,
paused too; a click on the chapter list hits the chapter under the pointer although another
one started playing; Enter in the transcript's find box goes to the next line found and
Shift+Enter to the previous; the Menu key in the transcript offers the selected line's menu;
an unplayable file's error shows once. And closing the
full-screen window (issue 24, item 1) only leaves full screen."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMenu,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.player.view import PlayerView
from app.window import MainWindow
from engine.api import Chapter
from engine.library import Library
from tests.app.media import SLOT_MS, PlayerMedia

PLAYING_TIMEOUT_MS = 10_000


def start(qtbot: QtBot, player: PlayerView, media: PlayerMedia, ms: int, **kwargs: object) -> None:
    player.open(str(media.video), ms, media.transcript, **kwargs)  # type: ignore[arg-type]
    qtbot.waitUntil(player.is_playing, timeout=PLAYING_TIMEOUT_MS)


def spoken_row(player: PlayerView) -> int:
    rows = [i.row() for i in player.transcript_list.selectedIndexes()]
    return rows[0] if len(rows) == 1 else -1


def test_copy_link_says_what_it_copied_for_a_moment_and_to_a_screen_reader(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    start(qtbot, player, media, 12_300)
    player.pause()
    notice = player.controls.notice
    assert not notice.isVisible()
    player.setFocus()
    qtbot.keyClick(player, Qt.Key.Key_C, CTRL_SHIFT)
    assert QGuiApplication.clipboard().text().startswith("coursedex://open?")
    assert notice.isVisible() and notice.text() == "Link to 00:12 copied"
    assert notice.accessibleName() == notice.text()
    qtbot.waitUntil(lambda: not notice.isVisible(), timeout=10_000)  # it goes by itself

    player.transcript.copy_quote(media.transcript[2])  # the line's menu: Copy quote
    assert notice.isVisible() and notice.text() == "Quote at 00:06 copied"


CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def test_the_transcript_shows_the_spoken_line_as_soon_as_its_size_changes_paused_too(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    """Full screen on or off, or the splitter moved: rows wrap anew, so the same scroll
    offset shows another stretch. The spoken line must be back in view at once, not when
    the next line starts (never, while paused)."""
    player.resize(1000, 700)  # full screen, say: every line in view
    start(qtbot, player, media, 5 * SLOT_MS + 300)
    listing = player.transcript_list
    qtbot.waitUntil(lambda: spoken_row(player) == 5)
    player.pause()
    qtbot.waitUntil(lambda: not player.is_playing())

    def in_view() -> bool:
        return listing.viewport().rect().contains(listing.visualItemRect(listing.item(5)))

    qtbot.waitUntil(in_view)
    player.resize(700, 260)  # back in the window: a few lines in view
    qtbot.waitUntil(in_view)
    assert not player.is_playing() and spoken_row(player) == 5


def test_a_click_on_the_chapter_list_hits_the_chapter_under_the_pointer(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    chapters = [Chapter(i * 2_500, f"Chapter {i}") for i in range(10)]  # more than fit
    start(qtbot, player, media, 0, chapters=chapters)
    listing = player.transcript.chapter_list
    qtbot.waitUntil(lambda: listing.currentRow() == 0)
    point = listing.visualItemRect(listing.item(1)).center()
    qtbot.mouseMove(listing.viewport(), point)
    qtbot.waitUntil(listing.underMouse)
    under = listing.itemAt(point)
    assert under is not None and under.text().endswith("Chapter 1")
    player.seek(9 * 2_500 + 200)  # chapter 9 starts playing, far below the rows in view
    qtbot.waitUntil(lambda: listing.currentRow() == 9)
    assert listing.itemAt(point) is under  # the list did not move under the pointer
    qtbot.mouseClick(listing.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert abs(player.position_ms() - 2_500) <= 500, player.position_ms()

    # Once the pointer has left, the list shows the chapter playing again.
    player.seek(9 * 2_500 + 200)
    qtbot.waitUntil(lambda: listing.currentRow() == 9)
    qtbot.mouseMove(player.controls.seek_slider, QPoint(2, 2))
    qtbot.waitUntil(lambda: not listing.underMouse())
    qtbot.waitUntil(
        lambda: listing.viewport().rect().contains(listing.visualItemRect(listing.item(9)).center())
    )


def test_enter_in_the_find_box_goes_to_the_next_line_found_and_shift_enter_back(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    start(qtbot, player, media, 0, terms=["sort"])
    player.pause()
    box = player.transcript.find_box
    assert player.matches() == [3_000, 6_000, 9_000]  # "Sorting", "Merge sort", "Quick sort"
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)

    def at(ms: int) -> None:
        qtbot.waitUntil(lambda: abs(player.position_ms() - ms) <= 300)

    qtbot.keyClick(box, Qt.Key.Key_Return)
    at(3_000)
    qtbot.keyClick(box, Qt.Key.Key_Enter)
    at(6_000)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    at(9_000)
    player.seek(12_000)
    at(12_000)
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    at(9_000)
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    at(6_000)
    assert box.text() == "sort" and box.hasFocus()


def test_an_unplayable_file_says_why_once(
    qtbot: QtBot, quick_library: Library, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 40)
    window = MainWindow(quick_library, player_backend="qt")
    qtbot.addWidget(window)
    window.show()
    window.play(str(broken), 0)
    qtbot.waitUntil(lambda: window.preview_pane.has_player)
    player = window.preview_pane.player
    qtbot.waitUntil(player.message_label.isVisible, timeout=PLAYING_TIMEOUT_MS)
    qtbot.wait(500)  # anything else that would say it has had its turn

    def saying_it() -> list[QLabel]:
        return [
            label
            for label in window.findChildren(QLabel)
            if label.isVisible() and "broken.mp4" in label.text() and "cannot" in label.text()
        ]

    assert len(saying_it()) == 1, [label.text() for label in saying_it()]
    window.close()


def test_closing_the_full_screen_window_puts_the_player_back(qtbot: QtBot) -> None:
    """Alt+F4 (or the window manager's close) on full screen leaves it: the player goes back
    into its place, shown, instead of closing with that window."""
    home = QWidget()
    stack = QStackedWidget(home)
    QVBoxLayout(home).addWidget(stack)
    qtbot.addWidget(home)
    player = PlayerView(backend="qt")
    stack.addWidget(player)
    home.resize(900, 500)
    home.show()
    player.full_screen.set(True)
    window = player.window()
    assert window is not home and player.full_screen.is_on()
    window.close()
    assert not player.full_screen.is_on()
    assert player.parentWidget() is stack and player.window() is home and player.isVisible()
    player.shutdown()


def test_the_menu_key_in_the_transcript_offers_the_selected_line(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    """The Menu key sends a keyboard context menu event; its menu is the spoken line's."""
    start(qtbot, player, media, 4 * SLOT_MS + 300)
    qtbot.waitUntil(lambda: spoken_row(player) == 4)
    player.pause()
    listing = player.transcript_list
    listing.setFocus()
    qtbot.waitUntil(listing.hasFocus)

    def copy_quote() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(50, copy_quote)
            return
        quote = next(a for a in menu.actions() if "quote" in a.text())
        menu.close()
        quote.trigger()

    QTimer.singleShot(50, copy_quote)
    corner = QPoint(5, 5)
    menu_key = QContextMenuEvent(
        QContextMenuEvent.Reason.Keyboard, corner, listing.mapToGlobal(corner)
    )
    QApplication.sendEvent(listing, menu_key)  # as Qt does for the Menu key
    qtbot.waitUntil(lambda: media.transcript[4].text in QGuiApplication.clipboard().text())
