"""A corpus of hostile input files, generated (never committed): broken, huge, tricky and
unsafe files of every kind Coursedex reads, for tests/engine/importing/test_hostile_inputs.py.

    python tools/hostile/corpus.py OUTDIR     # writes the corpus and lists it

``generate(out)`` writes ``out/course`` (a course folder: files an import finds by walking
it) and ``out/special`` (a named pipe, links to /dev/zero, symlink loops: given to an import
by name, since a folder walk skips them) and returns one :class:`Case` per file. Each case
says what it is and, where only one outcome is right, which (``expect``). Everything is
built in about 10 s with ffmpeg and the standard library; the largest files (a 50 MB line
of text, a million subtitle cues) are written in pieces.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.factories import make_pdf, make_pptx, make_zip_bomb, srt_text

INDEXED, ERROR = "indexed", "error"
# The good files the hostile ones sit beside, and a word each is found by afterwards.
GOOD_WORDS = {
    "good_notes.md": "hippopotamus",
    "good_lecture.srt": "quasar",
    "good_deck.pdf": "photosynthesis",
    "good_code.py": "zygomorphic",
}


@dataclass(frozen=True, slots=True)
class Case:
    path: Path
    what: str  # what makes it hostile, for the report
    expect: str | None = None  # INDEXED or ERROR when only one is right; None: either


def _rand(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def _ffmpeg(out: Path, *args: str) -> Path:
    subprocess.run(
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", *args, str(out)],
        check=True,
        timeout=120,
    )
    return out


def _real_media(folder: Path) -> dict[str, Path]:
    """Two-second files of each container: a test picture with a tone, or a tone."""
    picture = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=2"]
    tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"]
    made = {
        ".mp4": _ffmpeg(folder / "base.mp4", *picture, *tone, "-c:v", "mpeg4", "-shortest"),
        ".mkv": _ffmpeg(folder / "base.mkv", *picture, *tone, "-c:v", "mpeg4", "-shortest"),
        ".webm": _ffmpeg(
            folder / "base.webm", *picture, *tone, "-c:v", "libvpx", "-c:a", "libopus", "-shortest"
        ),
        ".mp3": _ffmpeg(folder / "base.mp3", *tone),
        ".wav": _ffmpeg(folder / "base.wav", *tone),
        ".m4a": _ffmpeg(folder / "base.m4a", *tone, "-c:a", "aac"),
    }
    return made


def _media(course: Path, work: Path) -> list[Case]:
    cases: list[Case] = []
    for suffix, real in _real_media(work).items():
        data = real.read_bytes()
        stem = suffix[1:]
        for name, content, what in (
            (f"empty_{stem}{suffix}", b"", "zero-length media"),
            (f"garbage_{stem}{suffix}", _rand(40_000, len(suffix)), "random bytes as media"),
            (f"truncated_{stem}{suffix}", data[: len(data) // 2], "media cut in half"),
            (f"header_only_{stem}{suffix}", data[:64], "only the first 64 bytes of media"),
        ):
            (course / name).write_bytes(content)
            cases.append(Case(course / name, what, ERROR))
    _ffmpeg(
        course / "no_audio.mp4",
        *("-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=3"),
        *("-c:v", "mpeg4"),
    )
    cases.append(Case(course / "no_audio.mp4", "a video stream without audio", ERROR))
    # An hour of silence, cheap: 8 kHz mono at 8 kbit/s is 3.6 MB and made in about 1 s.
    _ffmpeg(
        course / "hour_of_silence.mp3",
        *("-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "3600"),
        *("-c:a", "libmp3lame", "-b:a", "8k"),
    )
    cases.append(Case(course / "hour_of_silence.mp3", "an hour of silence", ERROR))
    (course / "pdf_named.mp4").write_bytes(b"%PDF-1.4\n" + _rand(2000, 7))
    cases.append(Case(course / "pdf_named.mp4", "a PDF header in an .mp4", ERROR))
    _ffmpeg(course / "picture.png", *("-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1"))
    (course / "picture.png").rename(course / "picture_named.mp4")
    cases.append(Case(course / "picture_named.mp4", "a PNG picture in an .mp4", ERROR))
    (course / "text_named.wav").write_text("this is not audio at all\n" * 50)
    cases.append(Case(course / "text_named.wav", "text in a .wav", ERROR))
    # Subtitles beside garbage: the words are searchable, its frames cannot be read.
    (course / "garbage_with_subtitles.mp4").write_bytes(_rand(30_000, 8))
    (course / "garbage_with_subtitles.srt").write_text(
        srt_text([(0, 3000, "Subtitles of a video that is not one.")])
    )
    cases.append(Case(course / "garbage_with_subtitles.mp4", "garbage video, subtitles", INDEXED))
    return cases


def _encrypted_pdf(path: Path, user_password: str) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=14)
    pdf.cell(text=f"Secret page of {path.stem}")
    pdf.set_encryption(owner_password="owner-secret", user_password=user_password)
    pdf.output(str(path))
    return path


def _thousands_of_pages(path: Path, pages: int) -> Path:
    from fpdf import FPDF

    pdf = FPDF(format=(148, 210))
    pdf.set_font("Helvetica", size=12)
    for i in range(pages):
        pdf.add_page()
        pdf.set_xy(10, 10)
        pdf.cell(text=f"Page {i + 1}")
    pdf.output(str(path))
    return path


def _slides(course: Path) -> list[Case]:
    cases: list[Case] = []
    deck = make_pdf(course / "good_deck.pdf", ["Plants\nphotosynthesis turns light into sugar"])
    good = deck.read_bytes()
    writes: list[tuple[str, bytes, str, str | None]] = [
        ("empty.pdf", b"", "zero-length PDF", ERROR),
        ("truncated.pdf", good[: len(good) // 2], "PDF cut in half", None),
        ("corrupt.pdf", b"%PDF-1.7\n" + _rand(5000, 11), "PDF header then garbage", ERROR),
        ("no_header.pdf", _rand(3000, 12), "random bytes as a PDF", ERROR),
        (
            "no_pages.pdf",
            b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
            b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
            "PDF without pages",
            ERROR,
        ),
        ("nul_bytes.pdf", b"\0" * 4096, "NUL bytes as a PDF", ERROR),
    ]
    for name, data, what, expect in writes:
        (course / name).write_bytes(data)
        cases.append(Case(course / name, what, expect))
    _encrypted_pdf(course / "encrypted.pdf", "user-secret")
    cases.append(Case(course / "encrypted.pdf", "PDF with a user password", ERROR))
    _encrypted_pdf(course / "owner_only.pdf", "")
    cases.append(Case(course / "owner_only.pdf", "PDF with an owner password only", INDEXED))
    _thousands_of_pages(course / "two_thousand_pages.pdf", 2000)
    cases.append(Case(course / "two_thousand_pages.pdf", "a 2,000-page PDF", INDEXED))

    real = make_pptx(course / "base.pptx", [("Optics", "lenses bend light", "")]).read_bytes()
    (course / "base.pptx").unlink()
    (course / "truncated.pptx").write_bytes(real[: len(real) // 2])
    cases.append(Case(course / "truncated.pptx", ".pptx cut in half", ERROR))
    (course / "empty.pptx").write_bytes(b"")
    cases.append(Case(course / "empty.pptx", "zero-length .pptx", ERROR))
    with zipfile.ZipFile(course / "garbage_inside.pptx", "w") as zf:
        zf.writestr("[Content_Types].xml", _rand(3000, 21))
        zf.writestr("ppt/presentation.xml", "<p:presentation><<<not xml")
        zf.writestr("_rels/.rels", _rand(500, 22))
    cases.append(Case(course / "garbage_inside.pptx", "garbage inside a valid zip", ERROR))
    with zipfile.ZipFile(course / "not_a_deck.pptx", "w") as zf:
        zf.writestr("readme.txt", "a zip, but no presentation in it")
    cases.append(Case(course / "not_a_deck.pptx", "a zip without a presentation", ERROR))
    make_zip_bomb(course / "bomb.pptx", megabytes=60, name="ppt/slides/slide1.xml")
    cases.append(Case(course / "bomb.pptx", "a .pptx that is a zip bomb", ERROR))
    return cases


def _notebooks(course: Path) -> list[Case]:
    nb = {"cells": [{"cell_type": "code", "source": "print('hi')", "outputs": []}]}
    good = json.dumps(nb)
    huge = {
        "cells": [
            {
                "cell_type": "code",
                "source": ["def huge_output():\n", "    return 'x' * 20_000_000\n"],
                "outputs": [{"output_type": "stream", "text": ["x" * 20_000_000]}],
            }
        ],
        "metadata": {"kernelspec": {"language": "python"}},
    }
    texts: list[tuple[str, str | bytes, str, str | None]] = [
        ("malformed.ipynb", '{"cells": [ {"cell_type": "code", ', "malformed JSON", ERROR),
        ("truncated.ipynb", good[: len(good) // 2], "notebook cut in half", ERROR),
        ("deep.ipynb", "[" * 200_000 + "]" * 200_000, "JSON nested 200,000 deep", ERROR),
        ("a_list.ipynb", "[1, 2, 3]", "JSON that is a list", ERROR),
        ("cells_not_list.ipynb", '{"cells": "nope"}', "cells that are not a list", ERROR),
        ("no_cells.ipynb", '{"cells": []}', "a notebook without cells", ERROR),
        (
            "odd_cells.ipynb",
            json.dumps({"cells": [1, None, {"source": 5}, {"cell_type": "code", "source": [7]}]}),
            "cells of the wrong types",
            None,
        ),
        ("huge_output.ipynb", json.dumps(huge), "a 20 MB output", INDEXED),
        ("binary.ipynb", _rand(3000, 41), "random bytes as a notebook", ERROR),
    ]
    cases = []
    for name, data, what, expect in texts:
        path = course / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        cases.append(Case(path, what, expect))
    return cases


def _million_cues(path: Path) -> Path:
    """A million 90 ms cues, 100 ms apart, numbered from 1 in each block of 10,000 (as
    ``srt_text`` of each block would write them, with 10x fewer times formatted: the ten
    cues of a second share its hours, minutes and seconds)."""
    with path.open("w", encoding="utf-8") as f:
        for second in range(100_000):
            h, rest = divmod(second, 3600)
            hms = f"{h:02d}:{rest // 60:02d}:{rest % 60:02d},"
            first = second * 10 % 10_000 + 1
            f.write("".join(f"{first + k}\n{hms}{k}00 --> {hms}{k}90\nw\n\n" for k in range(10)))
    return path


def _subtitles(course: Path) -> list[Case]:
    cue = "1\n00:00:01,000 --> 00:00:02,000\n{}\n\n"
    good = srt_text([(1000, 4000, "The quasar shines."), (4000, 8000, "Its light is old.")])
    (course / "good_lecture.srt").write_text(good)
    texts: list[tuple[str, bytes, str, str | None]] = [
        ("empty.srt", b"", "zero-length subtitles", ERROR),
        (
            "absurd_time.srt",
            b"1\n99999999999999999999:00:00,000 --> 99999999999999999999:00:01,000\nfar\n\n"
            + cue.format("near").replace("1\n", "2\n", 1).encode(),
            "a 20-digit hour",
            INDEXED,
        ),
        (
            "negative_time.srt",
            b"1\n-00:00:05,000 --> -00:00:01,000\nbefore time\n\n"
            b"2\n00:00:09,000 --> 00:00:03,000\nbackwards\n\n",
            "negative and backwards timestamps",
            ERROR,
        ),
        ("nul_bytes.srt", cue.format("a\0b\0c").encode(), "NUL bytes in a cue", None),
        ("utf16_bom.srt", b"\xff\xfe" + good.encode("utf-16-le"), "UTF-16 with a BOM", INDEXED),
        ("utf16_no_bom.srt", good.encode("utf-16-le"), "UTF-16-LE without a BOM", INDEXED),
        ("utf16be_no_bom.vtt", ("WEBVTT\n\n" + good).encode("utf-16-be"), "UTF-16-BE", INDEXED),
        ("header_only.vtt", b"WEBVTT\n\n", "a WebVTT header only", ERROR),
        ("garbage.vtt", _rand(4000, 51), "random bytes as subtitles", ERROR),
        (
            "one_huge_cue.srt",
            cue.format("word " * 2_000_000).encode(),
            "one 10 MB cue",
            INDEXED,
        ),
        ("arrows_only.srt", b"-->\n" * 100_000, "100,000 lines of -->", ERROR),
    ]
    cases = []
    for name, data, what, expect in texts:
        (course / name).write_bytes(data)
        cases.append(Case(course / name, what, expect))
    _million_cues(course / "million_cues.srt")
    cases.append(Case(course / "million_cues.srt", "a million cues", ERROR))
    return cases


def _notes_and_code(course: Path) -> list[Case]:
    text = "A line of notes about the hippopotamus.\n" * 3
    (course / "good_notes.md").write_text(
        "# Animals\nThe hippopotamus lives in rivers and eats grass.\n"
    )
    (course / "good_code.py").write_text(
        "def zygomorphic(flower):\n    return flower.petals == 5\n"
    )
    writes: list[tuple[str, bytes, str, str | None]] = [
        ("utf16_bom.txt", b"\xff\xfe" + text.encode("utf-16-le"), "UTF-16 with a BOM", INDEXED),
        ("utf16_no_bom.md", text.replace("A", "The").encode("utf-16-le"), "UTF-16", INDEXED),
        ("utf16be_bom.rst", b"\xfe\xff" + text.encode("utf-16-be")[:-2] + b"!\0", "BE", None),
        ("empty.md", b"", "zero-length notes", ERROR),
        ("whitespace.txt", b" \n\t\n" * 1000, "only whitespace", ERROR),
        ("nul_bytes.txt", b"\0" * 10_000, "NUL bytes as text", ERROR),
        ("bad_utf8.rst", b"caf\xe9 cr\xe8me br\xfbl\xe9e " * 40, "Latin-1, not UTF-8", INDEXED),
        ("binary.md", _rand(20_000, 61), "random bytes as notes", ERROR),
        ("deep_quote.md", b">" * 100_000 + b" deep", "100,000 nested quotes", None),
        ("deep_list.md", b"".join(b"  " * i + b"- item\n" for i in range(2000)), "lists", None),
        ("many_headings.md", b"#" * 100_000 + b" heading\n", "100,000 # in a heading", None),
        ("nested.py", b"x = " + b"(" * 50_000 + b")" * 50_000 + b"\n", "deep Python", None),
        ("braces.c", b"int f() " + b"{" * 100_000 + b"}" * 100_000 + b"\n", "deep C", None),
        ("long_line.py", b"s = '" + b"a" * 1_500_000 + b"'\n", "a 1.5 MB line of code", None),
        ("too_big.py", b"x = 1\n" * 400_000, "2.4 MB of code", ERROR),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "deep JSON as code", None),
        ("Makefile", b"all:\n\techo $(" * 1000 + b"\n", "a makefile of ( ", None),
        ("control_chars.txt", bytes(range(1, 32)) * 500, "control characters", ERROR),
    ]
    cases = []
    for name, data, what, expect in writes:
        (course / name).write_bytes(data)
        cases.append(Case(course / name, what, expect))
    with (course / "fifty_mb_line.txt").open("wb") as f:
        for _ in range(50):
            f.write(b"word " * (1024**2 // 5))
    cases.append(Case(course / "fifty_mb_line.txt", "a 50 MB single line", ERROR))
    return cases


def _names(course: Path) -> list[Case]:
    names = {
        "new\nline.md": "a newline in the name",
        'it\'s "quoted" `x`.md': "quotes in the name",
        "🎓 lecture 😀 notes.md": "emoji in the name",
        "a" * 251 + ".md": "a 254-character name",
        "-rf --help.md": "a name like an option",
        "back\\slash;$(echo).md": "shell characters in the name",
        "\u202eelif.md": "a right-to-left override in the name",
    }
    cases = []
    for i, (name, what) in enumerate(names.items()):
        (course / name).write_text(f"# Name test {i}\nNotes saved under an odd name, number {i}.\n")
        cases.append(Case(course / name, what, INDEXED))
    raw = os.fsencode(course) + b"/latin1 caf\xe9.md"  # not UTF-8: a lone surrogate in str
    with open(raw, "wb") as f:
        f.write(b"# Not UTF-8\nA name in Latin-1 bytes.\n")
    cases.append(Case(Path(os.fsdecode(raw)), "a name that is not UTF-8", None))
    return cases


DELETED = "deleted_when_its_turn_comes.md"
REWRITTEN = "rewritten_while_read.md"


def rewritten_text(n: int) -> str:
    return f"# Rewritten {n}\n" + f"Version {n} of a file rewritten while it is read.\n" * 200


def _disturbed(course: Path) -> list[Case]:
    """Two files tools/hostile/importer.py changes during the import: one is deleted when its
    turn comes, the other rewritten (truncated, then written) again and again while read."""
    (course / DELETED).write_text("# Deleted\nThis file is deleted when the import reaches it.\n")
    (course / REWRITTEN).write_text(rewritten_text(0))
    return [
        Case(course / DELETED, "deleted when its turn comes", ERROR),
        Case(course / REWRITTEN, "rewritten while it is read", None),
    ]


def _specials(special: Path) -> list[Case]:
    """Files a folder walk skips: each is given to the import by name."""
    cases = []
    os.mkfifo(special / "pipe.mp4")
    cases.append(Case(special / "pipe.mp4", "a named pipe called .mp4", ERROR))
    os.mkfifo(special / "pipe.srt")
    cases.append(Case(special / "pipe.srt", "a named pipe called .srt", ERROR))
    links: list[tuple[str, str, str]] = [
        ("zero.txt", "/dev/zero", "a link to /dev/zero"),
        ("zero.mp4", "/dev/zero", "a link to /dev/zero as .mp4"),
        ("random.md", "/dev/urandom", "a link to /dev/urandom"),
        ("self_loop.md", "self_loop.md", "a link to itself"),
        ("broken.md", "missing/nowhere.md", "a link to nothing"),
    ]
    for name, target, what in links:
        os.symlink(target, special / name)
        cases.append(Case(special / name, what, ERROR))
    loop = special / "loop_dir"
    loop.mkdir()
    (loop / "inside.md").write_text("# Inside the loop\nNotes in a folder with a link loop.\n")
    os.symlink("..", loop / "up")
    os.symlink("ping", loop / "pong")
    os.symlink("pong", loop / "ping")
    cases.append(Case(loop, "a folder with link loops", INDEXED))
    os.symlink("ping", special / "pong_dir")
    os.symlink("pong_dir", special / "ping")
    cases.append(Case(special / "ping", "a link loop given as a folder", ERROR))
    return cases


def generate(out: Path) -> list[Case]:
    """Write the corpus under ``out`` (an empty or missing folder); one Case per input."""
    from tools.hostile.documents import hostile_documents  # they build on this module's Case
    from tools.hostile.zips import hostile_zips

    course, special, work = out / "course", out / "special", out / "work"
    for folder in (course, special, work):
        folder.mkdir(parents=True, exist_ok=True)
    parts: list[Callable[[Path], list[Case]]] = [
        _slides,
        hostile_zips,
        hostile_documents,
        _notebooks,
        _subtitles,
        _notes_and_code,
        _names,
        _disturbed,
    ]
    cases = _media(course, work)
    for part in parts:
        cases += part(course)
    cases += _specials(special)
    for leftover in work.iterdir():
        leftover.unlink()
    work.rmdir()
    return cases


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/hostile/corpus.py OUTDIR", file=sys.stderr)
        return 2
    cases = generate(Path(argv[0]))
    for case in cases:
        print(f"{case.expect or 'either':8s} {case.what}: {case.path.name!r}")
    print(f"{len(cases)} hostile inputs in {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
