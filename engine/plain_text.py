"""Plain text helpers that import nothing of ours, so every layer can use them: counts as
words (``3 files``), a capitalised message, times (``mm:ss``), sizes (``1.5 KB``), and text made
safe to print or to write in a page (control characters escaped or masked, lone surrogates
replaced). What turns the
engine's results into text sits above search, in :mod:`engine.formatting`."""

from __future__ import annotations

import html
import re

_SURROGATES = re.compile("[\ud800-\udfff]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 but tab and newline, DEL, C1


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``3 files``; ``many`` where adding an s is wrong."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def capital(text: str) -> str:
    """The first letter in capitals, the rest as it is (str.capitalize lowers a course's
    name): an engine message (``the library database …``) as the window's sentence."""
    return text[:1].upper() + text[1:]


def clock(ms: int | float) -> str:
    """``mm:ss``, or ``h:mm:ss`` from an hour on; negative times read ``00:00``."""
    seconds = max(0, int(ms)) // 1000
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def human_size(n: int) -> str:
    """``1536`` -> ``"1.5 KB"``: sizes in messages a user reads."""
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            if unit == "bytes":
                return f"{int(size)} bytes"
            return f"{size:.1f}".rstrip("0").rstrip(".") + f" {unit}"
        size /= 1024
    return f"{n} bytes"  # pragma: no cover - loop always returns


def printable(text: str) -> str:
    """``text`` with every control or otherwise unprintable character written as its escape
    (``\\x1b``, ``\\n``, ``\\u2028``): a crafted file name cannot clear the terminal, move the
    cursor or fake an output line."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def controls_escaped(text: str) -> str:
    """``text`` with its control characters (C0 but tab and newline, DEL, C1: ESC, BEL, CSI)
    written as :func:`printable` writes them, for a file a person reads (a handout): shown
    in a terminal it cannot run them, and HTML does not allow them. The other characters a
    terminal line escapes (a no-break space, a joiner, a line separator) are text there."""
    return _CONTROLS.sub(lambda found: _escape(found.group()), text)


def html_text(text: str) -> str:
    """``text`` for an HTML page (a handout, a flashcard): its control characters as
    :func:`controls_escaped` writes them, then ``<``, ``>``, ``&`` and quotes as entities."""
    return html.escape(controls_escaped(text), quote=True)


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape", "backslashreplace").decode("ascii")


def masked(text: str) -> str:
    """``text`` with each unprintable character replaced by one character (whitespace by a
    space, the rest by U+FFFD), so character offsets into it, such as highlights, still hold."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else (" " if ch.isspace() else "\ufffd") for ch in text)


def valid_text(text: str) -> str:
    """``text`` without lone surrogates (each becomes U+FFFD): what Python makes of invalid
    UTF-8 on a command line, or a JSON ``"\\ud800"``, which no encoder or tokenizer accepts."""
    return _SURROGATES.sub("\ufffd", text)
