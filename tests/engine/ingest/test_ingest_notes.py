"""Notes: Markdown heading paths, plain-text titles, word-limited chunks with exact lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import ChunkingConfig, EngineConfig
from engine.errors import UnreadableFileError
from engine.ingest.notes import markdown_segments, parse_notes, plain_segments
from engine.types import SegmentKind, SourceKind

CONFIG = EngineConfig()

MARKDOWN = """---
title: Algorithms notes
---
Intro before any heading.

# Week 2

Sorting week.

## Sorting

Merge sort splits.
Then merges.

```python
def f():

    pass
```

Setext title
------------

Under setext.

# Week 3
"""


def test_markdown_sections_and_lines(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(MARKDOWN)
    parsed = parse_notes(path, CONFIG)
    assert parsed.kind is SourceKind.NOTES
    assert parsed.title == "Algorithms notes"  # front matter wins over the first heading
    got = [(s.heading, s.line_start, s.line_end, s.text) for s in parsed.segments]
    assert got == [
        ("", 4, 4, "Intro before any heading."),
        ("Week 2", 8, 8, "Sorting week."),
        (
            "Week 2 > Sorting",
            12,
            19,
            "Merge sort splits.\nThen merges.\n\n```python\ndef f():\n\n    pass\n```",
        ),
        ("Week 2 > Setext title", 24, 24, "Under setext."),
    ]
    assert all(s.kind is SegmentKind.NOTE and s.path_in_archive is None for s in parsed.segments)


def test_markdown_title_is_first_heading(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    path.write_text("Some preface.\n\n## **Graph** [search](http://x)\n\nBFS and DFS.\n")
    parsed = parse_notes(path, CONFIG)
    assert parsed.title == "Graph search"
    assert [s.heading for s in parsed.segments] == ["", "Graph search"]


def test_long_paragraph_split_at_sentences() -> None:
    sentence = "Quick sort picks a pivot and partitions the array around it."  # 11 words
    lines = [" ".join([sentence] * 2)] * 6  # 6 lines, 12 sentences, 132 words
    text = "# Sorting\n" + "\n".join(lines) + "\n\nShort tail.\n"
    segments = markdown_segments(text, ChunkingConfig(note_max_words=50))
    assert [(s.line_start, s.line_end) for s in segments] == [(2, 3), (4, 5), (6, 9)]
    assert all(len(s.text.split()) <= 50 for s in segments)
    assert segments[0].text == " ".join([sentence] * 4)
    assert segments[-1].text.endswith(sentence + "\n\nShort tail.")


def test_paragraphs_grouped_under_word_limit() -> None:
    text = "Title\n\n" + "\n\n".join(f"para {i} has five words" for i in range(6)) + "\n"
    title, segments = plain_segments(text, ChunkingConfig(note_max_words=10))
    assert title == "Title"
    assert [(s.line_start, s.line_end, s.heading) for s in segments] == [
        (3, 5, "Title"), (7, 9, "Title"), (11, 13, "Title")
    ]  # fmt: skip
    assert segments[0].text == "para 0 has five words\n\npara 1 has five words"


def test_txt_and_rst(tmp_path: Path) -> None:
    txt = tmp_path / "readme.txt"
    txt.write_text("\n\nLecture 4: Heaps\n\nA heap is a tree.\nIt is complete.\n")
    parsed = parse_notes(txt, CONFIG)
    assert parsed.title == "Lecture 4: Heaps"
    assert [(s.line_start, s.line_end, s.text) for s in parsed.segments] == [
        (5, 6, "A heap is a tree.\nIt is complete.")
    ]
    one = tmp_path / "one.txt"
    one.write_text("only one paragraph here\nsecond line\n")
    single = parse_notes(one, CONFIG)
    assert single.title == "only one paragraph here"
    assert single.segments[0].text == "only one paragraph here\nsecond line"
    rst = tmp_path / "guide.rst"
    rst.write_text("=====\nGuide\n=====\n\nInstall it.\n\nUsage\n-----\nRun it.\n")
    parsed_rst = parse_notes(rst, CONFIG)
    assert parsed_rst.title == "Guide"
    # Adornment lines are dropped; the paragraphs fit one chunk.
    assert [(s.line_start, s.line_end, s.text) for s in parsed_rst.segments] == [
        (5, 9, "Install it.\n\nUsage\n\nRun it.")
    ]


def test_notes_errors(tmp_path: Path) -> None:
    headings = tmp_path / "h.md"
    headings.write_text("# Only\n## Headings\n")
    with pytest.raises(UnreadableFileError, match="no text to index"):
        parse_notes(headings, CONFIG)
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\x00\x01\x02\x03" * 50)
    with pytest.raises(UnreadableFileError, match=r"^not a text file \(binary data\)$"):
        parse_notes(binary, CONFIG)
    latin = tmp_path / "l.txt"
    latin.write_bytes("Résumé du cours\n\nLes élèves étudient.\n".encode("latin-1"))
    assert parse_notes(latin, CONFIG).title == "Résumé du cours"
