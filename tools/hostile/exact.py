"""Issue 34, item 10: values that were read as something else than what they say. Clocks
whose minutes or seconds pass 59 (``00:99`` was 01:39, ``t=1:99:99`` was 9639 s), MCP search
limits outside 1-50 (clamped without a word), links whose digits are not ASCII (the window
refused them while ``coursedex open`` said nothing and exited 0), and titles and notes with
control characters (written raw into handouts). Used by tests/engine/test_number_edges.py,
tests/engine/integrations/test_handout.py and tests/app/test_link_edges.py.
"""

from __future__ import annotations

# Clocks a person might type or a link might carry: each refused, wherever a clock is read
# (a link's t=, ``notes add --at``, the player's "Go to a time").
BAD_CLOCKS: tuple[str, ...] = (
    "00:99",
    "0:60",
    "60:00",
    "99:59",
    "1:99:99",
    "1:60:00",
    "1:00:60",
    "1:00:99",
    "0:59:60",
    "0:60.5",
    "1:99",
    "12:345",
    "1:\u00b2\u00b3",  # superscript digits: str.isdigit() says yes
    "\uff11:\uff12\uff13",  # fullwidth
    "\u0661:\u0662\u0663",  # Arabic-Indic: int() reads them
)

# Clocks at the edge that are times: (text, milliseconds).
GOOD_CLOCKS: tuple[tuple[str, int], ...] = (
    ("0:00", 0),
    ("00:59", 59_000),
    ("59:59", 3_599_000),
    ("0:59.5", 59_500),
    ("1:59:59", 7_199_000),
    ("1:00:00", 3_600_000),
    ("100:00:00", 360_000_000),
    ("1:23s", 83_000),
    ("90 s", 90_000),
    ("90 sec", 90_000),
    ("90 seconds", 90_000),
)

# Links ``coursedex open`` must refuse before any window opens: non-zero, one line.
REFUSED_LINKS: tuple[str, ...] = (
    "coursedex://open?source=/a.mp4&t=\u00b9\u00b2",
    "coursedex://open?source=/a.mp4&t=1:99:99",
    "coursedex://open?source=/a.pdf&page=\u00b2",
    "coursedex://open?t=3",
    "coursedex://delete?source=/a.mp4",
)

# MCP ``search`` limits the README's 1-50 does not allow: each a JSON-RPC error.
BAD_SEARCH_LIMITS: tuple[object, ...] = (-1, 0, 51, 10**30, -(10**30), 2**63)

# Control characters (C0 but tab and newline, DEL, C1) in a title or a note: a handout shows
# each as its escape (``\x1b``), as the terminal does, never the character itself.
CONTROLS: str = "".join(
    chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if chr(c) not in "\t\n"
)
CONTROL_TITLE = "Lecture \x1b[31mRED\x1b[0m\x07 \x1b]0;owned\x07 \x9b2J end"
CONTROL_NOTE = "note \x00 bell\x07 esc\x1b[2J csi\x9b1m del\x7f back\x08space cr\rover"
