"""SubRip/WebVTT parsing: exact cue times, styling removed, broken input tolerated."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.api import Library, Outcome
from engine.errors import UnreadableFileError
from engine.ingest.subtitles import clean_cue_line, cues_from_text, read_subtitles
from engine.types import Timing
from tools.factories import LATIN1_CUES, make_latin1_srt, make_srt, make_vtt

LIMIT = 1024**2


def test_srt_exact_times(tmp_path: Path) -> None:
    path = make_srt(
        tmp_path / "a.srt",
        [(1290, 6810, "First line\nsecond line"), (3_723_004, 3_725_000, "Late.")],
    )
    cues, warnings = read_subtitles(path, LIMIT)
    assert cues == [
        Timing(1290, 6810, "First line second line"),
        Timing(3_723_004, 3_725_000, "Late."),
    ]
    assert warnings == []


@pytest.mark.parametrize("options", [{"bom": True}, {"crlf": True}, {"encoding": "utf-16"}])
def test_srt_bom_crlf_utf16(tmp_path: Path, options: dict[str, object]) -> None:
    path = make_srt(tmp_path / "a.srt", [(0, 1000, "Ça va?"), (1000, 2000, "Oui.")], **options)  # type: ignore[arg-type]
    cues, _ = read_subtitles(path, LIMIT)
    assert [c.text for c in cues] == ["Ça va?", "Oui."]
    assert cues[0] == Timing(0, 1000, "Ça va?")


def test_latin1_srt_decodes_accents(tmp_path: Path) -> None:
    cues, _ = read_subtitles(make_latin1_srt(tmp_path / "l.srt"), LIMIT)
    assert [c.text for c in cues] == [text for _, _, text in LATIN1_CUES]


def test_vtt_styling_settings_notes_and_speakers() -> None:
    text = (
        "WEBVTT - lecture\nKind: captions\n\n"
        "STYLE\n::cue { color: yellow }\n\n"
        "NOTE this is a comment\nspanning lines\n\n"
        "intro\n"
        "00:01.000 --> 00:04.500 align:start position:10% line:0\n"
        "<v Prof. Smith>Welcome to <b>sorting</b>, <i>everyone</i>.</v>\n\n"
        "01:02:03.250 --> 01:02:05.000\n"
        '{\\an8}<font color="#ff0000">Big &amp; small</font> <c.yellow>arrays</c>\n'
        "<00:00:02.000>with &lt;3 items\n"
    )
    cues, _ = cues_from_text(text)
    assert cues == [
        Timing(1000, 4500, "Welcome to sorting, everyone."),
        Timing(3_723_250, 3_725_000, "Big & small arrays with <3 items"),
    ]


def test_missing_indices_extra_blanks_dot_separator_no_ms() -> None:
    text = (
        "\n\n00:00:01.5 --> 00:00:02,75\nno index\n\n\n\n"
        "7\n00:00:03 --> 00:00:04\nno millis\n"
        "8\n00:00:05,000 --> 00:00:06,000\nmissing blank line before index\n"
    )
    cues, _ = cues_from_text(text)
    assert cues == [
        Timing(1500, 2750, "no index"),
        Timing(3000, 4000, "no millis"),
        Timing(5000, 6000, "missing blank line before index"),
    ]


def test_bad_timestamps_skipped_rest_kept() -> None:
    text = (
        "1\n00:00:01,000 --> 00:00:02,000\ngood one\n\n"
        "2\n00:00:xx,000 --> 00:00:03,000\nbad digits\n\n"
        "3\n00:00:05,000 --> 00:00:04,000\nends before it starts\n\n"
        "4\n00:00:75,000 --> 00:00:76,000\nseventy-five seconds\n\n"
        "5\n00:00:06,000 --> 00:00:07,000\ngood two\n"
    )
    cues, warnings = cues_from_text(text)
    assert [c.text for c in cues] == ["good one", "good two"]
    assert warnings == ["3 cue(s) with bad timestamps skipped"]


def test_absurd_hours_are_bad_timestamps_and_the_import_goes_on(
    tmp_path: Path, library: Library
) -> None:
    """A 20- or 40-digit hour overflowed SQLite's integers (OverflowError), which ended the
    whole import; every later file stayed queued and every re-run crashed on the same file."""
    huge = "9" * 20
    text = (
        f"1\n{huge}:00:01,000 --> {huge}:00:02,000\ntwenty digits\n\n"
        f"2\n{'1' * 40}:00:03,000 --> {'1' * 40}:00:04,000\nforty digits\n\n"
        "3\n1000:00:05,000 --> 1000:00:06,000\na thousand hours is still allowed\n\n"
        "4\n00:00:06,000 --> 00:00:07,000\nthe okapi\n"
    )
    cues, warnings = cues_from_text(text)
    assert [c.text for c in cues] == ["the okapi", "a thousand hours is still allowed"]
    assert warnings == ["2 cue(s) with bad timestamps skipped"]
    only_bad = tmp_path / "a-bad.srt"
    only_bad.write_text(f"1\n{huge}:00:01,000 --> {huge}:00:02,000\nnothing else\n")
    mixed = tmp_path / "b-mixed.srt"
    mixed.write_text(text, encoding="utf-8")
    after = make_srt(tmp_path / "c-after.srt", [(1000, 2000, "The giraffe sleeps standing.")])
    report = library.ingest([only_bad, mixed, after])
    outcomes = {Path(f.path).name: f.outcome for f in report.files}
    assert outcomes == {
        "a-bad.srt": Outcome.ERROR,
        "b-mixed.srt": Outcome.INDEXED,
        "c-after.srt": Outcome.INDEXED,
    }
    assert library.search("okapi").results[0].source == str(mixed)


def test_too_many_cues_are_refused_before_parsing(tmp_path: Path) -> None:
    """A million cues would be embedded one by one for hours: refused with a reason."""
    cue = "00:00:01,000 --> 00:00:02,000\nword\n\n"
    path = tmp_path / "million.srt"
    path.write_text(cue * 50_001, encoding="utf-8")
    with pytest.raises(UnreadableFileError, match=r"^50,001 cues: more than 50,000"):
        read_subtitles(path, 64 * 1024**2)
    assert len(read_subtitles(path, 64 * 1024**2, max_cues=60_000)[0]) == 1  # all at one time


def test_notes_larger_than_the_limit_are_refused(tmp_path: Path, library: Library) -> None:
    """A 50 MB single-line .txt would make tens of thousands of chunks to embed."""
    big = tmp_path / "big.txt"
    big.write_text("word " * (9 * 1024**2 // 5), encoding="utf-8")
    report = library.ingest([big])
    assert [f.outcome for f in report.files] == [Outcome.ERROR]
    assert report.files[0].detail == "file too large (9 MB, limit 8 MB)"


def test_out_of_order_sorted_and_overlaps_clamped() -> None:
    text = (
        "1\n00:00:10,000 --> 00:00:12,000\nthird\n\n"
        "2\n00:00:00,000 --> 00:00:05,000\nfirst\n\n"
        "3\n00:00:04,000 --> 00:00:09,000\nsecond\n\n"
        "4\n00:00:10,000 --> 00:00:11,000\nsame start\n"
    )
    cues, _ = cues_from_text(text)
    assert cues == [
        Timing(0, 4000, "first"),
        Timing(4000, 9000, "second"),
        Timing(10_000, 12_000, "same start third"),
    ]


def test_rolling_captions_merged() -> None:
    # YouTube-style: each cue repeats the previous line, with 10 ms transition cues.
    text = (
        "WEBVTT\n\n"
        "00:00:00.000 --> 00:00:02.000\nwe start with\n\n"
        "00:00:02.000 --> 00:00:02.010\nwe start with\n\n"
        "00:00:02.010 --> 00:00:04.000\nwe start with\nthe merge step\n\n"
        "00:00:04.000 --> 00:00:06.000\nthe merge step\nof merge sort\n"
    )
    cues, _ = cues_from_text(text)
    assert cues == [
        Timing(0, 2010, "we start with"),
        Timing(2010, 4000, "the merge step"),
        Timing(4000, 6000, "of merge sort"),
    ]


def test_vtt_file(tmp_path: Path) -> None:
    path = make_vtt(
        tmp_path / "a.vtt",
        [(500, 1500, "<i>Hi</i> there."), (61_000, 62_000, "Bye.")],
        settings="line:90%",
    )
    cues, _ = read_subtitles(path, LIMIT)
    assert cues == [Timing(500, 1500, "Hi there."), Timing(61_000, 62_000, "Bye.")]


def test_binary_renamed_srt(tmp_path: Path) -> None:
    path = tmp_path / "movie.srt"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8)
    with pytest.raises(UnreadableFileError, match=r"^not a subtitle file \(binary data\)$"):
        read_subtitles(path, LIMIT)


def test_empty_and_cueless(tmp_path: Path) -> None:
    empty = tmp_path / "e.srt"
    empty.write_bytes(b"")
    with pytest.raises(UnreadableFileError, match=r"^empty file$"):
        read_subtitles(empty, LIMIT)
    text_only = tmp_path / "t.srt"
    text_only.write_text("just some words\nno timings at all\n")
    with pytest.raises(UnreadableFileError, match=r"no readable cues"):
        read_subtitles(text_only, LIMIT)


def test_clean_cue_line_keeps_comparisons() -> None:
    assert clean_cue_line("if a < b and c > d") == "if a < b and c > d"
    assert clean_cue_line(">> Speaker two:  hello") == "Speaker two: hello"
