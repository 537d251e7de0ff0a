"""Source code -> CODE segments, cut where tree-sitter finds definitions.

Code is cut at definition boundaries found by tree-sitter: each top-level function/class
is one segment (a class longer than ``code_max_lines`` is cut into its header, its methods
and the code between them); code between definitions (imports, module statements) forms
its own segments; anything still too long becomes line windows that prefer blank lines.
Languages without a grammar here fall back to blank-line-aware windows of ~40 lines.
Comments directly above a definition belong to it. Notebooks (notebook.py) and files and
archives (archive.py) are built on ``code_segments``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import tree_sitter
import tree_sitter_c
import tree_sitter_cpp
import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_rust
import tree_sitter_typescript

from engine.config import ChunkingConfig
from engine.types import SegmentDraft, SegmentKind

log = logging.getLogger(__name__)

FALLBACK_WINDOW_LINES = 40
_MAX_HEADING_CHARS = 120


# ---------------------------------------------------------------------------- languages


@dataclass(frozen=True, slots=True)
class _Grammar:
    """How to find definitions in one tree-sitter grammar."""

    language: Callable[[], object]
    # node type -> heading keyword; "()" means "name()" (C-family functions and methods).
    definitions: dict[str, str]
    # definitions whose body holds member definitions worth splitting out when big.
    containers: frozenset[str] = frozenset()
    # nodes that wrap one definition: decorators, export, template<...>.
    wrappers: frozenset[str] = frozenset()
    # variable declarations that define a function (`const f = () => ...`).
    variable_functions: frozenset[str] = frozenset()
    comment_types: frozenset[str] = frozenset({"comment"})


_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "()",
}
_TS_DEFS = {
    **_JS_DEFS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
    "internal_module": "namespace",
    "module": "namespace",
    "function_signature": "function",
}
_JS_COMMON = {
    "containers": frozenset({"class_declaration", "abstract_class_declaration", "internal_module"}),
    "wrappers": frozenset({"export_statement", "ambient_declaration"}),
    "variable_functions": frozenset({"lexical_declaration", "variable_declaration"}),
}

_GRAMMARS: dict[str, _Grammar] = {
    "python": _Grammar(
        tree_sitter_python.language,
        {"function_definition": "def", "class_definition": "class"},
        containers=frozenset({"class_definition"}),
        wrappers=frozenset({"decorated_definition"}),
    ),
    "javascript": _Grammar(tree_sitter_javascript.language, _JS_DEFS, **_JS_COMMON),
    "typescript": _Grammar(tree_sitter_typescript.language_typescript, _TS_DEFS, **_JS_COMMON),
    "tsx": _Grammar(tree_sitter_typescript.language_tsx, _TS_DEFS, **_JS_COMMON),
    "java": _Grammar(
        tree_sitter_java.language,
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "record",
            "method_declaration": "()",
            "constructor_declaration": "()",
        },
        containers=frozenset(
            {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
        ),
        comment_types=frozenset({"line_comment", "block_comment"}),
    ),
    "c": _Grammar(
        tree_sitter_c.language,
        {"function_definition": "()", "struct_specifier": "struct", "enum_specifier": "enum"},
    ),
    "cpp": _Grammar(
        tree_sitter_cpp.language,
        {
            "function_definition": "()",
            "class_specifier": "class",
            "struct_specifier": "struct",
            "enum_specifier": "enum",
            "namespace_definition": "namespace",
        },
        containers=frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
        wrappers=frozenset({"template_declaration"}),
    ),
    "go": _Grammar(
        tree_sitter_go.language,
        {"function_declaration": "func", "method_declaration": "func", "type_declaration": "type"},
    ),
    "rust": _Grammar(
        tree_sitter_rust.language,
        {
            "function_item": "fn",
            "struct_item": "struct",
            "enum_item": "enum",
            "union_item": "union",
            "trait_item": "trait",
            "impl_item": "impl",
            "mod_item": "mod",
            "macro_definition": "macro",
        },
        containers=frozenset({"impl_item", "trait_item", "mod_item"}),
        comment_types=frozenset({"line_comment", "block_comment"}),
    ),
}

EXTENSION_GRAMMAR = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".tsx": "tsx",
    ".java": "java", ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".cc": "cpp",
    ".cxx": "cpp", ".hh": "cpp", ".hxx": "cpp", ".go": "go", ".rs": "rust",
}  # fmt: skip


@functools.cache
def _parser(name: str) -> tree_sitter.Parser:
    grammar = _GRAMMARS[name]
    return tree_sitter.Parser(tree_sitter.Language(grammar.language()))


def grammar_for(filename: str) -> str | None:
    """Name of the tree-sitter grammar used for a file name, or None (line windows)."""
    return EXTENSION_GRAMMAR.get(PurePosixPath(filename).suffix.lower())


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


@dataclass(slots=True)
class _Definition:
    node: tree_sitter.Node  # the definition itself (unwrapped)
    first: int
    last: int
    heading: str
    name: str
    members: list[_Definition] = field(default_factory=list)


def _text(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def _last_row(node: tree_sitter.Node) -> int:
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _declarator_name(node: tree_sitter.Node) -> str:
    """Name of a C/C++ function: follow ``declarator`` fields down to the identifier."""
    current: tree_sitter.Node | None = node
    while current is not None and current.child_by_field_name("declarator") is not None:
        current = current.child_by_field_name("declarator")
    return _text(current)


def _definition_name(node: tree_sitter.Node) -> str:
    kind = node.type
    if kind == "impl_item":
        trait, type_ = node.child_by_field_name("trait"), node.child_by_field_name("type")
        return f"{_text(trait)} for {_text(type_)}" if trait is not None else _text(type_)
    if kind == "type_declaration":
        for child in node.named_children:
            if child.type in ("type_spec", "type_alias"):
                return _text(child.child_by_field_name("name"))
        return ""
    name = node.child_by_field_name("name")
    if kind == "method_declaration" and name is not None:  # Go: func (p *Parser) Parse
        receiver = node.child_by_field_name("receiver")
        types = [] if receiver is None else receiver.named_children
        owner = types[0].child_by_field_name("type") if types else None
        owner_name = _text(owner).lstrip("*").split("[")[0]
        return f"{owner_name}.{_text(name)}" if owner_name else _text(name)
    if name is not None:
        return _text(name)
    if node.child_by_field_name("declarator") is not None:
        return _declarator_name(node)
    return ""


def _unwrap(node: tree_sitter.Node, grammar: _Grammar) -> tuple[tree_sitter.Node, str] | None:
    """The definition inside ``node`` and its keyword, or None when it is not one."""
    current = node
    for _ in range(3):  # export default abstract class ..., @decorator def ...
        if current.type not in grammar.wrappers:
            break
        inner = current.child_by_field_name("definition") or current.child_by_field_name(
            "declaration"
        )
        if inner is None:
            inner = next(
                (
                    c
                    for c in current.named_children
                    if c.type in grammar.definitions or c.type in grammar.wrappers
                ),
                None,
            )
        if inner is None:
            return None
        current = inner
    if current.type in grammar.definitions:
        return current, grammar.definitions[current.type]
    if current.type in grammar.variable_functions:
        for declarator in current.named_children:
            value = declarator.child_by_field_name("value")
            if value is not None and value.type in (
                "arrow_function",
                "function_expression",
                "function",
                "generator_function",
            ):
                return declarator, "function"
    return None


def _heading(keyword: str, qualified: str) -> str:
    if not qualified:
        return keyword if keyword != "()" else ""
    heading = f"{qualified}()" if keyword == "()" else f"{keyword} {qualified}"
    return heading[:_MAX_HEADING_CHARS]


def _body_children(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    body = node.child_by_field_name("body")
    if body is None:  # C++ class_specifier body is field "body"; Go/TS odd shapes: none
        return []
    return list(body.children)


def _collect(
    nodes: Sequence[tree_sitter.Node], grammar: _Grammar, prefix: str, depth: int
) -> list[_Definition]:
    """Definitions among sibling nodes, each extended upward over the comments above it."""
    found: list[_Definition] = []
    pending_comment_start: int | None = None
    previous_last = -1
    for node in nodes:
        if node.type in grammar.comment_types:
            row = node.start_point[0]
            if pending_comment_start is None or row > previous_last + 1:
                pending_comment_start = node.start_point[0]
            previous_last = _last_row(node)
            continue
        unwrapped = _unwrap(node, grammar)
        first = node.start_point[0]
        if (
            pending_comment_start is not None
            and previous_last + 1 >= first
            and (not found or pending_comment_start > found[-1].last)
        ):
            first = pending_comment_start
        pending_comment_start = None
        previous_last = _last_row(node)
        if unwrapped is None:
            continue
        inner, keyword = unwrapped
        name = _definition_name(inner)
        qualified = f"{prefix}.{name}" if prefix and name else name or prefix
        definition = _Definition(inner, first, _last_row(node), _heading(keyword, qualified), name)
        if inner.type in grammar.containers and depth < 4:
            definition.members = _collect(
                _body_children(inner), grammar, qualified or prefix, depth + 1
            )
        found.append(definition)
    return found


def _gap_chunks(first: int, last: int, heading: str) -> list[_Chunk]:
    return [_Chunk(first, last, heading)] if last >= first else []


def _plan(definition: _Definition, max_lines: int) -> list[_Chunk]:
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
        grammar = _GRAMMARS[grammar_name]
        tree = _parser(grammar_name).parse(code.encode("utf-8"))
        definitions = _collect(tree.root_node.children, grammar, "", 0)
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
