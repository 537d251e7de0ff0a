"""Builders of small real input files for tests and the hostile corpus (tools/hostile/). Each
writes ``path`` and returns it.

Times are integer milliseconds. Everything is generated: no binary fixtures in the repo.

    make_pdf(tmp_path / "deck.pdf", ["Title one\\nbody line", "Title two\\nmore"])
    make_srt(tmp_path / "lecture.srt", [(0, 2500, "Hello."), (2500, 5000, "World.")])
"""

from __future__ import annotations

import json
import random
import struct
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

Cue = tuple[int, int, str]  # (start_ms, end_ms, text)


def _stamp(ms: int, separator: str, hours: bool = True) -> str:
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms_ = divmod(rest, 1000)
    if not hours and h == 0:
        return f"{m:02d}:{s:02d}{separator}{ms_:03d}"
    return f"{h:02d}:{m:02d}:{s:02d}{separator}{ms_:03d}"


def srt_text(cues: Sequence[Cue]) -> str:
    """The SRT text of ``cues`` (numbered from 1, blank line after each cue)."""
    blocks = [
        f"{i}\n{_stamp(a, ',')} --> {_stamp(b, ',')}\n{text}\n"
        for i, (a, b, text) in enumerate(cues, start=1)
    ]
    return "\n".join(blocks)


def make_note(folder: Path, name: str, text: str) -> Path:
    """``folder/name.md``: a heading from the name, then ``text`` (the folder is made)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(f"# {name.title()}\n\n{text}\n", encoding="utf-8")
    return path


def make_srt(
    path: Path,
    cues: Sequence[Cue],
    *,
    encoding: str = "utf-8",
    bom: bool = False,
    crlf: bool = False,
) -> Path:
    """An .srt file. ``encoding="utf-16"`` writes its own BOM; ``bom`` adds a UTF-8 BOM."""
    text = srt_text(cues)
    if crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode(encoding)
    if bom:
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)
    return path


def make_vtt(
    path: Path, cues: Sequence[Cue], *, header: str = "WEBVTT", settings: str = ""
) -> Path:
    """A .vtt file; times without hours when under an hour; ``settings`` follow each timing."""
    blocks = [header, ""]
    for a, b, text in cues:
        suffix = f" {settings}" if settings else ""
        blocks += [
            f"{_stamp(a, '.', hours=False)} --> {_stamp(b, '.', hours=False)}{suffix}",
            text,
            "",
        ]
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


LATIN1_CUES: tuple[Cue, ...] = (
    (1000, 4000, "Le café est très chaud, élève."),
    (4000, 8000, "Über die Straße, señor, à bientôt."),
)


def make_latin1_srt(path: Path, cues: Sequence[Cue] = LATIN1_CUES) -> Path:
    """An .srt in Latin-1 (not UTF-8) with accented text; default cues: LATIN1_CUES."""
    return make_srt(path, cues, encoding="latin-1")


def make_pdf(path: Path, pages: Sequence[str], *, slides: bool = False) -> Path:
    """A text PDF: one page per string; its first line is drawn as the title, the rest
    as body lines. ``slides`` makes 16:9 pages with large type, like a slide deck.
    Core font: Latin-1 characters only."""
    from fpdf import FPDF

    pdf = FPDF(format=(254, 142.875) if slides else "A4")
    title, body, step = (36, 26, 14) if slides else (24, 14, 10)
    pdf.set_auto_page_break(False)
    for page in pages:
        pdf.add_page()
        lines = page.split("\n")
        pdf.set_font("Helvetica", "B", title)
        pdf.set_xy(20, 20)
        pdf.cell(text=lines[0])
        pdf.set_font("Helvetica", size=body)
        for i, line in enumerate(lines[1:]):
            pdf.set_xy(20, 45 + step * i)
            pdf.cell(text=line)
    pdf.output(str(path))
    return path


def make_image_only_pdf(path: Path, pages: Sequence[str]) -> Path:
    """A PDF with no text layer: each page is a picture of its text (for OCR tests)."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw, ImageFont

    pdf = FPDF(format="A4")
    for page in pages:
        image = Image.new("RGB", (1200, 800), "white")
        draw = ImageDraw.Draw(image)
        font = ImageFont.load_default(size=48)
        for i, line in enumerate(page.split("\n")):
            draw.text((60, 60 + 70 * i), line, fill="black", font=font)
        pdf.add_page()
        pdf.image(image, x=10, y=10, w=190)
    pdf.output(str(path))
    return path


def make_pptx(path: Path, slides: Sequence[tuple[str, str, str]]) -> Path:
    """A .pptx with one "Title and Content" slide per (title, body, notes); "" leaves out."""
    from pptx import Presentation

    prs = Presentation()
    layout = prs.slide_layouts[1]
    for title, body, notes in slides:
        slide = prs.slides.add_slide(layout)
        if slide.shapes.title is not None:
            slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body  # type: ignore[attr-defined]
        if notes:
            slide.notes_slide.notes_text_frame.text = notes  # type: ignore[union-attr]
    prs.save(str(path))
    return path


def make_code_zip(path: Path, files: dict[str, str]) -> Path:
    """A deflated zip holding ``files`` (member name -> UTF-8 text)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path


def make_zip_slip(path: Path, member: str = "../../etc/passwd") -> Path:
    """A zip with a harmless file and one member whose name climbs out of the folder."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("ok.py", "print('ok')\n")
        zf.writestr(member, "root:x:0:0:root:/root:/bin/bash\n")
    return path


def make_zip_bomb(path: Path, megabytes: int = 300, name: str = "bomb.py") -> Path:
    """A zip with one member of ``megabytes`` MB of zeros (~1000x compression).

    Written in 1 MB pieces so building it needs little memory (300 MB takes ~1 s).
    """
    chunk = b"\0" * 1024**2
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, zf.open(name, "w") as f:
        for _ in range(megabytes):
            f.write(chunk)
    return path


def make_lying_zip(path: Path, name: str = "small.py", real_bytes: int = 4 * 1024**2) -> Path:
    """A zip whose member declares 100 bytes but inflates to ``real_bytes`` (``# x`` lines).

    Both the local header and the central directory carry the lie, so only a reader that
    caps what it inflates notices.
    """
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(name, b"# x\n" * (real_bytes // 4))
    data = bytearray(path.read_bytes())
    lie = struct.pack("<I", 100)
    local = data.find(b"PK\x03\x04")
    data[local + 22 : local + 26] = lie  # local header: uncompressed size
    central = data.find(b"PK\x01\x02")
    data[central + 24 : central + 28] = lie  # central directory: uncompressed size
    path.write_bytes(bytes(data))
    return path


def make_notebook(
    path: Path, cells: Sequence[tuple[str, str]], *, language: str = "python"
) -> Path:
    """An nbformat-4 notebook from (cell_type, source) pairs, cell_type "markdown"/"code"."""
    nb_cells = []
    for cell_type, source in cells:
        cell: dict[str, object] = {
            "cell_type": cell_type,
            "metadata": {},
            "source": source.splitlines(keepends=True),
        }
        if cell_type == "code":
            cell |= {"execution_count": None, "outputs": []}
        nb_cells.append(cell)
    notebook = {
        "cells": nb_cells,
        "metadata": {"kernelspec": {"language": language, "name": language}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    return path


def make_narrated_slides(
    path: Path, slides: Sequence[tuple[Sequence[str], str]], pictures: Path
) -> Path:
    """A small video (640x360, 5 fps) of slides, each shown while espeak-ng says its
    sentence: ``slides`` are (lines on the slide, what is said). ``pictures`` holds the
    slide images."""
    from tools.lecture_media import Clip, make_lecture_video, slide_image

    pictures.mkdir(parents=True, exist_ok=True)
    clips = [
        Clip(slide_image(list(lines), pictures / f"{path.stem}-{i}.png", size=(640, 360)), said)
        for i, (lines, said) in enumerate(slides)
    ]
    make_lecture_video(path, clips, fps=5)
    return path


def damaged_copies(
    data: bytes, rng: random.Random, count: int, folder: Path, ext: str
) -> Iterator[tuple[int, Path]]:
    """``count`` damaged copies of a file's ``data`` written in ``folder``: every other one
    cut short at a random length, each with 1-11 random bytes changed (for tests that check
    a reader fails with our error and no other)."""
    for i in range(count):
        damaged = bytearray(data[: rng.randrange(1, len(data))] if i % 2 else data)
        for _ in range(rng.randrange(1, 12)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        path = folder / f"d{i}.{ext}"
        path.write_bytes(bytes(damaged))
        yield i, path
