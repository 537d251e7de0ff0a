"""Candidate libraries for reading documents, compared on files made here: seconds to read,
words kept, and whether the menus and scripts of a web page stay out.

Run with the candidates installed beside the project (they are not all its dependencies):
    uv pip install --python /tmp/docbench/bin/python python-docx docx2python mammoth \
        selectolax beautifulsoup4 trafilatura odfpy striprtf lxml
    /tmp/docbench/bin/python bench/document_libraries.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory

SECTIONS = 300
WORDS = [
    "the",
    "gradient",
    "of",
    "the",
    "loss",
    "tells",
    "each",
    "weight",
    "which",
    "way",
    "to",
    "move",
]


def _sentence(i: int) -> str:
    return " ".join(WORDS[(i + k) % len(WORDS)] for k in range(18)) + f" item{i}."


def make_docx(path: Path) -> None:
    import docx

    doc = docx.Document()
    for s in range(SECTIONS):
        doc.add_heading(f"Section {s}", level=1 + s % 2)
        for p in range(6):
            para = doc.add_paragraph(_sentence(s * 6 + p))
            if p == 0 and s % 10 == 0:
                doc.add_comment(para.runs, text=f"comment{s} check this", author="T")
        if s % 5 == 0:
            table = doc.add_table(rows=3, cols=3)
            for r in range(3):
                for c in range(3):
                    table.cell(r, c).text = f"cell{s}x{r}x{c}"
    doc.save(str(path))


def make_html(path: Path) -> None:
    menu = "".join(f"<li><a href='/x{i}'>Menuitem{i}</a></li>" for i in range(40))
    body = "".join(
        f"<h2>Section {s}</h2>" + "".join(f"<p>{_sentence(s * 6 + p)}</p>" for p in range(6))
        for s in range(SECTIONS)
    )
    path.write_text(
        "<!DOCTYPE html><html><head><title>Lecture notes</title>"
        "<script>var trackingscript = 1;</script><style>.x{color:red}</style></head>"
        f"<body><nav><ul>{menu}</ul></nav><header>Sitebanner</header>"
        f"<main><article><h1>Lecture notes</h1>{body}</article></main>"
        "<footer>Copyrightfooter</footer><script>trackingscript()</script></body></html>",
        encoding="utf-8",
    )


def timed(name: str, read: Callable[[], str], expect: list[str], reject: list[str]) -> None:
    try:
        start = time.perf_counter()
        text = read()
        took = time.perf_counter() - start
    except Exception as e:  # a candidate missing or failing is a figure too
        print(f"  {name:<22} failed: {type(e).__name__}: {e}")
        return
    kept = sum(w in text for w in expect)
    leaked = [w for w in reject if w in text]
    print(
        f"  {name:<22} {took * 1000:8.1f} ms  {len(text.split()):7d} words  "
        f"found {kept}/{len(expect)}  junk {leaked or 'none'}"
    )


def docx_readers(path: Path) -> dict[str, Callable[[], str]]:
    def python_docx() -> str:
        import docx

        doc = docx.Document(str(path))
        parts = [p.text for p in doc.paragraphs]
        parts += [c.text for t in doc.tables for row in t.rows for c in row.cells]
        parts += [c.text for c in doc.comments]
        return "\n".join(parts)

    def docx2python() -> str:
        from docx2python import docx2python as d2p  # pyright: ignore[reportMissingImports] (a candidate only)

        with d2p(str(path)) as result:
            return result.text + result.comments.__str__()

    def mammoth() -> str:
        import mammoth as m  # pyright: ignore[reportMissingImports] (a candidate only)

        with path.open("rb") as f:
            return m.extract_raw_text(f).value

    return {"python-docx": python_docx, "docx2python": docx2python, "mammoth": mammoth}


def html_readers(path: Path) -> dict[str, Callable[[], str]]:
    data = path.read_bytes()

    def lxml_own() -> str:
        import lxml.html

        root = lxml.html.fromstring(data)
        for bad in root.xpath("//script|//style|//nav|//header|//footer|//aside|//form"):
            bad.drop_tree()
        main = root.xpath("//main|//article") or [root]
        return main[0].text_content()

    def selectolax() -> str:
        from selectolax.lexbor import LexborHTMLParser  # pyright: ignore[reportMissingImports] (a candidate only)

        tree = LexborHTMLParser(data)
        tree.strip_tags(["script", "style", "nav", "header", "footer", "aside", "form"])
        node = tree.css_first("main") or tree.body
        return node.text(separator="\n") if node is not None else ""

    def trafilatura() -> str:
        import trafilatura as t  # pyright: ignore[reportMissingImports] (a candidate only)

        return t.extract(data.decode(), include_tables=True) or ""

    def bs4() -> str:
        from bs4 import BeautifulSoup  # pyright: ignore[reportMissingImports] (a candidate only)

        soup = BeautifulSoup(data, "lxml")
        for bad in soup(["script", "style", "nav", "header", "footer", "aside", "form"]):
            bad.decompose()
        return (soup.find("main") or soup).get_text("\n")

    return {"lxml.html": lxml_own, "selectolax": selectolax, "trafilatura": trafilatura, "bs4": bs4}


def main() -> None:
    expect = [f"item{i}." for i in (0, 901, SECTIONS * 6 - 1)]
    with TemporaryDirectory() as tmp:
        docx_path, html_path = Path(tmp) / "a.docx", Path(tmp) / "a.html"
        make_docx(docx_path)
        make_html(html_path)
        print(f".docx {docx_path.stat().st_size // 1024} KB, {SECTIONS} headings")
        for name, read in docx_readers(docx_path).items():
            timed(name, read, [*expect, "cell0x1x2", "comment10"], [])
        print(f".html {html_path.stat().st_size // 1024} KB")
        for name, read in html_readers(html_path).items():
            timed(name, read, expect, ["Menuitem3", "trackingscript", "Copyrightfooter"])


if __name__ == "__main__":
    main()
