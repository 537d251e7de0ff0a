"""Zips shaped like a learning platform's "Download all", built from real files for tests and
bench/course_zip_import.py.

- Moodle ("Download course content"): one top folder named after the course, a folder per
  section ("General", "Week 1", ...), each activity's files in it.
- Canvas (a course's Files, downloaded): no top folder, one flat folder per module
  ("Module 1 - Sorting/...").

Both hold slides (PDF, PowerPoint and OpenDocument), notes, a notebook, a Word handout, an
OpenDocument text, an RTF file, a saved web page, an e-book chapter, a photo of the board, a
nested code zip, a short video with its subtitles beside it, a broken PDF and a file of a
kind Coursedex does not read. Slide 6 of the Week 1 deck (Module 1's in Canvas) answers
:data:`SLIDE_6_QUESTION`; each document kind answers its question in :data:`ASKED`.
"""

from __future__ import annotations

import io
import subprocess
import zipfile
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
from tools.factories import make_code_zip, make_notebook, make_pdf, make_pptx, srt_text

MOODLE_COURSE = "CS101 Algorithms"
SLIDE_6_QUESTION = "which structure does Dijkstra use to pick the closest vertex"
SLIDE_6 = "Dijkstra's algorithm\nA binary heap priority queue picks the closest vertex\nrelax"
DECK = [
    "Graphs\nvertices and edges",
    "Adjacency lists\nstore neighbours per vertex",
    "Breadth-first search\na queue of frontier vertices",
    "Depth-first search\na stack, or recursion",
    "Weighted graphs\nedge costs",
    SLIDE_6,
    "Bellman-Ford\nnegative edges allowed",
    "Summary\nshortest paths",
]
LECTURE_CUES = [
    (0, 1500, "Today quicksort chooses a pivot element."),
    (1500, 3000, "Partition moves smaller keys left of the pivot."),
]
LAB_CODE = {
    "lab/heap.py": "def sift_down(heap, i):\n    '''Restore the heap order below i.'''\n"
    "    return heap\n",
    "lab/README.md": "# Lab 2\nImplement sift_down for the binary heap.\n",
}
# A question each document kind answers, by the place (in a section folder) that answers it.
ASKED = {
    "handout.docx": "which probing sequence does double hashing use",
    "reading.odt": "why do splay trees move an accessed node to the root",
    "Heaps.odp": "which key moves up a level in a tournament tree",
    "errata.rtf": "what was wrong in the Prim proof",
    "Syllabus.html": "when is the final exam and what may I bring",
    "chapter.epub": "how does a B-tree split a full node",
    "board.jpg": "master theorem",
}
UNKNOWN_MEMBER = "grades.xyz"
BROKEN_MEMBER = "broken.pdf"


def video_bytes(work: Path) -> bytes:
    """A two-second video with a picture and a tone (ffmpeg)."""
    out = work / "recording.mp4"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
         "testsrc=size=160x120:rate=10:duration=2", "-f", "lavfi", "-i",
         "sine=frequency=440:duration=2", "-c:v", "mpeg4", "-shortest", str(out)],
        check=True,
    )  # fmt: skip
    data = out.read_bytes()
    out.unlink()
    return data


def _files(work: Path) -> dict[str, bytes]:
    """The course's files by their place in a section, shared by both shapes."""
    work.mkdir(parents=True, exist_ok=True)
    made = {
        "deck.pdf": make_pdf(work / "deck.pdf", DECK, slides=True),
        "outline.pdf": make_pdf(work / "outline.pdf", ["Course outline\ngrading and dates"]),
        "sorting.pptx": make_pptx(
            work / "sorting.pptx",
            [("Mergesort", "divide, sort halves, merge", "stable"), ("Heapsort", "in place", "")],
        ),
        "lab.zip": make_code_zip(work / "lab.zip", LAB_CODE),
        "nb.ipynb": make_notebook(
            work / "nb.ipynb", [("markdown", "# Hashing"), ("code", "def probe(k): return k")]
        ),
    }
    made |= _documents(work)
    data = {name: path.read_bytes() for name, path in made.items()}
    for path in made.values():
        path.unlink()
    data["notes.md"] = b"# Week notes\nAmortised analysis of dynamic arrays doubles capacity.\n"
    data["recording.mp4"] = video_bytes(work)
    data["recording.srt"] = srt_text(LECTURE_CUES).encode()
    data[BROKEN_MEMBER] = b"%PDF-1.4\n" + bytes(range(256)) * 8
    data[UNKNOWN_MEMBER] = b"\x00\x01 not a kind anybody reads\n"
    return data


def _documents(work: Path) -> dict[str, Path]:
    """A file of each document kind, and a photo of the board."""
    return {
        "handout.docx": make_docx(
            work / "handout.docx",
            [("Open addressing", ["Double hashing probes with a second hash function's step."])],
            table=[["probe", "step"], ["linear", "1"]],
        ),
        "reading.odt": make_odt(
            work / "reading.odt",
            [("Splay trees", ["A splay moves each accessed node to the root by rotations."])],
        ),
        "Heaps.odp": make_odp(
            work / "Heaps.odp",
            [
                ("Selection", "k-th smallest"),
                ("Tournament trees", "each match winner moves up a level"),
            ],
        ),
        "errata.rtf": make_rtf(
            work / "errata.rtf", ["Errata: the proof of Prim's cut property missed a case."]
        ),
        "Syllabus.html": make_html(
            work / "Syllabus.html",
            "Syllabus",
            [
                ("Final exam", ["The final exam is on 14 January; bring one page of notes."]),
                (
                    "Grading",
                    [
                        "Four problem sets count for forty percent of the grade, the midterm "
                        "for twenty and the final exam for forty. Late work loses ten percent "
                        "a day unless you ask for an extension before the deadline."
                    ],
                ),
            ],
            menu=["Home", "Grades", "Forum"],
        ),
        "chapter.epub": make_epub(
            work / "chapter.epub",
            "Data Structures",
            [("B-trees", ["A full node splits around its median key into two nodes."])],
        ),
        "board.jpg": make_photo(work / "board.jpg", ["Master theorem", "T(n) = aT(n/b) + f(n)"]),
    }


def _sections(data: dict[str, bytes], names: tuple[str, str, str, str]) -> dict[str, bytes]:
    general, first, second, third = names
    return {
        f"{general}/Course outline.pdf": data["outline.pdf"],
        f"{first}/Graphs slides.pdf": data["deck.pdf"],
        f"{first}/notes.md": data["notes.md"],
        f"{first}/hashing.ipynb": data["nb.ipynb"],
        f"{first}/handout.docx": data["handout.docx"],
        f"{first}/errata.rtf": data["errata.rtf"],
        f"{general}/Syllabus.html": data["Syllabus.html"],
        f"{second}/Heaps.odp": data["Heaps.odp"],
        f"{second}/board.jpg": data["board.jpg"],
        f"{third}/reading.odt": data["reading.odt"],
        f"{third}/chapter.epub": data["chapter.epub"],
        f"{second}/Sorting.pptx": data["sorting.pptx"],
        f"{second}/lab2-code.zip": data["lab.zip"],
        f"{second}/recording.mp4": data["recording.mp4"],
        f"{second}/recording.srt": data["recording.srt"],
        f"{third}/{BROKEN_MEMBER}": data[BROKEN_MEMBER],
        f"{third}/{UNKNOWN_MEMBER}": data[UNKNOWN_MEMBER],
        f"{third}/.DS_Store": b"\0\0\0\1Bud1",  # skipped as in a folder, not named
        f"{first}/Thumbs.db": b"\xd0\xcf\x11\xe0",
    }


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def moodle_members(work: Path) -> dict[str, bytes]:
    sections = _sections(_files(work), ("General", "Week 1", "Week 2", "Week 3"))
    return {f"{MOODLE_COURSE}/{name}": data for name, data in sections.items()}


def canvas_members(work: Path) -> dict[str, bytes]:
    return _sections(
        _files(work),
        ("Course Information", "Module 1 - Graphs", "Module 2 - Sorting", "Module 3 - Extras"),
    )


def make_moodle_zip(path: Path, work: Path) -> Path:
    """Moodle's shape: "CS101 Algorithms/Week 1/Graphs slides.pdf", ..."""
    return write_zip(path, moodle_members(work))


def make_canvas_zip(path: Path, work: Path) -> Path:
    """Canvas's shape: "Module 1 - Graphs/Graphs slides.pdf", ..."""
    return write_zip(path, canvas_members(work))


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()
