"""PDF and PPTX slides: page numbers, headings, OCR flags, corrupt and locked files."""

from __future__ import annotations

from pathlib import Path

import pytest
from pptx import Presentation
from pptx.util import Inches

from engine.config import IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.slides import parse_pdf, parse_pptx
from engine.types import SegmentKind, SourceKind
from tools.factories import make_code_zip, make_image_only_pdf, make_pdf, make_pptx, make_zip_bomb

LIMITS = IngestLimits()


def test_pdf_pages_headings_text(tmp_path: Path) -> None:
    path = make_pdf(
        tmp_path / "deck.pdf",
        ["Merge Sort\nDivide the array\nMerge the halves", "Quick Sort\nPick a pivot", "Summary"],
    )
    parsed = parse_pdf(path, LIMITS)
    assert parsed.kind is SourceKind.SLIDES
    assert parsed.title == "Merge Sort"
    assert parsed.duration_ms is None
    assert [(s.page, s.heading) for s in parsed.segments] == [
        (1, "Merge Sort"), (2, "Quick Sort"), (3, "Summary")
    ]  # fmt: skip
    first = parsed.segments[0]
    assert first.kind is SegmentKind.SLIDE
    assert first.text.split("\n") == ["Merge Sort", "Divide the array", "Merge the halves"]
    assert not first.needs_ocr
    assert first.start_ms is None and first.path_in_archive is None


def test_image_only_pdf_needs_ocr(tmp_path: Path) -> None:
    path = make_image_only_pdf(tmp_path / "scan.pdf", ["Binary Search\nO(log n)", "Heaps"])
    parsed = parse_pdf(path, LIMITS)
    assert [(s.page, s.text, s.heading, s.needs_ocr) for s in parsed.segments] == [
        (1, "", "", True), (2, "", "", True)
    ]  # fmt: skip
    assert parsed.title == "scan"


def test_corrupt_truncated_and_fake_pdf(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", ["Title\nbody"]).read_bytes()
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good[: len(good) // 3])
    with pytest.raises(UnreadableFileError, match=r"^not a PDF file \(corrupt or truncated\)$"):
        parse_pdf(truncated, LIMITS)
    fake = tmp_path / "fake.pdf"
    fake.write_text("this is not a pdf at all")
    with pytest.raises(UnreadableFileError, match=r"^not a PDF file$"):
        parse_pdf(fake, LIMITS)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(UnreadableFileError, match=r"^empty file$"):
        parse_pdf(empty, LIMITS)


def test_pdf_without_pages_says_so(tmp_path: Path) -> None:
    """A valid PDF of no pages was reported as corrupt (PDFium refuses it with 'Success')."""
    import pypdfium2 as pdfium

    path = tmp_path / "empty.pdf"
    document = pdfium.PdfDocument.new()
    with path.open("wb") as f:
        document.save(f)
    document.close()
    with pytest.raises(UnreadableFileError, match=r"^PDF has no pages$"):
        parse_pdf(path, IngestLimits())


def test_encrypted_pdf(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(text="Secret slide")
    path = tmp_path / "locked.pdf"
    pdf.output(str(path))
    with pytest.raises(UnreadableFileError, match=r"^PDF is password-protected$"):
        parse_pdf(path, LIMITS)


def test_pptx_titles_body_notes(tmp_path: Path) -> None:
    path = make_pptx(
        tmp_path / "week1.pptx",
        [
            ("Graphs", "Vertices and edges\nAdjacency lists", "Mention Euler here"),
            ("BFS", "Queue based", ""),
        ],
    )
    parsed = parse_pptx(path, LIMITS)
    assert parsed.kind is SourceKind.SLIDES
    assert parsed.title == "Graphs"  # python-pptx's default "PowerPoint Presentation" ignored
    assert [(s.page, s.heading) for s in parsed.segments] == [(1, "Graphs"), (2, "BFS")]
    assert parsed.segments[0].text.split("\n") == [
        "Graphs", "Vertices and edges", "Adjacency lists", "Mention Euler here"
    ]  # fmt: skip
    assert parsed.segments[1].text == "BFS\nQueue based"


def test_pptx_tables_groups_and_picture_slide(tmp_path: Path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    assert slide.shapes.title is not None
    slide.shapes.title.text = "Complexity"
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for (r, c), value in {
        (0, 0): "Algorithm",
        (0, 1): "Cost",
        (1, 0): "Merge",
        (1, 1): "n log n",
    }.items():
        table.cell(r, c).text = value
    group = slide.shapes.add_group_shape()
    box = group.shapes.add_textbox(Inches(1), Inches(4), Inches(3), Inches(1))
    box.text_frame.text = "grouped remark"
    prs.slides.add_slide(prs.slide_layouts[6])  # blank: nothing to read
    path = tmp_path / "t.pptx"
    prs.save(str(path))
    parsed = parse_pptx(path, LIMITS)
    first, blank = parsed.segments
    assert first.heading == "Complexity"
    assert first.text.split("\n") == [
        "Complexity",
        "Algorithm | Cost",
        "Merge | n log n",
        "grouped remark",
    ]
    assert (blank.page, blank.text, blank.needs_ocr) == (2, "", True)


def test_pptx_corrupt_and_bomb(tmp_path: Path) -> None:
    not_zip = tmp_path / "a.pptx"
    not_zip.write_text("hello")
    with pytest.raises(
        UnreadableFileError, match=r"^not a PowerPoint file \(corrupt or truncated\)$"
    ):
        parse_pptx(not_zip, LIMITS)
    other_zip = make_code_zip(tmp_path / "b.pptx", {"a.py": "x = 1\n"})
    with pytest.raises(UnreadableFileError, match=r"^not a PowerPoint file"):
        parse_pptx(other_zip, LIMITS)
    bomb = make_zip_bomb(tmp_path / "c.pptx", megabytes=20)
    with pytest.raises(UnreadableFileError, match=r"^zip bomb: "):
        parse_pptx(bomb, LIMITS)
