"""Source code -> CODE segments, cut where tree-sitter finds definitions.

Code is cut at definition boundaries found by tree-sitter: each top-level function/class
is one segment (a class longer than ``code_max_lines`` is cut into its header, its methods
and the code between them); code between definitions (imports, module statements) forms
its own segments; anything still too long becomes line windows that prefer blank lines.
Languages without a grammar here fall back to blank-line-aware windows of ~40 lines.
Comments directly above a definition belong to it. definitions.py finds the definitions,
grammars.py says what one is in each language. Notebooks (notebook.py) and files and
archives (archive.py) are built on ``code_segments``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.config import ChunkingConfig
from engine.ingest.definitions import Definition, collect
from engine.ingest.grammars import GRAMMARS, parser
from engine.types import SegmentDraft, SegmentKind

log = logging.getLogger(__name__)

FALLBACK_WINDOW_LINES = 40


# ---------------------------------------------------------------------------- identifiers

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(identifier: str) -> list[str]:
    """``parseSrtFile`` -> ``[parse, srt, file]``; ``MAX_SIZE`` -> ``[max, size]``."""
    return [w.lower() for w in _WORD_PART.findall(identifier)]


def identifier_words(code: str) -> str:
    """Compound identifiers in ``code`` split into words, each distinct phrase once.

    Single-word identifiers are left out: full-text search already sees them in the text.
    """
    seen: dict[str, None] = {}
    for identifier in _IDENTIFIER.findall(code):
        words = split_identifier(identifier)
        if len(words) > 1:
            seen.setdefault(" ".join(words), None)
    return " ".join(seen)


# ---------------------------------------------------------------------------- chunking


@dataclass(slots=True)
class _Chunk:
    first: int  # 0-based line, inclusive
    last: int  # 0-based line, inclusive
    heading: str


def _gap_chunks(first: int, last: int, heading: str) -> list[_Chunk]:
    return [_Chunk(first, last, heading)] if last >= first else []


def _plan(definition: Definition, max_lines: int) -> list[_Chunk]:
    """A definition as one chunk, or, when too long, its header, members and gaps."""
    size = definition.last - definition.first + 1
    members = [m for m in definition.members if m.first > definition.first]
    if size <= max_lines or not members:
        return [_Chunk(definition.first, definition.last, definition.heading)]
    chunks: list[_Chunk] = []
    cursor = definition.first
    for member in members:
        chunks += _gap_chunks(cursor, member.first - 1, definition.heading)
        chunks += _plan(member, max_lines)
        cursor = member.last + 1
    chunks += _gap_chunks(cursor, definition.last, definition.heading)
    return chunks


def _window_ranges(
    lines: Sequence[str], first: int, last: int, target: int, max_lines: int
) -> list[tuple[int, int]]:
    """Cut ``[first, last]`` into windows of about ``target`` lines, never over ``max_lines``,
    ending after a blank line when one is near."""
    ranges: list[tuple[int, int]] = []
    start = first
    while last - start + 1 > max_lines:
        low, high = start + max(1, target // 2), min(start + max_lines - 1, last)
        best = start + min(target, max_lines) - 1
        blanks = [i for i in range(low, high + 1) if not lines[i].strip()]
        if blanks:
            best = min(blanks, key=lambda i: abs(i - (start + target - 1)))
        ranges.append((start, best))
        start = best + 1
    if start <= last:
        ranges.append((start, last))
    return ranges


def _trim(lines: Sequence[str], first: int, last: int) -> tuple[int, int] | None:
    while first <= last and not lines[first].strip():
        first += 1
    while last >= first and not lines[last].strip():
        last -= 1
    if first > last:
        return None
    # A chunk of only braces and semicolons (a class's closing "};") is not worth a segment.
    if not any(ch.isalnum() for i in range(first, last + 1) for ch in lines[i]):
        return None
    return first, last


def _chunk_lines(code: str, grammar_name: str | None, max_lines: int) -> list[_Chunk]:
    lines = code.split("\n")
    plan: list[_Chunk] = []
    if grammar_name is not None:
        grammar = GRAMMARS[grammar_name]
        tree = parser(grammar_name).parse(code.encode("utf-8"))
        definitions = collect(tree.root_node.children, grammar, "", 0)
        cursor = 0
        for definition in definitions:
            if definition.first < cursor:  # two definitions on one line: keep them together
                plan[-1].last = max(plan[-1].last, definition.last)
                cursor = plan[-1].last + 1
                continue
            plan += _gap_chunks(cursor, definition.first - 1, "")
            plan += _plan(definition, max_lines)
            cursor = definition.last + 1
        plan += _gap_chunks(cursor, len(lines) - 1, "")
        target, limit = max_lines, max_lines
    else:
        plan = [_Chunk(0, len(lines) - 1, "")]
        target, limit = FALLBACK_WINDOW_LINES, min(max_lines, FALLBACK_WINDOW_LINES * 3 // 2)
    chunks: list[_Chunk] = []
    for chunk in plan:
        trimmed = _trim(lines, chunk.first, chunk.last)
        if trimmed is None:
            continue
        for a, b in _window_ranges(lines, trimmed[0], trimmed[1], target, limit):
            kept = _trim(lines, a, b)
            if kept is not None:
                chunks.append(_Chunk(kept[0], kept[1], chunk.heading))
    return chunks


def code_segments(
    code: str,
    path_in_archive: str,
    cfg: ChunkingConfig,
    *,
    grammar_name: str | None = None,
    line_offset: int = 0,
    default_heading: str = "",
) -> list[SegmentDraft]:
    """Chunk source text into CODE segments with 1-based inclusive lines.

    Args:
        code: the source, ``\\n`` line ends.
        path_in_archive: the file's name or its path inside the archive.
        grammar_name: a tree-sitter grammar ("python", ...); None = blank-line windows.
        line_offset: added to every line number (notebook cells after the first).
        default_heading: heading for code outside any definition.
    """
    lines = code.split("\n")
    segments: list[SegmentDraft] = []
    for chunk in _chunk_lines(code, grammar_name, max(1, cfg.code_max_lines)):
        text = "\n".join(lines[chunk.first : chunk.last + 1])
        segments.append(
            SegmentDraft(
                kind=SegmentKind.CODE,
                text=text,
                heading=chunk.heading or default_heading,
                path_in_archive=path_in_archive,
                line_start=chunk.first + 1 + line_offset,
                line_end=chunk.last + 1 + line_offset,
                extra=identifier_words(text),
            )
        )
    return segments
