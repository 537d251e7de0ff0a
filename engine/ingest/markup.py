"""Saved web pages (.html, .htm) and e-books (.epub): the readable text, by lxml.

A page's menus, banners, footers, forms, scripts and styles are left out, and when it marks
its content (``<main>``, ``role="main"``, one ``<article>``) only that is read. lxml.etree's
HTML parser is already in the app for python-pptx (bench/document_libraries.py: 32 ms for a
195 KB page; selectolax 10 ms but 7.7 MB more, trafilatura 740 ms, BeautifulSoup 370 ms).

An .epub is a zip of XHTML chapters: read in the order of its spine, each chapter titled by
its table of contents (EPUB 3 nav or EPUB 2 NCX), else by its first heading.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from lxml import etree  # pyright: ignore[reportAttributeAccessIssue] (a compiled module, no stubs)

from engine.config import IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.blocks import Block, Document, checked_zip, clean_line, member_bytes
from engine.ingest.text import check_file

_SKIP = frozenset(
    {
        "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form",
        "svg", "math", "iframe", "button", "select", "option", "head", "object", "embed",
        "canvas", "menu", "dialog", "input", "textarea", "label",
    }
)  # fmt: skip
_SKIP_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "menu", "menubar"})
_BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "main", "li", "dd", "dt", "dl", "ul", "ol",
        "blockquote", "figure", "figcaption", "caption", "address", "table", "tbody", "thead",
        "tfoot", "tr", "pre", "hr", "body", "html", "details", "summary",
    }
)  # fmt: skip
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
# Words of prose a standalone .html needs to be taken for a saved page rather than code.
SAVED_PAGE_WORDS = 40
_TEMPLATE = re.compile(rb"\{\{|\{%|<%|<\?php|\bv-if=|\bng-[a-z]+=|\{#")
_FULL_PAGE = re.compile(rb"<body\b|<!--\s*saved from url=", re.IGNORECASE)


def _tag(el: etree._Element) -> str:
    """An element's name without its namespace ("" for a comment); a damaged page may name
    an element in a way lxml itself would refuse to make (QName raises): string work only."""
    tag = el.tag
    return tag.rpartition("}")[2].lower() if isinstance(tag, str) else ""


def _skipped(el: etree._Element) -> bool:
    tag = _tag(el)
    if not tag or tag in _SKIP:
        return True
    if el.get("hidden") is not None or el.get("aria-hidden") == "true":
        return True
    if (el.get("role") or "").lower() in _SKIP_ROLES:
        return True
    return bool(_HIDDEN_STYLE.search(el.get("style") or ""))


class _Reader:
    """Blocks of an element's text, walked without recursion (a page can nest deeper than
    Python's stack)."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.buffer: list[str] = []

    def flush(self, level: int = 0) -> None:
        text = "".join(self.buffer)
        self.buffer.clear()
        lines = [" ".join(line.split()) for line in text.split("\n")]
        text = "\n".join(line for line in lines if line).strip(" |")
        if text:
            self.blocks.append(Block(text, level))

    def read(self, root: etree._Element) -> list[Block]:
        stack: list[tuple[etree._Element, bool]] = [(root, False)]
        while stack:
            el, ended = stack.pop()
            if ended:
                self._end(el)
                continue
            if el is not root and _skipped(el):
                self.buffer.append(el.tail or "")
                continue
            tag = _tag(el)
            if tag in _BLOCKS or tag in _HEADINGS:
                self.flush()
            if tag == "br":
                self.buffer.append("\n")
            self.buffer.append(el.text or "")
            stack.append((el, True))
            stack.extend((child, False) for child in reversed(el))
        self.flush()
        return self.blocks

    def _end(self, el: etree._Element) -> None:
        tag = _tag(el)
        if tag in _HEADINGS:
            self.flush(_HEADINGS[tag])
        elif tag in ("td", "th"):
            self.buffer.append(" | ")
        elif tag in _BLOCKS:
            self.flush()
        self.buffer.append(el.tail or "")


def _parse_html(data: bytes) -> etree._Element:
    try:
        data.decode("utf-8")
        parser = etree.HTMLParser(encoding="utf-8", no_network=True, remove_comments=True)
    except UnicodeDecodeError:  # its <meta charset> says, else Latin-1
        parser = etree.HTMLParser(no_network=True, remove_comments=True)
    try:
        root = etree.fromstring(data, parser)
    except (etree.ParserError, ValueError) as e:
        raise UnreadableFileError("not a web page (no HTML in it)") from e
    if root is None:
        raise UnreadableFileError("not a web page (no HTML in it)")
    return root


def _content(root: etree._Element) -> etree._Element:
    """The part of a page that is its content: <main>, else its one <article>, else <body>."""
    main = root.xpath("//main | //*[@role='main']")
    if main:
        return main[0]
    articles = root.xpath("//article")
    if len(articles) == 1:
        return articles[0]
    body = root.xpath("//body")
    return body[0] if body else root


def html_blocks(data: bytes, *, whole: bool = False) -> tuple[str, list[Block]]:
    """A page's title (its <title>) and the blocks of its readable text; ``whole`` reads
    all of <body> (an e-book's chapter has no menus to leave out).

    Raises:
        UnreadableFileError: no HTML in it.
    """
    root = _parse_html(data)
    titles = root.xpath("//head/title")
    title = clean_line("".join(titles[0].itertext())) if titles else ""
    if whole:
        body = root.xpath("//body")
        content = body[0] if body else root
    else:
        content = _content(root)
    return title, _Reader().read(content)


def _read_capped(path: Path, limits: IngestLimits) -> bytes:
    size = check_file(path, limits.max_file_bytes)
    if size > limits.max_text_file_bytes:
        raise UnreadableFileError(
            f"larger than {limits.max_text_file_bytes // 1024**2} MB: too large for a web page"
        )
    try:
        return path.read_bytes()
    except OSError as e:
        raise UnreadableFileError(f"cannot read file: {e.strerror or e}") from e


def is_saved_page(path: Path, limits: IngestLimits) -> bool:
    """Whether a standalone .html/.htm is a page saved to read (a document) rather than a
    code project's file: a whole page (<body>, or a browser's "saved from" mark), no
    template syntax ({{ }}, {% %}, <?php, ...), and at least ``SAVED_PAGE_WORDS`` words of
    readable text. A template or a near-empty app shell stays code, shown as written."""
    try:
        data = _read_capped(path, limits)
    except UnreadableFileError:
        return False  # read as code, which says why it cannot be read
    if not _FULL_PAGE.search(data[: 1024**2]) or _TEMPLATE.search(data):
        return False
    try:
        _, blocks = html_blocks(data)
    except UnreadableFileError:
        return False
    return sum(len(b.text.split()) for b in blocks) >= SAVED_PAGE_WORDS


def read_html(path: Path, limits: IngestLimits) -> Document:
    """A saved web page's readable text, its headings as headings.

    Raises:
        UnreadableFileError: empty, too large, or not HTML.
    """
    title, blocks = html_blocks(_read_capped(path, limits))
    return Document(title[:120], tuple(blocks))


# --- .epub ------------------------------------------------------------------------------

_XML = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=False)
_FONTS = (".ttf", ".otf", ".woff", ".woff2")
_EPUB = "an e-book (.epub)"


def _xml(data: bytes, name: str) -> etree._Element:
    try:
        return etree.fromstring(data, _XML)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise UnreadableFileError(f"not {_EPUB} (damaged {name})") from e


def _local(el: etree._Element, name: str) -> Iterator[etree._Element]:
    return (e for e in el.iter() if isinstance(e.tag, str) and e.tag.rpartition("}")[2] == name)


def _check_drm(zf: zipfile.ZipFile, limits: IngestLimits) -> None:
    """Fonts may be obfuscated (the EPUB standard's own scheme); encrypted chapters are DRM."""
    if "META-INF/encryption.xml" not in zf.namelist():
        return
    root = _xml(member_bytes(zf, "META-INF/encryption.xml", limits, _EPUB), "encryption.xml")
    for ref in _local(root, "CipherReference"):
        if not (ref.get("URI") or "").lower().endswith(_FONTS):
            raise UnreadableFileError("e-book is protected by DRM: its chapters are encrypted")


def _toc(zf: zipfile.ZipFile, items: dict[str, tuple[str, str, str]], limits: IngestLimits):
    """Chapter titles by file: the EPUB 3 nav document, else the EPUB 2 NCX."""
    titles: dict[str, str] = {}
    for path, media, props in items.values():
        nav = "nav" in props.split()
        if not nav and media != "application/x-dtbncx+xml":
            continue
        data = member_bytes(zf, path, limits, _EPUB)
        base = posixpath.dirname(path)
        if nav:
            root = _parse_html(data)
            pairs = [(a.get("href") or "", "".join(a.itertext())) for a in root.iter("a")]
        else:
            root = _xml(data, path)
            pairs = []
            for point in _local(root, "navPoint"):
                label = next(_local(point, "text"), None)
                src = next(_local(point, "content"), None)
                if label is not None and src is not None:
                    pairs.append((src.get("src") or "", "".join(label.itertext())))
        for href, text in pairs:
            target = _joined(base, href.split("#")[0])
            if target and clean_line(text):
                titles.setdefault(target, clean_line(text)[:120])
        if titles:
            break
    return titles


def _joined(base: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(base, unquote(href))) if href else ""


def _package(zf: zipfile.ZipFile, limits: IngestLimits):
    """The book's title, its manifest (id: path, media type, properties) and spine."""
    container = _xml(member_bytes(zf, "META-INF/container.xml", limits, _EPUB), "container")
    rootfile = next(_local(container, "rootfile"), None)
    opf_path = rootfile.get("full-path") if rootfile is not None else None
    if not opf_path:
        raise UnreadableFileError(f"not {_EPUB} (no package file named)")
    opf = _xml(member_bytes(zf, opf_path, limits, _EPUB), opf_path)
    base = posixpath.dirname(opf_path)
    items = {
        item.get("id") or "": (
            _joined(base, item.get("href") or ""),
            item.get("media-type") or "",
            item.get("properties") or "",
        )
        for item in _local(opf, "item")
    }
    spine = [ref.get("idref") or "" for ref in _local(opf, "itemref")]
    title = next((clean_line("".join(t.itertext())) for t in _local(opf, "title")), "")
    return title, items, spine


def read_epub(path: Path, limits: IngestLimits) -> Document:
    """An e-book's chapters in reading order, each a section titled by its table of
    contents (else its first heading); the chapter's own headings sit under it.

    Raises:
        UnreadableFileError: not an e-book, DRM-protected, damaged, or an unsafe zip.
    """
    with checked_zip(path, limits, _EPUB) as zf:
        _check_drm(zf, limits)
        title, items, spine = _package(zf, limits)
        toc = _toc(zf, items, limits)
        blocks: list[Block] = []
        for number, idref in enumerate(spine, start=1):
            if idref not in items:
                continue
            member, media, _props = items[idref]
            if media not in ("application/xhtml+xml", "text/html"):
                continue
            _, chapter = html_blocks(member_bytes(zf, member, limits, _EPUB), whole=True)
            blocks += _chapter(toc.get(member, ""), chapter, number)
    return Document(title[:120], tuple(blocks))


def _chapter(title: str, blocks: list[Block], number: int) -> list[Block]:
    """A chapter as a level-1 section: its own headings one level down; a first heading
    that repeats the title is the title."""
    if not any(not b.level for b in blocks):
        return []  # a cover or a title page: a picture, a name
    first = next((b for b in blocks if b.level), None)
    if not title:
        title = first.text if first is not None else f"Chapter {number}"
    body = [b for b in blocks if not (b is first and clean_line(b.text) == clean_line(title))]
    return [Block(title, 1), *(Block(b.text, min(6, b.level + 1) if b.level else 0) for b in body)]
