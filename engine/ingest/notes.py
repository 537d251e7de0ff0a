"""Notes: Markdown split by headings, plain text / reStructuredText under their title.

Inside a section, paragraphs (blank-line separated; a fenced code block is one paragraph)
are grouped into chunks of at most ``note_max_words`` words; a longer paragraph is cut at
sentence boundaries, and a longer sentence at word boundaries. Every chunk keeps the lines
it came from (1-based, inclusive).
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

from engine.config import ChunkingConfig, EngineConfig
from engine.errors import UnreadableFileError
from engine.ingest.chunking import sentence_spans
from engine.ingest.text import read_text
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind

log = logging.getLogger(__name__)

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)(.+?)\1")
_MAX_HEADING_CHARS = 120
HEADING_SEPARATOR = " > "

Line = tuple[int, str]  # (0-based line index, text)


@dataclass
class HeadingStack:
    """The current heading path; shared across notebook cells."""

    levels: list[tuple[int, str]] = field(default_factory=list)
    first: str = ""  # the first heading ever pushed: a Markdown file's title

    def push(self, level: int, title: str) -> None:
        self.first = self.first or title
        while self.levels and self.levels[-1][0] >= level:
            self.levels.pop()
        self.levels.append((level, title))

    def path(self) -> str:
        return HEADING_SEPARATOR.join(title for _, title in self.levels)[: _MAX_HEADING_CHARS * 2]


def _plain_heading(raw: str) -> str:
    text = _MD_LINK.sub(r"\1", raw)
    text = _MD_EMPHASIS.sub(r"\2", text)
    return " ".join(text.split())[:_MAX_HEADING_CHARS]


def _paragraphs(lines: Sequence[Line], markdown: bool) -> list[list[Line]]:
    paragraphs: list[list[Line]] = []
    current: list[Line] = []
    in_fence = False
    for index, text in lines:
        if markdown and _FENCE.match(text):
            in_fence = not in_fence
        if not text.strip() and not in_fence:
            if current:
                paragraphs.append(current)
                current = []
            continue
        current.append((index, text))
    if current:
        paragraphs.append(current)
    return paragraphs


def _words(text: str) -> int:
    return len(text.split())


def _split_paragraph(paragraph: Sequence[Line], max_words: int) -> list[list[Line]]:
    """Cut a long paragraph into pieces of at most ``max_words`` at sentence boundaries.

    A piece is returned as pseudo-lines: (line index where the piece starts, piece text),
    plus a final marker of the line where it ends, so line ranges stay exact.
    """
    parts = [text.strip() + " " for _, text in paragraph]
    joined = "".join(parts)
    offsets = list(accumulate((len(p) for p in parts[:-1]), initial=0))  # each line's start

    def line_of(offset: int) -> int:
        # A binary search: a scan from the first line made 100,000 short lines take minutes.
        return paragraph[max(0, bisect_right(offsets, offset) - 1)][0]

    spans: list[tuple[int, int]] = []
    for s, e in sentence_spans(joined):
        if _words(joined[s:e]) <= max_words:
            spans.append((s, e))
            continue
        for match in re.finditer(rf"(?:\S+\s*){{1,{max_words}}}", joined[s:e]):
            spans.append((s + match.start(), s + match.end()))
    pieces: list[list[Line]] = []
    group: list[tuple[int, int]] = []
    count = 0
    for s, e in [*spans, (-1, -1)]:
        n = _words(joined[s:e]) if s >= 0 else 0
        if group and (s < 0 or count + n > max_words):
            a, b = group[0][0], group[-1][1]
            text = joined[a:b].strip()
            pieces.append([(line_of(a), text), (line_of(max(a, b - 1)), "")])
            group, count = [], 0
        if s >= 0:
            group.append((s, e))
            count += n
    return pieces


def _group(
    paragraphs: Sequence[list[Line]],
    heading: str,
    cfg: ChunkingConfig,
    line_offset: int,
    path_in_archive: str | None,
) -> list[SegmentDraft]:
    max_words = max(1, cfg.note_max_words)
    blocks: list[tuple[int, int, str]] = []  # (first line, last line, text)
    for paragraph in paragraphs:
        text = "\n".join(t for _, t in paragraph).strip("\n")
        if _words(text) <= max_words:
            blocks.append((paragraph[0][0], paragraph[-1][0], text))
            continue
        for piece in _split_paragraph(paragraph, max_words):
            blocks.append((piece[0][0], piece[-1][0], piece[0][1]))
    segments: list[SegmentDraft] = []
    current: list[tuple[int, int, str]] = []
    count = 0

    def flush() -> None:
        if current:
            segments.append(
                SegmentDraft(
                    kind=SegmentKind.NOTE,
                    text="\n\n".join(t for _, _, t in current),
                    heading=heading,
                    path_in_archive=path_in_archive,
                    line_start=current[0][0] + 1 + line_offset,
                    line_end=current[-1][1] + 1 + line_offset,
                )
            )

    for block in blocks:
        n = _words(block[2])
        if current and count + n > max_words:
            flush()
            current, count = [], 0
        current.append(block)
        count += n
    flush()
    return segments


def markdown_segments(
    text: str,
    cfg: ChunkingConfig,
    *,
    stack: HeadingStack | None = None,
    line_offset: int = 0,
    path_in_archive: str | None = None,
) -> list[SegmentDraft]:
    """NOTE segments of Markdown, one group per section, heading = the heading path.

    ``stack`` carries the heading path in and out (notebook cells share one).
    """
    stack = stack if stack is not None else HeadingStack()
    lines = text.split("\n")
    segments: list[SegmentDraft] = []
    section: list[Line] = []
    heading = stack.path()

    def close_section() -> None:
        segments.extend(
            _group(_paragraphs(section, True), heading, cfg, line_offset, path_in_archive)
        )
        section.clear()

    start = _front_matter_end(lines)
    in_fence = False
    i = start
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
        atx = None if in_fence else _ATX.match(line)
        setext = (
            not in_fence
            and i + 1 < len(lines)
            and line.strip()
            and _SETEXT.match(lines[i + 1])
            and (i == start or not lines[i - 1].strip())
            and not _ATX.match(line)
        )
        if atx or setext:
            close_section()
            if atx:
                level, title = len(atx.group(1)), _plain_heading(atx.group(2) or "")
            else:
                level, title = (1 if lines[i + 1].strip()[0] == "=" else 2), _plain_heading(line)
                i += 1
            if title:
                stack.push(level, title)
            heading = stack.path()
            i += 1
            continue
        section.append((i, line))
        i += 1
    close_section()
    return segments


def _front_matter_end(lines: Sequence[str]) -> int:
    """Index of the first line after a YAML front matter block, or 0."""
    if not lines or lines[0].strip() != "---":
        return 0
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            return i + 1
    return 0


def _front_matter_title(lines: Sequence[str]) -> str:
    for line in lines[1 : _front_matter_end(lines)]:
        key, _, value = line.partition(":")
        if key.strip().lower() == "title" and value.strip():
            return value.strip().strip("\"'")[:_MAX_HEADING_CHARS]
    return ""


def plain_segments(
    text: str, cfg: ChunkingConfig, *, rst: bool = False, path_in_archive: str | None = None
) -> tuple[str, list[SegmentDraft]]:
    """Title (first non-empty line) and NOTE segments of plain text or reStructuredText.

    The title line is left out of the chunks when it stands alone as its own paragraph.
    """
    lines = text.split("\n")
    numbered: list[Line] = []
    for i, line in enumerate(lines):
        # RST section adornments (===, ---) are layout, not words.
        numbered.append((i, "" if rst and _RST_ADORNMENT.match(line) else line))
    title = next((t.strip() for _, t in numbered if t.strip()), "")[:_MAX_HEADING_CHARS]
    paragraphs = _paragraphs(numbered, markdown=False)
    if paragraphs and len(paragraphs) > 1 and len(paragraphs[0]) == 1:
        paragraphs = paragraphs[1:]
    return title, _group(paragraphs, title, cfg, 0, path_in_archive)


def note_segments(
    text: str, name: str, cfg: ChunkingConfig, *, path_in_archive: str | None = None
) -> tuple[str, list[SegmentDraft]]:
    """Title and segments of a notes file, by its extension (``name``)."""
    suffix = Path(name).suffix.lower()
    if suffix in (".md", ".markdown"):
        lines = text.split("\n")
        stack = HeadingStack()
        segments = markdown_segments(text, cfg, stack=stack, path_in_archive=path_in_archive)
        title = _front_matter_title(lines) or stack.first
        if not title:
            body = lines[_front_matter_end(lines) :]
            title = next((ln.strip() for ln in body if ln.strip()), "")[:_MAX_HEADING_CHARS]
        return title, segments
    return plain_segments(text, cfg, rst=suffix == ".rst", path_in_archive=path_in_archive)


def parse_notes(path: Path, config: EngineConfig) -> ParsedSource:
    """A .md/.txt/.rst file -> NOTE segments; title = first heading, first line, or stem.

    Raises:
        UnreadableFileError: empty, too large, binary, or no text.
    """
    text = read_text(path, config.limits.max_notes_bytes, what="a text file")
    title, segments = note_segments(text, path.name, config.chunking)
    if not segments:
        raise UnreadableFileError("no text to index (only headings or markup)")
    return ParsedSource(kind=SourceKind.NOTES, title=title or path.stem, segments=tuple(segments))
