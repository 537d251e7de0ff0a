"""A lecture's transcript exported as .srt and .txt from a real library."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import CoursedexError
from engine.ingest.subtitles import cues_from_text
from engine.integrations.transcript_export import note_times, transcript_srt, write_transcript
from engine.library import Library
from engine.types import Timing
from tests.conftest import HIPPO_MS, LECTURE_CUES
from tests.places import at_moment
from tools.factories import make_srt


def test_srt_export_reads_back_as_the_same_transcript(library: Library, tmp_path: Path) -> None:
    lecture = make_srt(tmp_path / "lecture.srt", LECTURE_CUES)
    library.ingest([lecture])
    lines = library.transcript(str(lecture))
    assert len(lines) == len(LECTURE_CUES)
    out = write_transcript(lines, tmp_path / "lecture export.srt", library=library)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("1\n00:00:01,500 --> 00:00:04,300\nPart 0 of this lecture")
    cues, warnings = cues_from_text(text)
    assert warnings == [] and cues == lines
    # The exported file is itself a subtitle file the library can import and search.
    again = tmp_path / "again"
    again.mkdir()
    (again / "lecture.srt").write_text(text, encoding="utf-8")
    library.ingest([again / "lecture.srt"], course="Exported")
    hit = library.search("hippopotamus").results[0]
    assert at_moment(hit).start_ms == HIPPO_MS


def test_txt_export_puts_the_time_before_each_sentence(library: Library, tmp_path: Path) -> None:
    lecture = make_srt(tmp_path / "lecture.srt", LECTURE_CUES)
    library.ingest([lecture])
    said = library.transcript(str(lecture))
    out = write_transcript(said, tmp_path / "t.txt", "Zoology 1", library=library)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "Zoology 1" and lines[1] == ""
    assert lines[2] == "[00:01] Part 0 of this lecture reviews chapter 0 of the textbook."
    assert "[00:31] The hippopotamus enters the library." in lines
    assert len(lines) == 2 + len(LECTURE_CUES)


def test_a_blank_line_inside_a_sentence_cannot_split_a_cue() -> None:
    text = transcript_srt([Timing(0, 0, "first\n\nsecond"), Timing(2000, 3000, "third")])
    cues, _ = cues_from_text(text)
    assert [c.text for c in cues] == ["first second", "third"]
    assert cues[0].end_ms > cues[0].start_ms


def test_only_srt_and_txt_are_written_and_failures_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(CoursedexError, match=r"\.srt or \.txt"):
        write_transcript([Timing(0, 1000, "hello")], tmp_path / "t.docx", library=None)
    with pytest.raises(CoursedexError, match=r"cannot write \S*/gone/t\.srt: No such file"):
        write_transcript([Timing(0, 1000, "hello")], tmp_path / "gone" / "t.srt", library=None)
    assert list(tmp_path.iterdir()) == []


def test_the_lectures_notes_are_exported_at_their_times_in_both_formats(
    library: Library, tmp_path: Path
) -> None:
    lecture = make_srt(tmp_path / "lecture.srt", LECTURE_CUES)
    other = make_srt(tmp_path / "other.srt", [(0, 9000, "Another lecture about the moon.")])
    library.ingest([lecture, other], course="Zoology 1")
    library.add_note(str(lecture), "ask about\nhippos", at_ms=HIPPO_MS + 500)
    library.add_note(str(other), "not this lecture", at_ms=1000)
    lines = library.transcript(str(lecture))
    notes = note_times(library.notes(source=str(lecture)))
    assert [n.text for n in notes] == ["ask about\nhippos"]

    txt = write_transcript(
        lines, tmp_path / "t.txt", "Zoology 1", notes, library=library
    ).read_text("utf-8")
    rows = txt.splitlines()
    hippo = rows.index("[00:31] The hippopotamus enters the library.")
    assert rows[hippo + 1] == "[00:32] Note: ask about hippos"
    assert len(rows) == 2 + len(LECTURE_CUES) + 1 and "not this lecture" not in txt

    srt = write_transcript(lines, tmp_path / "t.srt", notes=notes, library=library).read_text(
        "utf-8"
    )
    cues, warnings = cues_from_text(srt)
    assert warnings == [] and len(cues) == len(LECTURE_CUES) + 1
    [note] = [c for c in cues if c.text.startswith("Note: ")]
    assert (note.start_ms, note.text) == (HIPPO_MS + 500, "Note: ask about hippos")
    assert note.end_ms > note.start_ms
    # Without notes, the export is the transcript alone, as before.
    assert transcript_srt(lines) == transcript_srt(lines, ())
    assert "Note:" not in transcript_srt(lines)
