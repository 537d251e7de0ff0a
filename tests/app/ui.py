"""What app tests do to the window as a user would, and a meter of event-loop stalls."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest
from PySide6.QtCore import QElapsedTimer, QMimeData, QObject, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from engine.library import Library

if TYPE_CHECKING:
    from app.window import MainWindow


def giraffe_window(qtbot: QtBot, library: Library, folder: Path) -> MainWindow:
    """A shown window on ``library`` after it has indexed one short note about giraffes."""
    from app.window import MainWindow

    notes = folder / "notes.md"
    notes.write_text("# Giraffes\n\nThe giraffe has a long neck and eats acacia leaves.\n")
    library.ingest([notes])
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    return window


Modal = TypeVar("Modal", bound=QWidget)


def on_next_modal(kind: type[Modal], act: Callable[[Modal], None], first_ms: int = 50) -> None:
    """Run ``act`` on the next modal ``kind`` once it is open. A modal dialog blocks whoever
    opened it, so the test acts from the event loop: it looks every 50 ms until it is up."""

    def poll() -> None:
        widget = QApplication.activeModalWidget()
        if not isinstance(widget, kind):
            QTimer.singleShot(50, poll)
            return
        act(widget)

    QTimer.singleShot(first_ms, poll)


def refused_at_start(
    library: Path, models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, str]]:
    """Start the window on ``library`` (``app.main.run``, its settings and runtime folder in
    ``tmp_path``) when it cannot be opened: the exit status must be 1; returns each message
    box's (text, informative text), answered with its default (Quit)."""
    from PySide6.QtWidgets import QMessageBox

    from app.main import run

    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    seen: list[tuple[str, str]] = []

    def answer(box: QMessageBox) -> None:
        seen.append((box.text(), box.informativeText()))
        box.accept()

    on_next_modal(QMessageBox, answer, first_ms=0)
    code = run(["--library", str(library), "--models", str(models), "--no-demo"])
    assert code == 1
    return seen


def stray_enter_on_next_box(asked: list[str]) -> None:
    """Press Enter in the next message box, where its keyboard focus is, as a user typing on
    does when a question pops up; keep its text. A box Enter does not close is closed."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMessageBox

    def enter(box: QMessageBox) -> None:
        asked.append(box.text())
        QTest.keyClick(QApplication.focusWidget() or box, Qt.Key.Key_Return)
        if box.isVisible():
            asked.append("(Enter did not close it)")
            box.reject()

    on_next_modal(QMessageBox, enter)


def drop(window: QWidget, paths: list[Path]) -> None:
    """A real drag-enter and drop of file URLs, delivered to the window."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    position = QPointF(window.width() / 2, window.height() / 2)
    enter = QDragEnterEvent(
        position.toPoint(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    event = QDropEvent(
        position,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, event)


class StallMeter(QObject):
    """Ticks every 5 ms on the UI thread; a late tick is a stall of the event loop."""

    INTERVAL_MS = 5

    def __init__(self) -> None:
        super().__init__()
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(self.INTERVAL_MS)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._last = 0
        self.ticks = 0
        self.stalls_ms: list[int] = []  # every gap longer than 50 ms, minus the interval

    def start(self) -> None:
        self._clock.start()
        self._last = 0
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = self._clock.elapsed()
        late = now - self._last - self.INTERVAL_MS
        if late > 50:
            self.stalls_ms.append(late)
        self._last = now
        self.ticks += 1

    @property
    def worst_ms(self) -> int:
        return max(self.stalls_ms, default=0)


def make_test_video(path: Path, seconds: int) -> Path:
    """A small H.264/AAC test-pattern video with a tone (ffmpeg's lavfi sources)."""
    command = [
        "ffmpeg", "-v", "error", "-y",
        "-f", "lavfi", "-i", f"testsrc2=size=320x180:rate=10:duration={seconds}",
        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=16000:duration={seconds}",
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "32k", "-shortest", str(path),
    ]  # fmt: skip
    subprocess.run(command, check=True)
    return path
