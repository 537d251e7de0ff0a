"""Plain text helpers that import nothing of ours, so every layer can use them: counts as
words (``3 files``), a capitalised message, times (``mm:ss``), sizes (``1.5 KB``), and text made
safe to print (control characters escaped or masked, lone surrogates replaced). What turns the
engine's results into text sits above search, in :mod:`engine.formatting`."""

from __future__ import annotations

import re

_SURROGATES = re.compile("[\ud800-\udfff]")


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
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in text
    )


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
