"""Real documents and photos for tests, the demo and the hostile corpus, written by the
libraries other programs use (python-docx, odfpy, Pillow) or by hand where the format is a
few lines of XML in a zip (.epub) or of text (.rtf, .html).

A section is (heading, paragraphs); a slide is (title, body).
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Section = tuple[str, Sequence[str]]


def make_docx(
    path: Path,
    sections: Sequence[Section],
    *,
    title: str = "",
    table: Sequence[Sequence[str]] = (),
    comment: tuple[str, str] | None = None,
) -> Path:
    """A Word document: each section a Heading 1 and its paragraphs; then ``table``; a
    ``comment`` (author, text) on the first paragraph."""
    import docx

    doc = docx.Document()
    doc.core_properties.title = title
    first = None
    for heading, paragraphs in sections:
        doc.add_heading(heading, level=1)
        # Each paragraph goes in before an empty one that is taken out after: python-docx's
        # add_paragraph looks through the whole body each time (20,000 paragraphs took 2 s).
        end = doc.add_paragraph()
        for text in paragraphs:
            para = end.insert_paragraph_before(text)
            first = first or para
        end._p.getparent().remove(end._p)
    if table:
        grid = doc.add_table(rows=len(table), cols=max(len(r) for r in table))
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                grid.cell(r, c).text = cell
    if comment is not None and first is not None:
        doc.add_comment(first.runs, text=comment[1], author=comment[0])
    doc.save(str(path))
    return path


def make_odt(path: Path, sections: Sequence[Section]) -> Path:
    """An OpenDocument text: each section a level-1 heading and its paragraphs."""
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    doc: Any = OpenDocumentText()  # odfpy adds .text as it makes the document
    for heading, paragraphs in sections:
        doc.text.addElement(H(outlinelevel=1, text=heading))
        for text in paragraphs:
            doc.text.addElement(P(text=text))
    doc.save(str(path))
    return path


def make_odp(path: Path, slides: Sequence[tuple[str, str]]) -> Path:
    """An OpenDocument presentation: one page per (title, body)."""
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import OpenDocumentPresentation
    from odf.style import MasterPage, PageLayout
    from odf.text import P

    doc: Any = OpenDocumentPresentation()
    layout = PageLayout(name="layout")
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="master", pagelayoutname=layout)
    doc.masterstyles.addElement(master)
    for n, (title, body) in enumerate(slides, start=1):
        page = Page(name=f"page{n}", masterpagename=master)
        doc.presentation.addElement(page)
        for cls, text, y in (("title", title, "1cm"), ("outline", body, "5cm")):
            frame = Frame(width="20cm", height="3cm", x="1cm", y=y, attributes={"class": cls})
            box = TextBox()
            for line in text.split("\n"):
                box.addElement(P(text=line))
            frame.addElement(box)
            page.addElement(frame)
    doc.save(str(path))
    return path


def make_rtf(path: Path, paragraphs: Sequence[str]) -> Path:
    """An RTF file of plain paragraphs (non-ASCII letters as \\uN escapes, as Word writes)."""

    def escaped(text: str) -> str:
        out = []
        for ch in text:
            if ch in "\\{}":
                out.append("\\" + ch)
            elif ord(ch) > 127:
                out.append(f"\\u{ord(ch) if ord(ch) < 32768 else ord(ch) - 65536}?")
            else:
                out.append(ch)
        return "".join(out)

    body = "".join(f"{{\\pard {escaped(p)}\\par}}\n" for p in paragraphs)
    path.write_text(
        "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\n" + body + "}", encoding="ascii"
    )
    return path


def web_page(title: str, sections: Sequence[Section], *, menu: Sequence[str] = ()) -> str:
    """A saved page: a menu and scripts around an <article> of headed sections."""
    links = "".join(f"<li><a href='/{m}'>{m}</a></li>" for m in menu)
    article = "".join(f"<h2>{h}</h2>" + "".join(f"<p>{p}</p>" for p in ps) for h, ps in sections)
    return (
        f"<!DOCTYPE html>\n<!-- saved from url=(0030)https://example.edu/notes -->\n"
        f"<html><head><meta charset='utf-8'><title>{title}</title>"
        "<script>window.trackVisitor = function () {};</script>"
        "<style>nav { float: left }</style></head>\n<body>\n"
        f"<nav><ul>{links}</ul></nav>\n<header>University portal</header>\n"
        f"<main><article><h1>{title}</h1>\n{article}\n</article></main>\n"
        "<footer>Copyright the university</footer>\n"
        "<script>trackVisitor();</script></body></html>\n"
    )


def make_html(path: Path, title: str, sections: Sequence[Section], **kw: Sequence[str]) -> Path:
    path.write_text(web_page(title, sections, **kw), encoding="utf-8")
    return path


_CONTAINER = (
    '<?xml version="1.0"?><container version="1.0" '
    'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
    '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    "</rootfiles></container>"
)


def make_epub(path: Path, title: str, chapters: Sequence[Section]) -> Path:
    """An EPUB 3 book: one XHTML file per chapter (its title an <h1>), a nav document."""
    items, refs, links = [], [], []
    files: dict[str, str] = {}
    for n, (heading, paragraphs) in enumerate(chapters, start=1):
        name = f"chapter{n}.xhtml"
        body = "".join(f"<p>{p}</p>" for p in paragraphs)
        files[f"OEBPS/{name}"] = (
            '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>{heading}</title></head><body><h1>{heading}</h1>{body}</body></html>"
        )
        items.append(f'<item id="c{n}" href="{name}" media-type="application/xhtml+xml"/>')
        refs.append(f'<itemref idref="c{n}"/>')
        links.append(f'<li><a href="{name}">{heading}</a></li>')
    files["OEBPS/nav.xhtml"] = (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
        'xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol>'
        + "".join(links)
        + "</ol></nav></body></html>"
    )
    files["OEBPS/content.opf"] = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        f'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title>'
        "</metadata><manifest>"
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        + "".join(items)
        + "</manifest><spine>"
        + "".join(refs)
        + "</spine></package>"
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", _CONTAINER)
        for name, text in files.items():
            zf.writestr(name, text, compress_type=zipfile.ZIP_DEFLATED)
    return path


def make_photo(
    path: Path, lines: Sequence[str], *, board: bool = True, rotate_exif: bool = False
) -> Path:
    """A photo of a whiteboard (or a page): dark writing on a light, unevenly lit surface,
    saved by its extension (.jpg, .png, .webp). ``rotate_exif`` stores it on its side with
    the EXIF orientation a phone writes, so only a reader that turns it upright reads it."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    width, height = 1600, 200 + 110 * len(lines)
    image = Image.new("RGB", (width, height), (232, 236, 230) if board else "white")
    draw = ImageDraw.Draw(image)
    if board:  # light falling off to one side, and a frame
        for x in range(0, width, 8):
            shade = 236 - x * 30 // width
            draw.rectangle((x, 0, x + 8, height), fill=(shade - 4, shade, shade - 6))
        draw.rectangle((0, 0, width - 1, height - 1), outline=(90, 90, 90), width=14)
    font = ImageFont.load_default(size=64)
    for i, line in enumerate(lines):
        draw.text((90, 90 + 110 * i), line, fill=(25, 40, 120), font=font)
    image = image.filter(ImageFilter.GaussianBlur(0.8))
    if rotate_exif:
        image = image.transpose(Image.Transpose.ROTATE_90)  # what the sensor saw
        exif = Image.Exif()
        exif[0x0112] = 6  # "rotate 90 clockwise to view"
        image.save(path, exif=exif.tobytes())
    else:
        image.save(path)
    return path
