"""Hostile search queries: FTS5 syntax, odd unicode, control characters, sheer length; and
malformed ``coursedex search --batch`` lines. Used by
tests/engine/search/test_hostile_queries.py."""

from __future__ import annotations

import json

QUERIES: tuple[str, ...] = (
    '"',
    '""',
    '"unterminated phrase',
    "AND",
    "OR",
    "NOT",
    "AND OR NOT",
    "sort NOT",
    "NOT sort",
    "merge AND",
    "NEAR(",
    "NEAR(merge sort, 2)",
    "NEAR",
    "*",
    "sort*",
    "*sort",
    "^merge",
    "^",
    "text:merge",
    "heading:sort text:merge",
    "{text heading}: merge",
    "-merge",
    "+merge",
    "(",
    ")",
    "(merge OR",
    "merge)",
    "'",
    "'; DROP TABLE segments; --",
    "\\",
    "%_%",
    "[merge]",
    "a:b:c:d",
    "...",
    "?!.,;:-",
    "''\"\"``",
    "   ",
    "",
    "\t\n\r",
    "\x00",
    "merge\x00sort",
    "\x01\x02\x03\x1b[31m\x7f",
    "\u200b\u200c\u200d\ufeff",
    "mer\u200bge sort",
    "e\u0301\u0301\u0301\u0301 combining",
    "\u0301\u0301\u0301",
    "Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357\u0358\u0359\u035a\u035b\u035c",
    "\u05de\u05d9\u05d5\u05df \u05de\u05d9\u05d6\u05d5\u05d2",  # Hebrew, right to left
    "\u0627\u0644\u062a\u0631\u062a\u064a\u0628 merge",  # Arabic and Latin
    "\u202emerge sort\u202c",
    "\U0001f600\U0001f393\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f1fa\U0001f1f8 sort",
    "\ufffd\ufffd",
    "\ud800",  # a lone surrogate, as invalid UTF-8 on a command line arrives
    "merge \udcff sort",
    "\u4e2d\u6587\u6392\u5e8f",
    "\uff4d\uff45\uff52\uff47\uff45",  # full-width letters
    "\u0130stanbul \u00df STRASSE \ufb01le",
    "x" * 10_000,
    "merge sort " * 1000,
    " ".join(f"w{i}" for i in range(3000)),
    "a" * 100_000,
    "1e308 -0 NaN inf 0x1F",
    "merge\nsort\nstable",
    "<script>alert(1)</script>",
    "%s %d {0} {}",
    "\u0000\u0000 AND \u0000",
)

# Lines of a --batch file that are not {"id", "query"} objects (each alone in a file).
BAD_BATCH_LINES: tuple[str, ...] = (
    "not json",
    '{"id": 1, "query": ',
    "[]",
    '["id", "query"]',
    "42",
    '"just a string"',
    "null",
    '{"id": 1}',
    '{"query": "merge"}',
    '{"id": 1, "query": null}',
    '{"id": 1, "query": {"nested": true}}',
    '{"id": 1, "query": "' + "x" * 1_000_000,  # a huge line cut short
    "[" * 100_000 + "]" * 100_000,
    '{"id": ' + "[" * 50_000 + "]" * 50_000 + ', "query": "merge"}',
    "\x00\x01\x02",
    "\ufeff{}",
    '{"id": NaN, "query": "merge"}',
    '{"id": null, "query": "merge"}',
    '{"id": [1, 2], "query": "merge"}',
    '{"id": {"a": 1}, "query": "merge"}',
    '{"id": true, "query": "merge"}',
    '{"id": 6, "query": 12345}',
    '{"id": 6, "query": ["merge"]}',
    '{"id": 1e999, "query": "merge"}',
)

# Lines that are valid but odd: each must give one JSON answer.
ODD_BATCH_LINES: tuple[str, ...] = (
    json.dumps({"id": "q1", "query": '"'}),
    json.dumps({"id": 2, "query": "NEAR( AND OR NOT *"}),
    json.dumps({"id": 3, "query": "\x00"}),
    json.dumps({"id": 4.5, "query": "\ud800 merge"}),
    json.dumps({"id": "", "query": "x" * 10_000}),
    json.dumps({"id": 7, "query": ""}),
    json.dumps({"id": 8, "query": "\U0001f600"}, ensure_ascii=False),
    json.dumps({"id": 9, "query": "sort " * 200_000}),  # a 1 MB line
    '{"id": 10, "query": "merge", "id": 11}',  # the last of a repeated key counts
)

# Course names and remove targets a script with an unset or blank variable passes: each is
# refused, never taken as a name (``remove ''`` once removed the course renamed to '').
BLANK_NAMES: tuple[str, ...] = ("", " ", "   ", "\t", "\n", " \t\r\n ", "\u00a0", "\u3000")

# Link values at the edges of numbers: each one clear LinkError, never an overflow or a
# ValueError from int() (``t=1e308`` passed isfinite, then ``* 1000`` overflowed; ``²`` is
# str.isdigit(), then int() fails; fullwidth and Arabic-Indic digits were read as numbers).
BAD_LINK_NUMBERS: tuple[str, ...] = (
    "t=1e308",
    "t=-1e308",
    "t=1e309",
    "t=inf",
    "t=Infinity",
    "t=-0.5",
    "t=nan",
    "t=10000001",
    "t=1e7",
    "t=1_000",
    "t=0x10",
    "t=\uff11\uff12",
    "t=\u0663",
    "t=\u00b2",
    "t=1:\u00b2:03",
    "t=1:00:00:00",
    "t=" + "9" * 400,
    "page=\u00b2",
    "page=\uff11\uff12",
    "page=\u0661\u0662",
    "page=0",
    "page=1000000001",
    "page=" + "9" * 30,
    "line=-1",
    "line=%2B3",  # a literal plus (a bare + is a space in a query)
    "line=3.0",
    "line=1e3",
    "line=\u00b2",
    "line=\u2167",
)

# MCP tool arguments at the edges (``source`` is added by the test): each a tool error that
# names the argument, never "Error executing tool" alone.
BAD_TOOL_ARGUMENTS: tuple[tuple[str, dict[str, object], str], ...] = (
    ("get_transcript", {"t": 1e308}, "t must be"),
    ("get_transcript", {"t": float("inf")}, "t must be"),
    ("get_transcript", {"t": -1}, "t must be"),
    ("get_transcript", {"t": 2**70}, "t must be"),
    ("get_transcript", {"t": 10, "before": 1e308}, "before must be"),
    ("get_transcript", {"t": 10, "before": float("-inf")}, "before must be"),
    ("get_transcript", {"t": 10, "after": float("inf")}, "after must be"),
    ("get_transcript", {"t": 9_000_000}, "long: nothing at"),
    ("get_context", {"segment_id": 2**63}, "segment_id must be"),
    ("get_context", {"segment_id": -(2**63) - 1}, "segment_id must be"),
    ("get_context", {"segment_id": 2**200}, "segment_id must be"),
    ("get_context", {"segment_id": 0}, "segment_id must be"),
)

# Lines an MCP client might send over stdio that are not JSON-RPC messages, with the error
# code each must be answered with (id null): -32700 not JSON, -32600 not a JSON-RPC message.
BAD_MCP_LINES: tuple[tuple[str, int], ...] = (
    ("not json", -32700),
    ("{", -32700),
    ('{"jsonrpc": "2.0", "id": 7, "method": "tools/list"', -32700),  # cut short
    ("\x00\x01\x02", -32700),
    ("[" * 10_000 + "]" * 10_000, -32700),
    ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "id": }', -32700),
    ("[1, 2]", -32600),
    ("[]", -32600),
    ("null", -32600),
    ("42", -32600),
    ('"just a string"', -32600),
    ("{}", -32600),
    ('{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600),
)
