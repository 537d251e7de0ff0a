"""Definitions found in a tree-sitter tree: functions, classes, methods and the like, each with
the lines it spans (the comments directly above it included), its heading ("def parse",
"Parser.parse()") and, for a container (a class, an impl), the definitions inside it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import tree_sitter

from engine.ingest.grammars import Grammar

_MAX_HEADING_CHARS = 120


@dataclass(slots=True)
class Definition:
    node: tree_sitter.Node  # the definition itself (unwrapped)
    first: int
    last: int
    heading: str
    name: str
    members: list[Definition] = field(default_factory=list)


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


def _unwrap(node: tree_sitter.Node, grammar: Grammar) -> tuple[tree_sitter.Node, str] | None:
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


def collect(
    nodes: Sequence[tree_sitter.Node], grammar: Grammar, prefix: str, depth: int
) -> list[Definition]:
    """Definitions among sibling nodes, each extended upward over the comments above it."""
    found: list[Definition] = []
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
        definition = Definition(inner, first, _last_row(node), _heading(keyword, qualified), name)
        if inner.type in grammar.containers and depth < 4:
            definition.members = collect(
                _body_children(inner), grammar, qualified or prefix, depth + 1
            )
        found.append(definition)
    return found
