"""OpenDocument: .odt text (headings, paragraphs, lists, tables) and .odp slides (one
segment per page, like a .pptx), read from content.xml with lxml.

The format is a zip holding XML; lxml.etree is already in the app for python-pptx, so odfpy
(which builds its own DOM of the whole file through SAX, Apache/GPL/LGPL) is not needed. The
zip passes the archive checks and content.xml is read under the member cap before lxml sees
it; entities are never resolved and nothing is fetched.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lxml import etree  # pyright: ignore[reportAttributeAccessIssue] (a compiled module, no stubs)

from engine.config import IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.blocks import Block, Document, checked_zip, clean_line, member_bytes
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind

_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_PRESENTATION = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
_DC = "http://purl.org/dc/elements/1.1/"
_XML = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
_MIMETYPES = {
    ".odt": "application/vnd.oasis.opendocument.text",
    ".odp": "application/vnd.oasis.opendocument.presentation",
}
_WHAT = {".odt": "an OpenDocument text (.odt)", ".odp": "an OpenDocument presentation (.odp)"}
_MAX_HEADING_CHARS = 120


def _q(ns: str, name: str) -> str:
    return f"{{{ns}}}{name}"


def _content(path: Path, limits: IngestLimits) -> tuple[etree._Element, str]:
    """content.xml's root and the document's title (meta.xml), after the zip checks.

    Raises:
        UnreadableFileError: not this kind of file, password-protected, damaged, unsafe.
    """
    suffix = path.suffix.lower()
    what = _WHAT[suffix]
    with checked_zip(path, limits, what) as zf:
        names = set(zf.namelist())
        mimetype = member_bytes(zf, "mimetype", limits, what).decode("ascii", "replace")
        if mimetype.strip() != _MIMETYPES[suffix]:
            raise UnreadableFileError(f"not {what} (it says it is {mimetype.strip()[:60]!r})")
        if "META-INF/manifest.xml" in names:
            manifest = member_bytes(zf, "META-INF/manifest.xml", limits, what)
            if b"encryption-data" in manifest:
                raise UnreadableFileError(f"{what} is password-protected: save it without one")
        content = member_bytes(zf, "content.xml", limits, what)
        meta = member_bytes(zf, "meta.xml", limits, what) if "meta.xml" in names else b""
    try:
        root = etree.fromstring(content, _XML)
        meta_root = etree.fromstring(meta, _XML) if meta else None
    except (etree.XMLSyntaxError, ValueError) as e:
        raise UnreadableFileError(f"not {what} (damaged content)") from e
    title = ""
    if meta_root is not None:
        found = meta_root.find(f".//{_q(_DC, 'title')}")
        title = clean_line("".join(found.itertext())) if found is not None else ""
    return root, title


def _text_of(el: etree._Element) -> str:
    """A paragraph's text: spaces (<text:s text:c="3"/>), tabs and line breaks kept, notes'
    citations and annotations (comments, read as blocks of their own) left out."""
    out: list[str] = [el.text or ""]
    for child in el.iterdescendants():
        tag = child.tag
        if tag == _q(_TEXT, "s"):
            count = child.get(_q(_TEXT, "c")) or "1"
            out.append(" " * min(int(count) if count.isdigit() else 1, 100))
        elif tag == _q(_TEXT, "tab"):
            out.append("\t")
        elif tag == _q(_TEXT, "line-break"):
            out.append("\n")
        elif not _inside(child, el, (_q(_OFFICE, "annotation"), _q(_TEXT, "note-citation"))):
            out.append(child.text or "")
        if not _inside(child.getparent(), el, (_q(_OFFICE, "annotation"),)):
            out.append(child.tail or "")
    return "".join(out)


def _inside(el: etree._Element | None, top: etree._Element, tags: tuple[str, ...]) -> bool:
    while el is not None and el is not top:
        if el.tag in tags:
            return True
        el = el.getparent()
    return False


def _blocks(root: etree._Element) -> Iterator[Block]:
    """Headings, paragraphs (list items are paragraphs), tables row by row and comments, in
    document order."""
    paragraph, heading = _q(_TEXT, "p"), _q(_TEXT, "h")
    annotation, row = _q(_OFFICE, "annotation"), _q(_TABLE, "table-row")
    for el in root.iter(paragraph, heading, annotation, row):
        if el.tag == row:
            cells = [" ".join(_text_of(c).split()) for c in el if isinstance(c.tag, str)]
            yield Block(" | ".join(c for c in cells if c))
            continue
        if _inside(el.getparent(), root, (row, annotation)):
            continue  # read with its row or its comment
        if el.tag == annotation:
            who = el.find(_q(_DC, "creator"))
            name = clean_line(who.text or "") if who is not None else ""
            body = " ".join(_text_of(p) for p in el.iter(paragraph))
            yield Block(f"[{name or 'comment'}] {body}")
        elif el.tag == heading:
            level = el.get(_q(_TEXT, "outline-level")) or "1"
            yield Block(_text_of(el), min(6, int(level)) if level.isdigit() else 1)
        else:
            yield Block(_text_of(el))


def read_odt(path: Path, limits: IngestLimits) -> Document:
    """An OpenDocument text's blocks.

    Raises:
        UnreadableFileError: see :func:`_content`.
    """
    root, title = _content(path, limits)
    body = root.find(f".//{_q(_OFFICE, 'text')}")
    if body is None:
        raise UnreadableFileError(f"not {_WHAT['.odt']} (no text body)")
    return Document(title[:_MAX_HEADING_CHARS], tuple(_blocks(body)))


def parse_odp(path: Path, limits: IngestLimits) -> ParsedSource:
    """One SLIDE segment per page: its title frame as heading, then its frames' text, then
    its speaker notes (as a .pptx slide's).

    Raises:
        UnreadableFileError: see :func:`_content`; or no pages.
    """
    root, doc_title = _content(path, limits)
    notes_tag = _q(_PRESENTATION, "notes")
    segments: list[SegmentDraft] = []
    for number, page in enumerate(root.iter(_q(_DRAW, "page")), start=1):
        title, body, notes = "", [], []
        for frame in page.iter(_q(_DRAW, "frame")):
            text = "\n".join(
                t for t in (clean_line(_text_of(p)) for p in frame.iter(_q(_TEXT, "p"))) if t
            )
            if not text:
                continue
            if _inside(frame, page, (notes_tag,)):
                notes.append(text)
            elif frame.get(_q(_PRESENTATION, "class")) == "title" and not title:
                title = text.split("\n")[0][:_MAX_HEADING_CHARS]
                body.insert(0, text)
            else:
                body.append(text)
        text = "\n".join([*body, *notes])
        heading = title or next((ln for ln in text.split("\n") if ln), "")[:_MAX_HEADING_CHARS]
        segments.append(
            SegmentDraft(SegmentKind.SLIDE, text, heading=heading, page=number, needs_ocr=False)
        )
    if not segments:
        raise UnreadableFileError("presentation has no slides")
    title = doc_title or next((s.heading for s in segments if s.heading), "") or path.stem
    return ParsedSource(kind=SourceKind.SLIDES, title=title, segments=tuple(segments))
