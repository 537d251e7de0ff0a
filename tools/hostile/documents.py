"""Documents and photos of the hostile corpus (tools/hostile/corpus.py): each kind broken,
huge, encrypted and under a lying extension; zip bombs inside .docx/.odt/.odp/.epub; XML
that expands its entities; pages nested deeper than any stack; pictures that decode to
gigabytes. Each must end indexed or refused in one line, never a traceback or a hang."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from tools.document_files import (
    make_docx,
    make_epub,
    make_html,
    make_odp,
    make_odt,
    make_photo,
    make_rtf,
)
from tools.factories import make_pdf, make_zip_bomb
from tools.hostile.corpus import ERROR, INDEXED, Case, _rand

SECTION = [("Thermodynamics", ["Entropy of an isolated system never decreases."])]
# The long documents and their count of paragraphs. What is hostile in them is the count
# (python-docx looked each paragraph's style up among all the styles: 20,000 took 23 s), so
# each paragraph is one word, paragraph_word(i): nine words a paragraph made a megabyte of
# text whose embedding took 76 s of CPU; embedding a huge text is test_hostile_inputs's
# ten-megabyte one.
LONG_DOCUMENTS = {"twenty_thousand_paragraphs.docx": 20_000, "long.rtf": 12_000}
_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i else "&lol;" * 10}">' for i in range(9))
    + "]>"
)


def paragraph_word(i: int) -> str:
    """Paragraph ``i`` of a long document: a word of its own, so that a reader that stops
    early, skips or repeats paragraphs is seen."""
    return f"para{i}"


def _rezip(source: Path, out: Path, replace: dict[str, bytes]) -> Path:
    """``source`` with some members' data replaced (or added)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename not in replace:
                zout.writestr(info, zin.read(info))
        for name, data in replace.items():
            zout.writestr(name, data)
    return out


def _encrypted_docx(plain: Path, out: Path) -> Path:
    from msoffcrypto.format.ooxml import OOXMLFile

    with plain.open("rb") as f, out.open("wb") as o:
        OOXMLFile(f).encrypt("secret", o)
    return out


def _docx(course: Path, work: Path) -> list[Case]:
    good = make_docx(work / "good.docx", SECTION)
    data = good.read_bytes()
    cases = [
        Case(make_docx(course / "good_handout.docx", SECTION), "a plain .docx", INDEXED),
        Case(_encrypted_docx(good, course / "password.docx"), "password-protected .docx", ERROR),
        Case(_write(course / "truncated.docx", data[: len(data) // 2]), ".docx cut in half", ERROR),
        Case(_write(course / "empty.docx", b""), "zero-length .docx", ERROR),
        Case(_write(course / "pdf_named.docx", _pdf(work)), "a PDF named .docx", ERROR),
        Case(
            _rezip(good, course / "garbage_body.docx", {"word/document.xml": _rand(4000, 31)}),
            "garbage as a .docx's body",
            ERROR,
        ),
        Case(
            _rezip(
                good,
                course / "laughs.docx",
                {"word/document.xml": (_LAUGHS + "<w:document>&lol8;</w:document>").encode()},
            ),
            "a .docx whose body is a billion laughs",
            ERROR,
        ),
        Case(
            make_zip_bomb(course / "bomb.docx", megabytes=60, name="word/document.xml"),
            "a .docx that is a zip bomb",
            ERROR,
        ),
    ]
    name = "twenty_thousand_paragraphs.docx"
    paragraphs = [paragraph_word(i) for i in range(LONG_DOCUMENTS[name])]
    long = make_docx(course / name, [("Heat", paragraphs)])
    cases.append(Case(long, "a .docx of 20,000 paragraphs", INDEXED))
    return cases


def _opendocument(course: Path, work: Path) -> list[Case]:
    odt = make_odt(work / "good.odt", SECTION)
    odp = make_odp(work / "good.odp", [("Waves", "interference")])
    manifest = (
        b'<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        b'<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/>'
        b"</manifest:file-entry></manifest:manifest>"
    )
    deep = "<text:span>" * 50_000 + "deep" + "</text:span>" * 50_000
    content = zipfile.ZipFile(odt).read("content.xml").decode()
    deep_content = content.replace("Entropy", deep + " Entropy", 1)
    return [
        Case(
            _rezip(
                odt,
                course / "password.odt",
                {"META-INF/manifest.xml": manifest, "content.xml": _rand(3000, 32)},
            ),
            "password-protected .odt",
            ERROR,
        ),
        Case(_write(course / "odp_named.odt", odp.read_bytes()), "an .odp named .odt", ERROR),
        Case(_write(course / "truncated.odp", odp.read_bytes()[:700]), ".odp cut short", ERROR),
        Case(
            _rezip(odt, course / "deep.odt", {"content.xml": deep_content.encode()}),
            "an .odt nested 50,000 spans deep",
            None,
        ),
        Case(
            make_zip_bomb(course / "bomb.odp", megabytes=60, name="content.xml"),
            "an .odp that is a zip bomb",
            ERROR,
        ),
    ]


def _rtf_and_html(course: Path) -> list[Case]:
    cases = [
        Case(_write(course / "text_named.rtf", b"just some text\n"), "text named .rtf", ERROR),
        Case(
            _write(course / "braces.rtf", b"{\\rtf1 " + b"{" * 200_000 + b"deep" + b"}" * 9),
            "an .rtf of 200,000 open braces",
            None,
        ),
        Case(
            _write(course / "binary.html", b"<html><body>" + _rand(20_000, 33)),
            "random bytes in a page",
            None,
        ),
        Case(
            _write(
                course / "nested.html",
                b"<html><body>" + b"<div>" * 200_000 + b"words " * 60 + b"</body></html>",
            ),
            "a page nested 200,000 divs deep",
            None,
        ),
    ]
    make_rtf(course / "long.rtf", [paragraph_word(i) for i in range(LONG_DOCUMENTS["long.rtf"])])
    cases.append(Case(course / "long.rtf", "an .rtf of 12,000 paragraphs", INDEXED))
    page = make_html(course / "saved_page.html", "Kinetics", [("Rates", ["Rate laws. " * 30])])
    cases.append(Case(page, "a saved page", INDEXED))
    return cases


def _epub(course: Path, work: Path) -> list[Case]:
    book = make_epub(work / "good.epub", "Book", SECTION)
    drm = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
        b'<enc:CipherReference URI="OEBPS/chapter1.xhtml"/></enc:CipherData>'
        b"</enc:EncryptedData></encryption>"
    )
    opf = zipfile.ZipFile(book).read("OEBPS/content.opf").decode()
    escaping = opf.replace('href="chapter1.xhtml"', 'href="../../../etc/passwd"')
    return [
        Case(
            _rezip(book, course / "drm.epub", {"META-INF/encryption.xml": drm}),
            "a DRM .epub",
            ERROR,
        ),
        Case(
            _rezip(book, course / "escaping.epub", {"OEBPS/content.opf": escaping.encode()}),
            "an .epub whose chapter climbs out of the book",
            ERROR,
        ),
        Case(_write(course / "zip_named.epub", _plain_zip(work)), "a zip named .epub", ERROR),
        Case(
            make_zip_bomb(course / "bomb.epub", megabytes=60, name="OEBPS/chapter1.xhtml"),
            "an .epub that is a zip bomb",
            ERROR,
        ),
    ]


def _photos(course: Path, work: Path) -> list[Case]:
    photo = make_photo(work / "good.jpg", ["Kirchhoff"]).read_bytes()
    return [
        Case(_write(course / "truncated.jpg", photo[: len(photo) // 3]), "a photo cut short", None),
        Case(_write(course / "text_named.png", b"not a picture\n"), "text named .png", ERROR),
        Case(_write(course / "pdf_named.jpg", _pdf(work)), "a PDF named .jpg", ERROR),
        Case(_write(course / "empty.webp", b""), "zero-length .webp", ERROR),
        Case(_png_bomb(course / "gigapixel.png"), "a PNG that says 60,000 x 60,000", ERROR),
        Case(
            make_photo(course / "whiteboard.webp", ["Kirchhoff current law"]),
            "a whiteboard photo",
            INDEXED,
        ),
    ]


def _png_bomb(path: Path) -> Path:
    """A small PNG whose header claims 3.6 gigapixels (its data a few compressed rows)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\0" * 60_001 * 16, 9)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows)
    return _write(path, png + chunk(b"IEND", b""))


def _pdf(work: Path) -> bytes:
    return make_pdf(work / "lying.pdf", ["A PDF\nunder another name"]).read_bytes()


def _plain_zip(work: Path) -> bytes:
    with zipfile.ZipFile(work / "plain.zip", "w") as zf:
        zf.writestr("readme.txt", "a zip, but no book in it")
    return (work / "plain.zip").read_bytes()


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def hostile_documents(course: Path) -> list[Case]:
    """Every document and photo case, written into ``course``."""
    work = course.parent / "documents_work"
    work.mkdir(exist_ok=True)
    try:
        cases = _docx(course, work) + _opendocument(course, work) + _epub(course, work)
        return cases + _rtf_and_html(course) + _photos(course, work)
    finally:
        for leftover in work.iterdir():
            leftover.unlink()
        work.rmdir()
