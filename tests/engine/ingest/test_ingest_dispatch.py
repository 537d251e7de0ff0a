"""classify / find_sidecar / parse_file: the entry points the library calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import EngineConfig, IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest import NO_SPEECH_RECOGNITION, classify, find_sidecar, parse_file
from engine.types import SegmentKind, SourceKind
from tools.factories import (
    damaged_copies,
    make_code_zip,
    make_notebook,
    make_pdf,
    make_pptx,
    make_srt,
    make_vtt,
)

CONFIG = EngineConfig()


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.MP4", SourceKind.VIDEO), ("a.mkv", SourceKind.VIDEO), ("a.webm", SourceKind.VIDEO),
        ("a.mov", SourceKind.VIDEO), ("a.m4v", SourceKind.VIDEO), ("a.avi", SourceKind.VIDEO),
        ("a.mp3", SourceKind.AUDIO), ("a.m4a", SourceKind.AUDIO), ("a.wav", SourceKind.AUDIO),
        ("a.flac", SourceKind.AUDIO), ("a.ogg", SourceKind.AUDIO),
        ("a.srt", SourceKind.SUBTITLES), ("a.VTT", SourceKind.SUBTITLES),
        ("a.pdf", SourceKind.SLIDES), ("a.pptx", SourceKind.SLIDES),
        ("a.zip", SourceKind.CODE), ("a.ipynb", SourceKind.CODE), ("a.py", SourceKind.CODE),
        ("a.tsx", SourceKind.CODE), ("a.rs", SourceKind.CODE), ("a.sql", SourceKind.CODE),
        ("Makefile", SourceKind.CODE),
        ("a.md", SourceKind.NOTES), ("a.txt", SourceKind.NOTES), ("a.rst", SourceKind.NOTES),
        ("a.png", SourceKind.SLIDES), ("a.JPEG", SourceKind.SLIDES), ("a.odp", SourceKind.SLIDES),
        ("a.docx", SourceKind.NOTES), ("a.epub", SourceKind.NOTES), ("a.html", SourceKind.CODE),
        ("a.gif", None), ("a.doc", None), ("noextension", None),
    ],
)  # fmt: skip
def test_classify(name: str, kind: SourceKind | None) -> None:
    assert classify(Path("/x") / name) is kind


def test_find_sidecar(tmp_path: Path) -> None:
    video = tmp_path / "lecture.mp4"
    video.write_bytes(b"\0" * 10)
    assert find_sidecar(video) is None
    (tmp_path / "lecture.fr.srt").write_text("x")
    (tmp_path / "lecture 2.srt").write_text("x")  # another video's subtitles
    assert find_sidecar(video) == tmp_path / "lecture.fr.srt"
    (tmp_path / "lecture.en.vtt").write_text("x")
    assert find_sidecar(video) == tmp_path / "lecture.en.vtt"
    (tmp_path / "lecture.VTT").write_text("x")
    assert find_sidecar(video) == tmp_path / "lecture.VTT"
    (tmp_path / "lecture.srt").write_text("x")
    assert find_sidecar(video) == tmp_path / "lecture.srt"


def test_video_with_sidecar(tmp_path: Path) -> None:
    video = tmp_path / "week1.mkv"
    video.write_bytes(b"\x1a\x45\xdf\xa3" + b"\0" * 100)
    make_srt(
        tmp_path / "week1.en.srt", [(i * 5000, (i + 1) * 5000, f"Point {i}.") for i in range(10)]
    )
    parsed = parse_file(video, CONFIG)
    assert parsed.kind is SourceKind.VIDEO
    assert parsed.title == "week1"
    assert parsed.duration_ms == 50_000
    assert [(s.start_ms, s.end_ms) for s in parsed.segments] == [
        (0, 20_000),
        (15_000, 35_000),
        (30_000, 50_000),
    ]
    assert all(s.kind is SegmentKind.TRANSCRIPT for s in parsed.segments)


def test_media_without_sidecar_or_with_broken_one(tmp_path: Path) -> None:
    audio = tmp_path / "talk.mp3"
    audio.write_bytes(b"ID3" + b"\0" * 100)
    with pytest.raises(UnreadableFileError, match=f"^{NO_SPEECH_RECOGNITION}$"):
        parse_file(audio, CONFIG)
    (tmp_path / "talk.srt").write_bytes(b"\0\1\2\3" * 100)
    with pytest.raises(
        UnreadableFileError, match=r"^subtitles talk\.srt: not a subtitle file \(binary data\)$"
    ):
        parse_file(audio, CONFIG)
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    with pytest.raises(UnreadableFileError, match=r"^empty file$"):
        parse_file(empty, CONFIG)


def test_every_kind_dispatches(tmp_path: Path) -> None:
    subtitles = parse_file(make_vtt(tmp_path / "lecture.en.vtt", [(0, 1000, "Hi.")]), CONFIG)
    assert (subtitles.kind, subtitles.title, subtitles.duration_ms) == (
        SourceKind.SUBTITLES,
        "lecture",
        1000,
    )
    assert parse_file(make_pdf(tmp_path / "d.pdf", ["A\nb"]), CONFIG).segments[0].page == 1
    assert (
        parse_file(make_pptx(tmp_path / "d.pptx", [("T", "b", "")]), CONFIG).segments[0].heading
        == "T"
    )
    assert (
        parse_file(make_code_zip(tmp_path / "c.zip", {"a.py": "x = 1\n"}), CONFIG).kind
        is SourceKind.CODE
    )
    assert parse_file(make_notebook(tmp_path / "n.ipynb", [("code", "y = 2")]), CONFIG).segments
    py = tmp_path / "m.py"
    py.write_text("def f():\n    pass\n")
    assert parse_file(py, CONFIG).segments[0].heading == "def f"
    md = tmp_path / "n.md"
    md.write_text("# Heading\n\nBody.\n")
    assert parse_file(md, CONFIG).kind is SourceKind.NOTES


def test_unsupported_and_size_limits(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFileError, match=r"^unsupported file type: \.gif$"):
        parse_file(tmp_path / "x.gif", CONFIG)
    big = make_srt(tmp_path / "big.srt", [(i, i + 1, "word " * 20) for i in range(100)])
    tiny = EngineConfig(limits=IngestLimits(max_text_file_bytes=1000))
    with pytest.raises(UnreadableFileError, match=r"^file too large"):
        parse_file(big, tiny)


def test_damaged_files_only_raise_unreadable(tmp_path: Path) -> None:
    """Truncated and byte-flipped files of every kind fail with our error, never another."""
    import random

    from engine.errors import CoursedexError

    rng = random.Random(7)
    originals = {
        "pptx": make_pptx(tmp_path / "g.pptx", [("A", "b", "c")]).read_bytes(),
        "pdf": make_pdf(tmp_path / "g.pdf", ["A\nb"]).read_bytes(),
        "zip": make_code_zip(tmp_path / "g.zip", {"a.py": "def f():\n    pass\n"}).read_bytes(),
        "ipynb": make_notebook(tmp_path / "g.ipynb", [("code", "x = 1")]).read_bytes(),
        "srt": b"1\n00:00:01,000 --> 00:00:02,000\nhi\n",
    }
    unexpected: list[str] = []
    for ext, data in originals.items():
        for i, path in damaged_copies(data, rng, 60, tmp_path, ext):
            try:
                parse_file(path, CONFIG)
            except CoursedexError:
                pass
            except Exception as e:  # the point of the test: report any other exception
                unexpected.append(f"{ext} #{i}: {type(e).__name__}: {e}")
    assert unexpected == []
    odd = tmp_path / "odd.ipynb"
    odd.write_text('{"worksheets": [1]}')
    with pytest.raises(UnreadableFileError, match="no cells"):
        parse_file(odd, CONFIG)
