"""The tree-sitter grammars code is read with: which file names use which grammar, and, for
each, which nodes are definitions (and their heading keyword), which hold members, which wrap
one definition, and which are comments. Used by definitions.py to find definitions."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Grammar:
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

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar(
        tree_sitter_python.language,
        {"function_definition": "def", "class_definition": "class"},
        containers=frozenset({"class_definition"}),
        wrappers=frozenset({"decorated_definition"}),
    ),
    "javascript": Grammar(tree_sitter_javascript.language, _JS_DEFS, **_JS_COMMON),
    "typescript": Grammar(tree_sitter_typescript.language_typescript, _TS_DEFS, **_JS_COMMON),
    "tsx": Grammar(tree_sitter_typescript.language_tsx, _TS_DEFS, **_JS_COMMON),
    "java": Grammar(
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
    "c": Grammar(
        tree_sitter_c.language,
        {"function_definition": "()", "struct_specifier": "struct", "enum_specifier": "enum"},
    ),
    "cpp": Grammar(
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
    "go": Grammar(
        tree_sitter_go.language,
        {"function_declaration": "func", "method_declaration": "func", "type_declaration": "type"},
    ),
    "rust": Grammar(
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
def parser(name: str) -> tree_sitter.Parser:
    grammar = GRAMMARS[name]
    return tree_sitter.Parser(tree_sitter.Language(grammar.language()))


def grammar_for(filename: str) -> str | None:
    """Name of the tree-sitter grammar used for a file name, or None (line windows)."""
    return EXTENSION_GRAMMAR.get(PurePosixPath(filename).suffix.lower())
