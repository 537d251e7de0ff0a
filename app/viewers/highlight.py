"""Code coloured by Pygments token types (the code view's highlighter): a file's lexer by its
name or content, its lexing a slice at a time (:class:`Lexing`), and the token spans of each
line turned into formats of the palette's style (:class:`Highlighter`)."""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from pygments.lexer import Lexer
from pygments.lexers import (
    JsonLexer,
    MarkdownLexer,
    TextLexer,
    get_lexer_for_filename,
    guess_lexer,
)
from pygments.style import StyleMeta
from pygments.styles import get_style_by_name
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound
from PySide6.QtGui import (
    QColor,
    QFont,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)

from engine.api import DOCUMENT_EXTENSIONS

_Span = tuple[int, int, _TokenType]  # start column, length (UTF-16 units), token type
ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 units in Qt, one in Python
_PLAIN = (Token.Text, Token.Text.Whitespace)

log = logging.getLogger(__name__)


def lexer_for(filename: str, text: str) -> Lexer:
    options: dict[str, Any] = {"stripnl": False, "stripall": False, "ensurenl": False}
    if filename.lower().endswith(".ipynb"):
        return JsonLexer(**options)
    if filename.lower().endswith(tuple(DOCUMENT_EXTENSIONS)):  # its text, headings as "#"
        return MarkdownLexer(**options)
    try:
        return get_lexer_for_filename(filename, text[:4096], **options)
    except ClassNotFound:
        pass
    try:
        return guess_lexer(text[:4096], **options)
    except ClassNotFound:
        return TextLexer(**options)


class Lexing:
    """Pygments tokens of a text cut at line ends, in Qt's columns, gathered a time slice
    at a time on the UI thread (a worker thread would hold the GIL against the UI)."""

    def __init__(self, text: str, lexer: Lexer) -> None:
        self.lines: list[list[_Span]] = [[] for _ in range(text.count("\n") + 1)]
        self.done = False
        self._astral = ASTRAL.search(text) is not None
        self._tokens = lexer.get_tokens_unprocessed(text)
        self._line = 0
        self._col = 0

    @property
    def complete_lines(self) -> int:
        """Lines whose tokens are all known (the last one may still grow otherwise)."""
        return len(self.lines) if self.done else self._line

    def run(self, seconds: float | None = None) -> bool:
        """Lex for about ``seconds`` (None: to the end); True once the text is done."""
        deadline = None if seconds is None else time.perf_counter() + seconds
        lines, astral = self.lines, self._astral
        line, col = self._line, self._col
        try:
            for n, (_, ttype, value) in enumerate(self._tokens):
                for i, part in enumerate(value.split("\n")):
                    if i:
                        line += 1
                        col = 0
                    if part:
                        length = len(part) + len(ASTRAL.findall(part)) if astral else len(part)
                        if ttype not in _PLAIN and line < len(lines):
                            lines[line].append((col, length, ttype))
                        col += length
                if deadline is not None and n % 256 == 255 and time.perf_counter() > deadline:
                    self._line, self._col = line, col
                    return False
        except Exception:  # a lexer bug leaves the rest of the file plain, never the view broken
            log.warning("syntax colouring stopped at line %d", line + 1, exc_info=True)
        self._line, self._col = line, col
        self.done = True
        return True


def mix(a: QColor, b: QColor, share_b: float) -> QColor:
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * share_b,
        a.greenF() + (b.greenF() - a.greenF()) * share_b,
        a.blueF() + (b.blueF() - a.blueF()) * share_b,
    )


class Highlighter(QSyntaxHighlighter):
    """Colours each block from the spans the lexer found for its line, in a Pygments style."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.lexing: Lexing | None = None
        self.style_name = ""
        self._style: StyleMeta | None = None
        self._formats: dict[_TokenType, QTextCharFormat | None] = {}

    def set_style(self, name: str) -> None:
        self.style_name = name
        self._style = get_style_by_name(name)
        self._formats.clear()

    def _format(self, ttype: _TokenType) -> QTextCharFormat | None:
        if ttype in self._formats:
            return self._formats[ttype]
        fmt: QTextCharFormat | None = None
        if self._style is not None:
            style = self._style.style_for_token(ttype)
            plain = self._style.style_for_token(Token.Text)
            if (style["color"], style["bold"], style["italic"]) != (
                plain["color"],
                plain["bold"],
                plain["italic"],
            ):
                fmt = QTextCharFormat()
                if style["color"]:
                    fmt.setForeground(QColor(f"#{style['color']}"))
                if style["bold"]:
                    fmt.setFontWeight(QFont.Weight.Bold)
                if style["italic"]:
                    fmt.setFontItalic(True)
        self._formats[ttype] = fmt
        return fmt

    def highlightBlock(self, text: str) -> None:
        lexing = self.lexing
        if lexing is None:
            return
        number = self.currentBlock().blockNumber()
        if number >= lexing.complete_lines:
            return
        for start, length, ttype in lexing.lines[number]:
            fmt = self._format(ttype)
            if fmt is not None:
                self.setFormat(start, length, fmt)
