"""The player's picture: the backend's video, or a panel with the file's name for audio,
and the line being spoken drawn over it (the subtitle). A click on it asks to play or
pause, a double-click for full screen too; PlayerView (app/player/view.py) does both.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QFrame, QLabel, QStackedWidget, QVBoxLayout, QWidget

from app.player.controls import SubtitleLabel


class Picture(QWidget):
    """``video`` (the backend's widget) or the audio panel, in a stack; the subtitle over
    them is a sibling of the stack, kept at its bottom as it resizes."""

    pressed = Signal()  # a mouse press on the picture
    double_clicked = Signal()

    def __init__(self, video: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.video = video
        self.video_stack = QStackedWidget()
        self.video_stack.addWidget(video)
        video.installEventFilter(self)
        self.audio_panel = QLabel()
        self.audio_panel.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.audio_panel.setWordWrap(True)
        self.audio_panel.setFrameShape(QFrame.Shape.StyledPanel)
        self.audio_panel.installEventFilter(self)
        self.video_stack.addWidget(self.audio_panel)
        self.video_stack.setMinimumSize(320, 180)
        area = QVBoxLayout(self)
        area.setContentsMargins(0, 0, 0, 0)
        area.addWidget(self.video_stack)
        self.subtitle = SubtitleLabel(self)

    def show_file(self, path: str) -> None:
        """A new file: the video page first, the audio panel named after it."""
        self.audio_panel.setText(
            f'<div style="font-size: 48pt">♪</div><p>{html.escape(Path(path).name)}</p>'
        )
        self.video_stack.setCurrentWidget(self.video)

    def show_video(self, has_video: bool) -> None:
        """The video, or the audio panel when the file has no picture."""
        self.video_stack.setCurrentWidget(self.video if has_video else self.audio_panel)

    def show_subtitle(self, text: str) -> None:
        """``text`` over the picture; "" hides it."""
        self.subtitle.setText(text)
        self.subtitle.place(self.video_stack)
        self.subtitle.setVisible(bool(text))

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.subtitle.place(self.video_stack)  # the subtitle stays over the picture
        super().resizeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        self.subtitle.place(self.video_stack)
        super().showEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress:
            self.pressed.emit()
            return True
        if event.type() == QEvent.Type.MouseButtonDblClick:
            self.double_clicked.emit()
            return True
        return super().eventFilter(watched, event)
