"""Result rows: kind glyph, course, title, where, the snippet with the query words in bold,
the scene on screen or the slide page as a thumbnail, and a lecture's other moments.

A lecture's hits are one row (its best moment, then links to the others), so one long
lecture cannot fill the list; a speech row names the slide on screen at its moment.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import (
    QIcon,
    QImage,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from app.languages import shown_language
from engine.api import (
    KIND_NAMES,
    AtMoment,
    Library,
    OnPage,
    SearchResult,
    SegmentKind,
    SlideOnScreen,
    SourceKind,
    clock,
    location,
    moment_ms,
    plural,
    shown_title,
)

log = logging.getLogger(__name__)

THUMB_W, THUMB_H = 160, 90
SMALL_THUMB = (96, 54)  # in a row narrower than WIDE_ROW: the words need the room
WIDE_ROW = 460
MOMENTS = 5  # a lecture row's other moments shown as links
OPEN_HINT = "Open a result to play it from the word, or to see its slide or code here."
KIND_GLYPHS = {
    SegmentKind.TRANSCRIPT: "\u25b6",  # play
    SegmentKind.SCREEN: "\u25a3",  # a screen
    SegmentKind.SLIDE: "\u25a4",  # a page of lines
    SegmentKind.CODE: "{}",
    SegmentKind.NOTE: "\u00b6",  # pilcrow
    SegmentKind.BOOKMARK: "\u270e",  # a pencil: the user's own note
}


LECTURES = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)


@dataclass(frozen=True, slots=True)
class ResultGroup:
    """One row of the list: a hit, and for a lecture its other moments, best first."""

    best: SearchResult
    moments: tuple[SearchResult, ...] = ()


def row_key(result: SearchResult) -> str | int:
    """What a row of the list stands for: a lecture (what was said in it is one row), else
    one hit (a user's note at a moment is its own row)."""
    said = result.source_kind in LECTURES and result.kind != SegmentKind.BOOKMARK
    return result.source if said else result.segment_id


def grouped(results: Sequence[SearchResult]) -> list[ResultGroup]:
    """A lecture's hits become one group at the rank of its best; other files' hits, and
    the user's own notes (a note at a moment is not a moment of what was said), stay one
    row each. A group is as strong as its best hit."""
    order: list[str | int] = []
    hits: dict[str | int, list[SearchResult]] = {}
    for result in results:
        key = row_key(result)
        if key not in hits:
            order.append(key)
            hits[key] = []
        hits[key].append(result)
    return [ResultGroup(hits[k][0], tuple(hits[k][1:])) for k in order]


# What a file of each kind is called in "10 results in 2 lectures": (one, many)
SOURCE_NOUNS = {
    **dict.fromkeys(LECTURES, ("lecture", "lectures")),
    SourceKind.SLIDES: ("slide deck", "slide decks"),
    SourceKind.CODE: ("file", "files"),
    SourceKind.NOTES: ("file", "files"),
}


def count_line(results: Sequence[SearchResult]) -> str:
    """ "10 results", or "10 results in 2 lectures" when they come from fewer files than
    there are results (a lecture's hits are one row: "10 results" above 2 rows misleads)."""
    sources: dict[tuple[str, str], set[str]] = {}
    for result in results:
        sources.setdefault(SOURCE_NOUNS[result.source_kind], set()).add(result.source)
    found = plural(len(results), "result")
    if sum(len(s) for s in sources.values()) >= len(results):
        return found
    parts = [plural(len(s), one, many) for (one, many), s in sources.items()]
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"{found} in {listed}"


def spoken(group: ResultGroup) -> str:
    """A row as a screen reader says it: the kind, course, file, where, the slide on
    screen, the snippet and the other moments, in plain words."""
    result = group.best
    where = location(result)
    language = shown_language(result.language)
    parts = [
        f"{KIND_NAMES[result.kind]}, {result.course}: {shown_title(result)}"
        + (f" at {where}" if where else "")
        + (f", in {language}" if language else ""),
        on_screen(result),
        " ".join(result.snippet.split()),
    ]
    if group.moments:
        times = ", ".join(clock(moment_ms(m.place) or 0) for m in group.moments[:MOMENTS])
        parts.append(f"Also at {times}")
    return ". ".join(p for p in parts if p)


def snippet_html(result: SearchResult) -> str:
    """The snippet with the query words in bold, escaped for a rich-text label; code keeps
    its lines and indentation."""
    out: list[str] = []
    last = 0
    for a, b in result.highlights:
        out.append(html.escape(result.snippet[last:a]))
        out.append(f"<b>{html.escape(result.snippet[a:b])}</b>")
        last = b
    out.append(html.escape(result.snippet[last:]))
    text = "".join(out)
    if "\n" in result.snippet:
        return f'<div style="white-space: pre-wrap; font-family: monospace">{text}</div>'
    return text


def header(result: SearchResult) -> str:
    """ "Speech · Algorithms", and the language of a hit not in the window's language:
    "Speech · Biología · Spanish" (an English library reads as before)."""
    language = shown_language(result.language)
    return " · ".join([KIND_NAMES[result.kind], result.course, *([language] if language else [])])


def on_screen(result: SearchResult) -> str:
    """ "Slide 4 on screen (slides.pdf)" for a lecture moment that shows a slide, else ""."""
    match result.place:
        case AtMoment(slide=SlideOnScreen(source=deck, page=page, title=title)) if (
            result.kind != SegmentKind.SLIDE
        ):
            named = f": {title}" if title else ""
            return f"Slide {page} on screen{named} ({Path(deck).name})"
        case _:
            return ""


class ResultRow(QWidget):
    """One result: kind icon, thumbnail, "kind · course" (· language), title, where, the
    slide on screen, snippet, and a lecture's other moments as links."""

    moment_chosen = Signal(object)  # the SearchResult of a moment link clicked

    def __init__(
        self, group: ResultGroup | SearchResult, icon: QIcon, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        group = group if isinstance(group, ResultGroup) else ResultGroup(group)
        self.result = result = group.best
        self.focus_ring = False
        self._current: bool | None = None  # what the links were coloured for, once they were
        self.moments = group.moments
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.icon = QLabel()
        # as tall as a line of text: a larger system font makes the glyph larger too
        self.icon_size = self.fontMetrics().height() + 4
        self.icon.setPixmap(icon.pixmap(self.icon_size, self.icon_size))
        self.icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.icon.setToolTip(KIND_NAMES[result.kind])
        self.thumb = QLabel()
        self.thumb.setFixedSize(THUMB_W, THUMB_H)
        self._image: QImage | None = None
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.thumb.hide()
        screen = on_screen(result)
        self.text = QLabel(
            f"<small>{html.escape(header(result))}</small><br>"
            f"<b>{html.escape(shown_title(result))}</b>&nbsp;&nbsp;"
            f"{html.escape(location(result))}"
            + (f"<br><small><i>{html.escape(screen)}</i></small>" if screen else "")
            + ("" if "\n" in result.snippet else "<br>")  # code: its block starts a line
            + snippet_html(result)
        )
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.moment_links = QLabel(self._moments_html())
        self.moment_links.setTextFormat(Qt.TextFormat.RichText)
        self.moment_links.setWordWrap(True)
        self.moment_links.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.moment_links.linkActivated.connect(self._moment_link)
        if not self.moments:
            self.moment_links.hide()  # never show(): without a parent yet it is a window
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.text)
        column.addWidget(self.moment_links)
        layout.addWidget(self.icon)
        layout.addWidget(self.thumb)
        layout.addLayout(column, 1)

    def _moments_html(self, colour: str = "") -> str:
        style = f' style="color: {colour}"' if colour else ""
        links = [
            f'<a href="{i}"{style}>{html.escape(clock(moment_ms(m.place) or 0))}</a>'
            for i, m in enumerate(self.moments[:MOMENTS])
        ]
        more = len(self.moments) - MOMENTS
        tail = f" and {more} more" if more > 0 else ""
        return f"<small>Also at {' · '.join(links)}{tail}</small>"

    def set_current(self, current: bool) -> None:
        """Links in the link colour, or in the selection's text colour on the current row
        (dark blue on the selection's blue could hardly be read)."""
        self._current = current
        if not self.moments:
            return
        role = QPalette.ColorRole.HighlightedText if current else QPalette.ColorRole.Link
        self.moment_links.setText(self._moments_html(self.palette().color(role).name()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._current is not None:
            self.set_current(self._current)  # the theme changed: its link colours, at once

    def set_focus_ring(self, on: bool) -> None:
        """A ring round the row while the list has the keyboard focus and this row is its
        current one: the selection alone looks the same while the search box has it."""
        if on != self.focus_ring:
            self.focus_ring = on
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.focus_ring:
            return
        width = max(2, self.fontMetrics().height() // 8)  # thicker with a larger font
        pen = QPen(self.palette().color(QPalette.ColorRole.Text), width)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter = QPainter(self)
        painter.setPen(pen)
        inset = (width + 1) // 2
        painter.drawRect(self.rect().adjusted(inset, inset, -inset - 1, -inset - 1))
        painter.end()

    def _moment_link(self, href: str) -> None:
        self.moment_chosen.emit(self.moments[int(href)])

    def expect_thumbnail(self) -> None:
        """Keep the thumbnail's place, empty, until :meth:`set_thumbnail` fills it: the
        text does not move when the picture arrives (rendered after the rows are shown)."""
        self.thumb.show()

    def set_thumbnail(self, image: QImage | None) -> None:
        """Show ``image``; None (none could be made): no thumbnail, its place given back."""
        if image is None or image.isNull():
            if self._image is None:
                self.thumb.hide()
            return
        self._image = image
        self._scale_thumbnail()
        self.thumb.show()

    def _scale_thumbnail(self) -> None:
        if self._image is None:
            return
        pixmap = QPixmap.fromImage(self._image).scaled(
            self.thumb.size(),
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        self.thumb.setPixmap(pixmap)

    def height_for(self, width: int) -> int:
        """The row's height at ``width``; the thumbnail shrinks in a narrow row."""
        size = (THUMB_W, THUMB_H) if width >= WIDE_ROW else SMALL_THUMB
        if (self.thumb.width(), self.thumb.height()) != size:
            self.thumb.setFixedSize(*size)
            self._scale_thumbnail()
        layout = self.layout()
        spacing = layout.spacing() if layout is not None else 6
        text_width = width - 8 - self.icon_size - spacing  # margins, the kind icon
        if not self.thumb.isHidden():
            text_width -= size[0] + spacing
        text_width = max(60, text_width)
        height = self.text.heightForWidth(text_width)
        if self.moments:
            height += 2 + self.moment_links.heightForWidth(text_width)
        return max(size[1], height) + 10


def has_thumbnail(result: SearchResult) -> bool:
    """Whether :func:`thumbnail` may find a picture for ``result``."""
    match result.place:
        case OnPage():
            return result.kind == SegmentKind.SLIDE
        case AtMoment(thumbnail=scene, slide=slide):
            return slide is not None or bool(scene)
        case _:
            return False


def thumbnail(result: SearchResult, library: Library) -> QImage | None:
    """The slide page of a slide hit or on screen at a lecture moment, else the scene's
    frame at a video hit (worker thread)."""
    from app.viewers.pages import ViewerError, render_page

    deck, page, scene = result.source, None, None
    match result.place:
        case OnPage() if result.kind == SegmentKind.SLIDE:
            page = result.place.page
        case AtMoment(thumbnail=scene, slide=slide):
            if slide is not None:  # the slide on screen: sharper than the scene's frame
                deck, page = slide.source, slide.page
    if page is not None:
        try:
            return render_page(deck, page, THUMB_W * 2, library)
        except ViewerError:
            pass  # a deck moved away: the scene's frame still shows it
    if scene:
        image = QImage(scene)
        return None if image.isNull() else image
    return None
