"""A handout written out: one self-contained HTML file, or Markdown with its pictures in a
folder beside it.

HTML carries its pictures as ``data:`` URIs: one file to mail, move or print, that no
folder can be lost from (the cost: base64 makes them a third larger). It has a light
stylesheet, a print stylesheet (no link colours, a slide kept whole on its page) and no
script. Markdown cannot carry pictures readably (a base64 line of 50,000 characters in the
text), so its pictures go in ``NAME_files/`` beside it, as a browser saves a page.

No PDF: the library that renders HTML and CSS faithfully without a browser (WeasyPrint)
needs Pango from the system on every platform the installers cover; the ones without
(xhtml2pdf, fpdf2's HTML) drop most of the stylesheet. A browser's Print to PDF of the HTML,
with its print stylesheet, gives the faithful PDF.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CoursedexError
from engine.integrations.handout import Handout, Remark, Said, Shown
from engine.integrations.pictures import Picture
from engine.outputs import check_output, write_failed, write_output
from engine.plain_text import clock, controls_escaped, html_text, printable

if TYPE_CHECKING:
    from engine.library import Library

HANDOUT_FORMATS = ("html", "md")

CSS = """
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1f2328; background: #fff; max-width: 72rem; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.9rem; margin: 0 0 .25rem; }
h2 { font-size: 1.3rem; margin: 0 0 .5rem; }
.meta { color: #59636e; margin: 0 0 1.5rem; }
a { color: #0b5cad; }
a.time { font: .85rem ui-monospace, "Cascadia Mono", Menlo, monospace; text-decoration: none;
         color: #0b5cad; margin-right: .5rem; white-space: nowrap; }
nav { border: 1px solid #d1d9e0; border-radius: 6px; padding: .75rem 1.25rem; margin: 0 0 2rem; }
nav ol { margin: .25rem 0; padding-left: 1.5rem; columns: 2 20rem; }
section.shown { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 6fr); gap: 1.5rem;
                border-top: 1px solid #d1d9e0; padding: 1.25rem 0; }
section.shown.plain { grid-template-columns: minmax(0, 1fr); }
figure { margin: 0; }
figure img { width: 100%; height: auto; border: 1px solid #d1d9e0; border-radius: 4px; }
figcaption, .again { color: #59636e; font-size: .85rem; margin-top: .25rem; }
.slide-text { white-space: pre-wrap; background: #f6f8fa; border: 1px solid #d1d9e0;
              border-radius: 4px; padding: .75rem; font-size: .9rem; margin: 0; }
.said p { margin: 0 0 .75rem; }
.note { background: #fff8c5; border-left: 4px solid #d4a72c; padding: .5rem .75rem;
        margin: 0 0 .75rem; border-radius: 0 4px 4px 0; }
.note b { margin-right: .5rem; }
@media screen and (max-width: 50rem) { section.shown { grid-template-columns: minmax(0, 1fr); } }
@media print {
  @page { margin: 15mm; }
  body { margin: 0; max-width: none; font-size: 10pt; padding: 0; }
  a, a.time { color: inherit; text-decoration: none; }
  section.shown { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem;
                  padding: .75rem 0; }
  figure, .note, .said p, h2 { break-inside: avoid; }
  h2 { break-after: avoid; }
  .note { border: 1px solid #999; border-left: 4px solid #666; background: none; }
}
"""


def handout_html(handout: Handout) -> str:
    """The handout as one HTML file: every text escaped, pictures as ``data:`` URIs."""
    e = html_text
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(handout.title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{e(handout.title)}</h1>",
        f'<p class="meta">{e(" · ".join(_meta(handout)))} · '
        f'<a href="{e(handout.link)}">Open in Coursedex</a></p>',
    ]
    body: list[str] = [_remark_html(r) for r in handout.remarks]
    if handout.chapters:
        body.append('<nav aria-label="Chapters"><h2>Chapters</h2><ol>')
        for chapter in handout.chapters:
            anchor = _anchor(handout.shown, chapter.start_ms)
            body.append(
                f'<li><a class="time" href="{e(chapter.link)}">{clock(chapter.start_ms)}</a>'
                f'<a href="#{anchor}">{e(chapter.title)}</a></li>'
            )
        body.append("</ol></nav>")
    body += [_shown_html(shown) for shown in handout.shown]
    return "\n".join([*head, *body, "</body>", "</html>", ""])


def _shown_html(shown: Shown) -> str:
    e = html_text
    side: list[str] = []
    if shown.picture is not None:
        alt = f"Slide {shown.page}: {shown.title}" if shown.page else shown.title
        side.append(
            f'<figure><img src="{_data_uri(shown.picture)}" alt="{e(alt)}">'
            f"<figcaption>{e(_caption(shown))}</figcaption></figure>"
        )
    if shown.slide_text:
        side.append(f'<pre class="slide-text">{e(shown.slide_text)}</pre>')
    if shown.again_ms is not None:
        side.append(
            f'<p class="again">{e(_caption(shown))}, shown before at '
            f'<a href="#{_id(shown.again_ms)}">{clock(shown.again_ms)}</a></p>'
        )
    said: list[str] = [
        f'<h2><a class="time" href="{e(shown.link)}">{clock(shown.start_ms)}</a>'
        f"{e(shown.title)}</h2>"
    ]
    for item in shown.items:
        if isinstance(item, Said):
            said.append(
                f'<p><a class="time" href="{e(item.link)}">{clock(item.start_ms)}</a>'
                f"{e(item.text)}</p>"
            )
        else:
            said.append(_remark_html(item))
    plain = "" if side else " plain"
    figure = f'<div class="screen">{"".join(side)}</div>' if side else ""
    return (
        f'<section class="shown{plain}" id="{_id(shown.start_ms)}">{figure}'
        f'<div class="said">{"".join(said)}</div></section>'
    )


def _remark_html(remark: Remark) -> str:
    e = html_text
    where = _where(remark)
    when = f'<a class="time" href="{e(remark.link)}">{e(where)}</a>' if where else ""
    return f'<div class="note">{when}<b>Note</b>{e(remark.text)}</div>'


# --- Markdown --------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")
_MD_LINE_START = re.compile(r"^(\s*)([-=>]|\d+[.)])", re.MULTILINE)


def handout_markdown(handout: Handout, pictures: str) -> str:
    """The handout as Markdown; its pictures are linked in the folder ``pictures`` (a name
    relative to the file)."""
    m = _md
    out = [
        f"# {m(handout.title)}",
        "",
        f"{m(' · '.join(_meta(handout)))} · [Open in Coursedex](<{handout.link}>)",
        "",
    ]
    for remark in handout.remarks:
        out += [_remark_md(remark), ""]
    if handout.chapters:
        out += ["## Chapters", ""]
        out += [
            f"{n}. [{clock(c.start_ms)}](<{c.link}>) {m(c.title)}"
            for n, c in enumerate(handout.chapters, start=1)
        ]
        out.append("")
    for shown in handout.shown:
        out += [f"## [{clock(shown.start_ms)}](<{shown.link}>) {m(shown.title)}", ""]
        if shown.picture is not None:
            out += [f"![{m(_caption(shown))}](<{pictures}/{shown.picture.name}>)", ""]
        if shown.slide_text:
            out += [*(f"> {m(line)}" for line in shown.slide_text.splitlines()), ""]
        if shown.again_ms is not None:
            out += [f"*{m(_caption(shown))}, shown before at {clock(shown.again_ms)}*", ""]
        for item in shown.items:
            if isinstance(item, Said):
                out += [f"[{clock(item.start_ms)}](<{item.link}>) {m(item.text)}", ""]
            else:
                out += [_remark_md(item), ""]
    return "\n".join(out)


def _remark_md(remark: Remark) -> str:
    where = _where(remark)
    when = f"[{_md(where)}](<{remark.link}>) " if where else ""
    return f"> **Note** {when}{_md(remark.text)}"


def _md(text: str) -> str:
    """Text that Markdown shows as it is: its control characters and punctuation escaped
    (``\\x1b`` as on the terminal, ``<b>`` stays text, ``*`` no emphasis), and one line (a
    line break would end a quote or a heading)."""
    text = " ".join(controls_escaped(text).split())
    return _MD_LINE_START.sub(r"\1\\\2", _MD_SPECIAL.sub(r"\\\1", text))


# --- writing ---------------------------------------------------------------------------------


def write_handout(
    handout: Handout, dest: Path, *, library: Library | None, force: bool = False
) -> Path:
    """Write ``handout`` to ``dest`` as .html (one file) or .md (pictures in
    ``<stem>_files/``), by its suffix; the file is replaced whole or not at all, and only
    where :func:`~engine.outputs.check_output` allows (``library``'s, ``force``).

    Raises:
        CoursedexError: another suffix, a target refused, or the file (or its folder)
            cannot be written.
    """
    given, dest = dest, check_output(dest, library, force=force)
    suffix = dest.suffix.lower().lstrip(".")
    if suffix == "htm":
        suffix = "html"
    if suffix not in HANDOUT_FORMATS:
        raise CoursedexError(
            f"cannot write a handout as {printable(dest.suffix) or 'a file without a suffix'}: "
            "choose .html or .md (for a PDF, print the .html from a browser)"
        )
    if suffix == "html":
        text = handout_html(handout)
    else:
        folder = dest.with_name(f"{dest.stem}_files")
        pictures = [s.picture for s in handout.shown if s.picture is not None]
        if pictures:
            for picture in pictures:  # the handout's own pictures: replaced with it
                check_output(folder / picture.name, library, force=True)
            _write_pictures(folder, pictures, library)
        text = handout_markdown(handout, folder.name)
    write_output(given, dest, _text(text), library, force=force)
    return dest


def _write_pictures(folder: Path, pictures: list[Picture], library: Library | None) -> None:
    try:
        folder.mkdir(exist_ok=True)
    except OSError as e:
        raise write_failed(folder, e) from e
    for picture in pictures:
        target = folder / picture.name
        write_output(target, target, _bytes(picture.data), library, force=True)


def _text(text: str) -> Callable[[Path], object]:
    """What writes ``text`` to a temp file: UTF-8, with \\n line ends on every system."""
    return lambda tmp: tmp.write_text(text, encoding="utf-8", newline="\n")


def _bytes(data: bytes) -> Callable[[Path], object]:
    return lambda tmp: tmp.write_bytes(data)


# --- shared ----------------------------------------------------------------------------------


def _meta(handout: Handout) -> list[str]:
    parts = [handout.course]
    if handout.duration_ms:
        parts.append(clock(handout.duration_ms))
    if handout.deck:
        parts.append(f"slides: {handout.deck}")
    return parts


def _caption(shown: Shown) -> str:
    return f"Slide {shown.page}" if shown.page else f"Screen at {clock(shown.start_ms)}"


def _where(remark: Remark) -> str:
    if remark.at_ms is not None:
        return clock(remark.at_ms)
    if remark.page is not None:
        return f"slide {remark.page}"
    return ""


def _id(start_ms: int) -> str:
    return f"t{start_ms}"


def _anchor(shown: tuple[Shown, ...], at_ms: int) -> str:
    """The id of the part on screen at ``at_ms``."""
    start = next((s.start_ms for s in reversed(shown) if s.start_ms <= at_ms), None)
    return _id(start if start is not None else shown[0].start_ms if shown else 0)


def _data_uri(picture: Picture) -> str:
    return f"data:{picture.mime};base64,{base64.b64encode(picture.data).decode('ascii')}"
