"""Numbers that come from outside (a link, an MCP call, a command line), read and bounded
where they enter.

A value at the edge must be a clear error there, not an overflow deep inside: ``t=1e308``
passed ``math.isfinite`` and then ``seconds * 1000`` overflowed, a segment id of 2**63 reached
SQLite ("Python int too large to convert to SQLite INTEGER"). Only ASCII digits are digits:
``'²'.isdigit()`` is true and ``int('²')`` fails, while ``int()`` reads fullwidth digits (U+FF11)
and Arabic-Indic ones; a link typed or pasted must mean the same to every program that
reads it. A clock's minutes and seconds go to 59: ``00:99`` is no time, not 01:39.
"""

from __future__ import annotations

import math
import re

from engine.errors import CoursedexError
from engine.plain_text import clock

MAX_SECONDS = 10_000_000  # ~116 days: beyond any recording, far below float trouble
# How far past a recording's probed length what the engine made of it may reach: a probed
# length is not exact (the audio may outlast the video by a frame), a time is rounded.
RECORDING_SLACK_MS = 1000
MAX_COUNT = 1_000_000_000  # a page or a line number
MAX_ID = 2**63 - 1  # SQLite's INTEGER
MAX_THREADS = 256  # CPU threads for a model

_DECIMAL = re.compile(r"\d{1,12}(?:\.\d{0,9})?|\.\d{1,9}", re.ASCII)
_CLOCK = re.compile(r"(?:(\d{1,6}):)?(\d{1,2}):(\d{1,2}(?:\.\d{0,9})?)", re.ASCII)
_UNIT = re.compile(r"\s*(?:s|secs?|seconds?)\Z")  # "83s", "90 s", "90 seconds"
_SHOWN = 40  # characters of a bad value quoted back


class NumberError(CoursedexError):
    """A value from outside that is not a number of its kind, or out of its range."""


def whole(value: object, name: str, low: int = 1, high: int = MAX_COUNT) -> int:
    """``value`` (ASCII digits, or an int that is not a bool) as an int in ``low..high``.

    Raises:
        NumberError: anything else, with the name, the range and the value.
    """
    number: int | None = None
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit() and len(text) <= 20:
            number = int(text)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    if number is None or not low <= number <= high:
        raise NumberError(f"{name} must be a number from {low:,} to {high:,}, not {_shown(value)}")
    return number


def seconds_ms(value: object, name: str, high: float = MAX_SECONDS) -> int:
    """Seconds as whole milliseconds, from a number (an MCP argument) or from text as a person
    types it: ``83``, ``83.5``, ``83s``, ``90 seconds``, ``1:23``, ``1:02:03``; ``0..high``
    seconds. Every clock in the engine and the window is read here.

    Raises:
        NumberError: not such a time, a clock past 59 minutes or seconds, not finite,
            negative or beyond ``high``.
    """
    seconds = math.nan
    if isinstance(value, str):
        seconds = _typed_seconds(value, name)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value) if abs(value) <= 2 * high else math.inf  # no int overflow
    if not (math.isfinite(seconds) and 0 <= seconds <= high):
        raise NumberError(
            f"{name} must be a time from 0 to {high:,.0f} seconds (83.5) or a clock (1:23), "
            f"not {_shown(value)}"
        )
    return round(seconds * 1000)


def span_fault(
    start_ms: int, end_ms: int, length_ms: int | None, name: str, *, slack_ms: int = 0
) -> str | None:
    """What is wrong with the stretch ``start_ms`` to ``end_ms`` of ``name``, a recording
    ``length_ms`` long (None: not known; none is longer than :data:`MAX_SECONDS`), said as
    a user reads it; None when nothing is. A moment is a stretch that ends where it starts.
    The one check of a time in a file: a note's (``notes add``), a cue's (the subtitle
    parser), a course pack's segments, scenes and slide links."""
    if start_ms < 0:
        return f"a time in {name} cannot be negative"
    if end_ms < start_ms:
        return f"it ends ({clock(end_ms)}) before it starts ({clock(start_ms)})"
    if length_ms is None:
        if end_ms > MAX_SECONDS * 1000:
            return f"{clock(end_ms)} is after the end of any recording"
    elif end_ms > length_ms + slack_ms:
        return f"{clock(end_ms)} is after the end of {name} ({clock(length_ms)})"
    return None


def _typed_seconds(value: str, name: str) -> float:
    """Seconds, NaN for text that is not a time.

    Raises:
        NumberError: a clock whose minutes or seconds pass 59.
    """
    text = _UNIT.sub("", value.strip().lower())
    found = _CLOCK.fullmatch(text)
    if found is None:
        return float(text) if _DECIMAL.fullmatch(text) else math.nan
    h, m, s = found.groups()
    if int(m) > 59 or float(s) >= 60:
        raise NumberError(
            f"{name} must be a clock whose minutes and seconds are 00 to 59 (1:02:03), "
            f"not {_shown(value)}"
        )
    return int(h or 0) * 3600 + int(m) * 60 + float(s)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "\u2026"
