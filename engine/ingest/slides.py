"""Slide decks: PDF (pypdfium2) and PPTX (python-pptx), one segment per page or slide."""

from __future__ import annotations

import logging
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pypdfium2 as pdfium

from engine.config import IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.safezip import check_archive, open_zip
from engine.ingest.text import check_file
from engine.pdfium_lock import PDFIUM_LOCK
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind

log = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_SPACES = re.compile(r"[ \t\u00a0]+")
_MAX_HEADING_CHARS = 120


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x02", "-")
    text = _CONTROL.sub("", text)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def _first_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return line.strip()[:_MAX_HEADING_CHARS]
    return ""


_JUNK_TITLE = re.compile(
    r"^(untitled.*|powerpoint presentation|presentation\d*|slide \d+|microsoft .*"
    r"|.*\.(pptx?|docx?|pdf|key|odp))$",
    re.IGNORECASE,
)


def meta_title(raw: str) -> str:
    """A document-properties title, unless it is a tool's placeholder."""
    title = _first_line(_clean(raw))
    return "" if _JUNK_TITLE.match(title) else title


def parse_pdf(path: Path, limits: IngestLimits) -> ParsedSource:
    """One SLIDE segment per page (page is 1-based); heading = the page's first line.

    Pages without a text layer give ``needs_ocr=True`` and empty text.

    Raises:
        UnreadableFileError: empty, too large, corrupt, or password-protected.
    """
    check_file(path, limits.max_file_bytes)
    try:
        with path.open("rb") as f:
            head = f.read(1024)
    except OSError as e:
        raise UnreadableFileError(f"cannot read file: {e.strerror or e}") from e
    if b"%PDF-" not in head:  # PDFium tolerates junk before the header, not its absence
        raise UnreadableFileError("not a PDF file")
    segments: list[SegmentDraft] = []
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as e:
            if "password" in str(e).lower():
                raise UnreadableFileError("PDF is password-protected") from e
            if _has_no_pages(path):
                raise UnreadableFileError("PDF has no pages") from e
            raise UnreadableFileError("not a PDF file (corrupt or truncated)") from e
        try:
            doc_title = meta_title(doc.get_metadata_value("Title") or "")
            for index in range(len(doc)):
                page = doc[index]
                try:
                    textpage = page.get_textpage()
                    try:
                        text = _clean(textpage.get_text_range())
                    finally:
                        textpage.close()
                finally:
                    page.close()
                segments.append(
                    SegmentDraft(
                        kind=SegmentKind.SLIDE,
                        text=text,
                        heading=_first_line(text),
                        page=index + 1,
                        needs_ocr=not text,
                    )
                )
        except pdfium.PdfiumError as e:
            raise UnreadableFileError("PDF is damaged (a page cannot be read)") from e
        finally:
            doc.close()
    if not segments:
        raise UnreadableFileError("PDF has no pages")
    title = doc_title or next((s.heading for s in segments if s.heading), "") or path.stem
    return ParsedSource(kind=SourceKind.SLIDES, title=title, segments=tuple(segments))


_NO_PAGES = re.compile(rb"/Count\s*0\b")
_A_PAGE = re.compile(rb"/Type\s*/Page\b")


def _has_no_pages(path: Path) -> bool:
    """PDFium refuses a valid PDF without pages (without setting an error code of its own:
    it reports "Success", or an earlier document's error); such a file is tiny and its page
    tree says ``/Count 0`` (it was called corrupt)."""
    try:
        if path.stat().st_size > 64 * 1024:
            return False
        data = path.read_bytes()
    except OSError:
        return False
    return bool(_NO_PAGES.search(data)) and not _A_PAGE.search(data)


def _shape_texts(shapes: object) -> Iterator[str]:
    """Text of every shape, descending into groups and tables."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE
    from pptx.shapes.base import BaseShape

    for shape in shapes:  # type: ignore[attr-defined]
        if not isinstance(shape, BaseShape):
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_texts(shape.shapes)  # type: ignore[attr-defined]
            continue
        if shape.has_text_frame:
            yield shape.text_frame.text  # type: ignore[attr-defined]
        if getattr(shape, "has_table", False):
            for row in shape.table.rows:  # type: ignore[attr-defined]
                cells = [cell.text.strip() for cell in row.cells]
                yield " | ".join(c for c in cells if c)


def parse_pptx(path: Path, limits: IngestLimits) -> ParsedSource:
    """One SLIDE segment per slide: title as heading; text = all shapes, then speaker notes.

    Raises:
        UnreadableFileError: empty, too large, not a PowerPoint file, or an unsafe zip.
    """
    size = check_file(path, limits.max_file_bytes)
    if not zipfile.is_zipfile(path):
        raise UnreadableFileError("not a PowerPoint file (corrupt or truncated)")
    try:
        zf = open_zip(path)
    except UnreadableFileError as e:
        raise UnreadableFileError("not a PowerPoint file (corrupt or truncated)") from e
    with zf:  # .pptx is a zip: refuse bombs before python-pptx inflates it
        check_archive(zf, size, limits)
    segments: list[SegmentDraft] = []
    try:
        from pptx import Presentation  # ~0.25 s to import: only when a deck is read

        prs = Presentation(str(path))
        for number, slide in enumerate(prs.slides, start=1):
            title_shape = slide.shapes.title
            title = _clean(title_shape.text_frame.text) if title_shape is not None else ""
            body = [t for t in (_clean(t) for t in _shape_texts(slide.shapes)) if t]
            if title and (not body or body[0] != title):
                body.insert(0, title)
            if slide.has_notes_slide:
                notes_frame = slide.notes_slide.notes_text_frame
                notes = _clean(notes_frame.text) if notes_frame is not None else ""
                if notes:
                    body.append(notes)
            text = "\n".join(body)
            segments.append(
                SegmentDraft(
                    kind=SegmentKind.SLIDE,
                    text=text,
                    heading=(title or _first_line(text))[:_MAX_HEADING_CHARS],
                    page=number,
                    needs_ocr=not text,
                )
            )
        core_title = meta_title(prs.core_properties.title or "")
    except UnreadableFileError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, AttributeError, OSError) as e:
        raise UnreadableFileError("not a PowerPoint file (corrupt or truncated)") from e
    except Exception as e:
        # python-pptx surfaces broken packages as many library-specific types (lxml
        # XMLSyntaxError, PackageNotFoundError, ...); any of them means "unreadable deck".
        raise UnreadableFileError("not a PowerPoint file (corrupt or truncated)") from e
    if not segments:
        raise UnreadableFileError("presentation has no slides")
    title = core_title or next((s.heading for s in segments if s.heading), "") or path.stem
    return ParsedSource(kind=SourceKind.SLIDES, title=title, segments=tuple(segments))
