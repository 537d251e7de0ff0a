"""Result rows: kind glyph, course, title, where, the snippet with the query words in bold,
and the scene on screen or the slide page as a thumbnail."""

from __future__ import annotations

import html
import logging

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QIcon,
    QImage,
    QPixmap,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QWidget,
)

from engine.api import SearchResult, SegmentKind, location

log = logging.getLogger(__name__)

THUMB_W, THUMB_H = 112, 63
OPEN_HINT = "Open a result to play it from the word, or to see its slide or code here."
KIND_GLYPHS = {
    SegmentKind.TRANSCRIPT: "\u25b6",  # play
    SegmentKind.SCREEN: "\u25a3",  # a screen
    SegmentKind.SLIDE: "\u25a4",  # a page of lines
    SegmentKind.CODE: "{}",
    SegmentKind.NOTE: "\u00b6",  # pilcrow
}
KIND_NAMES = {
    SegmentKind.TRANSCRIPT: "Speech",
    SegmentKind.SCREEN: "On screen",
    SegmentKind.SLIDE: "Slides",
    SegmentKind.CODE: "Code",
    SegmentKind.NOTE: "Notes",
}


def snippet_html(result: SearchResult) -> str:
    """The snippet with the query words in bold, escaped for a rich-text label."""
    out: list[str] = []
    last = 0
    for a, b in result.highlights:
        out.append(html.escape(result.snippet[last:a]))
        out.append(f"<b>{html.escape(result.snippet[a:b])}</b>")
        last = b
    out.append(html.escape(result.snippet[last:]))
    return "".join(out)


class ResultRow(QWidget):
    """One result: kind icon, thumbnail, "kind · course", title, where, snippet."""

    def __init__(self, result: SearchResult, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result = result
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.icon = QLabel()
        self.icon.setPixmap(icon.pixmap(20, 20))
        self.icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.icon.setToolTip(KIND_NAMES[result.kind])
        self.thumb = QLabel()
        self.thumb.setFixedSize(THUMB_W, THUMB_H)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.thumb.hide()
        self.text = QLabel(
            f"<small>{html.escape(KIND_NAMES[result.kind])} · {html.escape(result.course)}"
            f"</small><br><b>{html.escape(result.title)}</b>&nbsp;&nbsp;"
            f"{html.escape(location(result))}<br>{snippet_html(result)}"
        )
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout.addWidget(self.icon)
        layout.addWidget(self.thumb)
        layout.addWidget(self.text, 1)

    def set_thumbnail(self, image: QImage | None) -> None:
        if image is None or image.isNull():
            return
        pixmap = QPixmap.fromImage(image).scaled(
            THUMB_W,
            THUMB_H,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        self.thumb.setPixmap(pixmap)
        self.thumb.show()

    def height_for(self, width: int) -> int:
        layout = self.layout()
        spacing = layout.spacing() if layout is not None else 6
        text_width = width - 8 - 20 - spacing  # margins, the kind icon
        if not self.thumb.isHidden():
            text_width -= THUMB_W + spacing
        return max(THUMB_H, self.text.heightForWidth(max(120, text_width))) + 10


def thumbnail(result: SearchResult) -> QImage | None:
    """The scene on screen at a video hit, or the slide page of a slide hit (worker thread)."""
    from app.pages import ViewerError, render_page

    if result.thumbnail:
        image = QImage(result.thumbnail)
        return None if image.isNull() else image
    page = result.page if result.kind == SegmentKind.SLIDE else None
    deck = result.source
    if page is None and result.slide is not None:
        deck, page = result.slide
    if page is None:
        return None
    try:
        return render_page(deck, page, THUMB_W * 2)
    except ViewerError:
        return None
