"""Jupyter notebooks -> CODE and NOTE segments.

Line numbers: the notebook is read as the concatenation of its cells' sources in order
(markdown, code and raw cells; outputs excluded), each cell starting on a new line, with no
separator lines. Line N is the N-th line of that concatenation, so cell 1 holding 3 lines
makes cell 2 start at line 4. Markdown cells become NOTE segments (heading path from the
notebook's markdown headings), code cells are chunked like a source file.
"""

from __future__ import annotations

import json

from engine.config import ChunkingConfig
from engine.errors import UnreadableFileError
from engine.ingest.code import code_segments
from engine.ingest.grammars import EXTENSION_GRAMMAR
from engine.ingest.notes import HeadingStack, markdown_segments
from engine.types import SegmentDraft

_NOTEBOOK_LANGUAGE_EXTENSION = {
    "python": ".py", "python3": ".py", "javascript": ".js", "typescript": ".ts",
    "java": ".java", "c": ".c", "c++": ".cpp", "cpp": ".cpp", "go": ".go", "rust": ".rs",
}  # fmt: skip


def _cell_source(cell: dict[str, object]) -> str:
    source = cell.get("source", cell.get("input", ""))
    if isinstance(source, list):
        source = "".join(str(part) for part in source)
    if not isinstance(source, str):
        return ""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    return source[:-1] if source.endswith("\n") else source


def notebook_segments(text: str, name: str, cfg: ChunkingConfig) -> list[SegmentDraft]:
    """Segments of a Jupyter notebook (see the module docstring for line numbering).

    Raises:
        UnreadableFileError: not JSON or not a notebook.
    """
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as e:
        reason = f"not a Jupyter notebook (invalid JSON at line {e.lineno})"
        raise UnreadableFileError(reason) from e
    except RecursionError as e:  # thousands of nested brackets: no notebook looks like that
        raise UnreadableFileError("not a Jupyter notebook (JSON nested too deeply)") from e
    if not isinstance(notebook, dict):
        raise UnreadableFileError("not a Jupyter notebook")
    cells = notebook.get("cells")
    worksheets = notebook.get("worksheets")
    if cells is None and isinstance(worksheets, list) and worksheets:
        first = worksheets[0]
        cells = first.get("cells") if isinstance(first, dict) else None  # nbformat 3
    if not isinstance(cells, list):
        raise UnreadableFileError("not a Jupyter notebook (no cells)")
    metadata = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
    language = ""
    if isinstance(metadata, dict):
        for key in ("kernelspec", "language_info"):
            info = metadata.get(key)
            if isinstance(info, dict):
                language = str(info.get("language") or info.get("name") or "").lower()
                if language:
                    break
    extension = _NOTEBOOK_LANGUAGE_EXTENSION.get(language or "python", "")
    grammar_name = EXTENSION_GRAMMAR.get(extension)

    segments: list[SegmentDraft] = []
    stack = HeadingStack()
    offset = 0
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        source = _cell_source(cell)
        line_count = len(source.split("\n")) if source else 0
        if source.strip():
            if cell.get("cell_type") == "code":
                segments += code_segments(
                    source,
                    name,
                    cfg,
                    grammar_name=grammar_name,
                    line_offset=offset,
                    default_heading=stack.path() or f"cell {number}",
                )
            else:
                segments += markdown_segments(
                    source, cfg, stack=stack, line_offset=offset, path_in_archive=name
                )
        offset += line_count
    return segments
