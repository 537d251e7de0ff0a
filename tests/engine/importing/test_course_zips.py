"""A platform's "Download all" zip imports member by member (engine/importing/unpacking.py):
real zips shaped like Moodle's and Canvas's (tools/course_zips.py), real slides, notes, a
notebook, a nested code zip, a video (ffmpeg) with its subtitles beside it, a broken PDF and
a file of no known kind; imported into a real library with the real embedder."""

from __future__ import annotations

import threading
import zipfile
from pathlib import Path

import pytest

from engine.errors import UnreadableFileError
from engine.formatting import shown_title
from engine.importing.places import left_out, member_place, not_imported_line, shown_name
from engine.importing.progress import IngestProgress, Outcome, Stage
from engine.importing.unpacking import ARCHIVES_FOLDER, check_room
from engine.ingest.members import Member, holds_course_material, members
from engine.library import Library
from engine.store import Source
from engine.types import SegmentKind, SourceKind, SourceStatus
from tests.english import ENGLISH_INGEST
from tests.places import at_lines, at_moment, locators, on_page
from tools.course_zips import (
    ASKED,
    BROKEN_MEMBER,
    MOODLE_COURSE,
    SLIDE_6_QUESTION,
    UNKNOWN_MEMBER,
    make_canvas_zip,
    make_moodle_zip,
    moodle_members,
    write_zip,
)
from tools.factories import make_pdf

MOODLE_PLACES = {
    "General/Course outline.pdf": SourceKind.SLIDES,
    "Week 1/Graphs slides.pdf": SourceKind.SLIDES,
    "Week 1/notes.md": SourceKind.NOTES,
    "Week 1/hashing.ipynb": SourceKind.CODE,
    "Week 1/handout.docx": SourceKind.NOTES,
    "Week 1/errata.rtf": SourceKind.NOTES,
    "General/Syllabus.html": SourceKind.NOTES,  # a saved page, read as a document
    "Week 2/Heaps.odp": SourceKind.SLIDES,
    "Week 2/board.jpg": SourceKind.SLIDES,  # a photo: one page read with OCR
    "Week 3/reading.odt": SourceKind.NOTES,
    "Week 3/chapter.epub": SourceKind.NOTES,
    "Week 2/Sorting.pptx": SourceKind.SLIDES,
    "Week 2/lab2-code.zip": SourceKind.CODE,
    "Week 2/recording.mp4": SourceKind.VIDEO,
    f"Week 3/{BROKEN_MEMBER}": SourceKind.SLIDES,
}


def _imported_moodle(library: Library, tmp_path: Path) -> tuple[dict[str, bytes], Path]:
    """The Moodle zip's members, and the zip made of them, imported into ``library``."""
    members_ = moodle_members(tmp_path / "work")
    archive = write_zip(tmp_path / "cs101.zip", members_)
    library.ingest([archive])
    return members_, archive


def _places(library: Library) -> dict[str, Source]:
    return {shown_name(s.path): s for s in library.sources()}


def test_a_moodle_download_imports_each_member_as_its_kind_at_its_place(
    library: Library, tmp_path: Path
) -> None:
    archive = make_moodle_zip(tmp_path / "CS101-20261201-0830.zip", tmp_path / "work")
    heard: list[IngestProgress] = []

    report = library.ingest([archive], progress=heard.append)

    # The bar says the zip's files are being taken out, before they are read.
    taking = [p.file_fraction or 0.0 for p in heard if p.stage == Stage.UNPACKING]
    assert {p.path for p in heard if p.stage == Stage.UNPACKING} == {str(archive)}
    assert taking == sorted(taking) and len(taking) == 19  # one report per member
    assert heard.index(next(p for p in heard if p.stage == Stage.READING)) > len(taking) - 1

    places = _places(library)
    assert {p: s.kind for p, s in places.items()} == MOODLE_PLACES
    assert {s.course for s in places.values()} == {MOODLE_COURSE}  # the zip's top folder
    broken = places.pop(f"Week 3/{BROKEN_MEMBER}")
    assert broken.status == SourceStatus.ERROR
    assert all(s.status == SourceStatus.INDEXED for s in places.values())
    # Each file is kept in the library's own storage, where previews and the player read it.
    video = places["Week 2/recording.mp4"]
    assert Path(video.path).is_relative_to(library.folder / ARCHIVES_FOLDER)
    with zipfile.ZipFile(archive) as zf:
        assert Path(video.path).read_bytes() == zf.read(f"{MOODLE_COURSE}/Week 2/recording.mp4")
    assert member_place(video.path) == ("CS101-20261201-0830.zip", "Week 2/recording.mp4")
    # Nothing dropped without a word: the broken PDF and the unknown file are named.
    named = left_out(report.files)
    assert list(named) == ["CS101-20261201-0830.zip"]
    reasons = {shown_name(f.path): f.detail for f in named["CS101-20261201-0830.zip"]}
    assert set(reasons) == {f"Week 3/{BROKEN_MEMBER}", f"Week 3/{UNKNOWN_MEMBER}"}
    assert "not a kind of file Coursedex reads (.xyz)" in reasons[f"Week 3/{UNKNOWN_MEMBER}"]
    assert not_imported_line("CS101-20261201-0830.zip", named["CS101-20261201-0830.zip"]) == (
        "2 files in CS101-20261201-0830.zip not imported: Week 3/broken.pdf, Week 3/grades.xyz"
    )


def test_slide_6_answers_its_question_and_the_sidecar_is_the_videos_transcript(
    library: Library, tmp_path: Path
) -> None:
    library.ingest([make_moodle_zip(tmp_path / "cs101.zip", tmp_path / "work")])

    top = library.search(SLIDE_6_QUESTION).results[0]
    assert (shown_name(top.source), on_page(top).page) == ("Week 1/Graphs slides.pdf", 6)
    heard = library.search("quicksort pivot").results[0]
    assert shown_name(heard.source) == "Week 2/recording.mp4"
    assert heard.kind is SegmentKind.TRANSCRIPT and at_moment(heard).start_ms == 0
    # The subtitles are the video's, not a file of their own; the nested code zip is one
    # code source as any code archive, its files at their paths inside it.
    assert "Week 2/recording.srt" not in _places(library)
    code = library.search("sift_down heap order").results[0]
    assert (shown_name(code.source), at_lines(code).path_in_archive) == (
        "Week 2/lab2-code.zip",
        "lab/heap.py",
    )
    # Each document kind and the photo of the board answer their question at their place.
    titles: dict[str, str] = {}
    for name, question in ASKED.items():
        hit = library.search(question).results[0]
        assert shown_name(hit.source).endswith(f"/{name}")
        assert hit.kind is not SegmentKind.CODE  # the saved page is read, not shown as HTML
        # Its row names its place in the zip, and its title where that says more.
        titles[name] = shown_title(hit)
    assert titles["handout.docx"] == "Week 1/handout.docx · Open addressing"
    assert titles["board.jpg"] == "Week 2/board.jpg"
    notebook = library.search("def probe(k)").results[0]
    assert shown_title(notebook) == "Week 1/hashing.ipynb"  # not "... · hashing.ipynb"


def test_the_same_zip_again_is_unchanged_and_a_changed_member_alone_is_indexed_again(
    library: Library, tmp_path: Path
) -> None:
    members_, archive = _imported_moodle(library, tmp_path)

    again = library.ingest([archive])
    assert again.count(Outcome.INDEXED) == 0
    assert again.count(Outcome.UNCHANGED) == len(MOODLE_PLACES) - 1  # the broken PDF fails again

    members_[f"{MOODLE_COURSE}/Week 1/notes.md"] = b"# Week notes\nA trie stores keys by prefix.\n"
    write_zip(archive, members_)
    changed = library.ingest([archive])
    indexed = [shown_name(f.path) for f in changed.files if f.outcome == Outcome.INDEXED]
    assert indexed == ["Week 1/notes.md"]
    assert shown_name(library.search("trie prefix").results[0].source) == "Week 1/notes.md"


def test_a_canvas_download_has_no_top_folder_its_course_is_the_zips_name(
    library: Library, tmp_path: Path
) -> None:
    archive = make_canvas_zip(tmp_path / "Algorithms Fall 2026.zip", tmp_path / "work")

    library.ingest([archive])

    places = _places(library)
    assert "Module 1 - Graphs/Graphs slides.pdf" in places
    assert "Module 2 - Sorting/recording.mp4" in places
    assert {s.course for s in places.values()} == {"Algorithms Fall 2026"}


def test_a_zip_in_a_course_folder_keeps_its_name_in_front_and_the_folders_course(
    library: Library, tmp_path: Path
) -> None:
    folder = tmp_path / "Databases"
    folder.mkdir()
    make_pdf(folder / "intro.pdf", ["Relational model\ntuples and relations"])
    write_zip(folder / "week2.zip", {
        "slides.pdf": make_pdf(tmp_path / "s.pdf", ["Normal forms\nBoyce-Codd"]).read_bytes(),
        "notes.md": b"# Notes\nfunctional dependencies\n",
    })  # fmt: skip

    library.ingest([folder])

    assert {shown_name(s.path): s.course for s in library.sources()} == {
        "intro.pdf": "Databases",
        "week2.zip/slides.pdf": "Databases",
        "week2.zip/notes.md": "Databases",
    }


def test_the_issues_zip_of_slides_and_notes_is_not_a_code_archive(
    library: Library, tmp_path: Path
) -> None:
    slides = make_pdf(
        tmp_path / "s.pdf", ["Title\nintro", "Entropy\nbits of surprise"], slides=True
    )
    archive = write_zip(tmp_path / "week.zip", {
        "Week 1/slides.pdf": slides.read_bytes(),
        "Week 1/notes.md": b"# Notes\nShannon defined information.\n",
    })  # fmt: skip

    library.ingest([archive])

    assert {shown_name(s.path): s.kind for s in library.sources()} == {
        "Week 1/slides.pdf": SourceKind.SLIDES,
        "Week 1/notes.md": SourceKind.NOTES,
    }
    assert on_page(library.search("bits of surprise").results[0]).page == 2


def _zip(tmp_path: Path, names: dict[str, bytes]) -> list[Member]:
    path = write_zip(tmp_path / "x.zip", names)
    with zipfile.ZipFile(path) as zf:
        return members(zf)


def test_a_source_tree_stays_code_and_a_course_with_a_lab_folder_does_not(
    library: Library, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "d.pdf", ["Diagram\nboxes"]).read_bytes()
    project = {
        "proj/pyproject.toml": b"[project]\nname = 'graphs'\n",
        "proj/src/graphs/bfs.py": b"def bfs(g, s):\n    return [s]\n",
        "proj/src/graphs/dfs.py": b"def dfs(g, s):\n    return [s]\n",
        "proj/README.md": b"# graphs\n",
        "proj/docs/diagram.pdf": pdf,
    }
    assert not holds_course_material(_zip(tmp_path, project))
    course = {
        "Week 1/slides.pdf": pdf,
        "Week 1/lab/Makefile": b"all:\n\tcc lab.c\n",
        "Week 1/lab/lab.c": b"int main(void) { return 0; }\n",
    }
    assert holds_course_material(_zip(tmp_path, course))
    assert not holds_course_material(_zip(tmp_path, {"a.py": b"x = 1\n", "b.md": b"# b\n"}))
    # A handout is course material though it is read as notes are; a photo is, beside no
    # code; a project's logo is not.
    handout = {"Week 1/handout.docx": b"PK", "Week 1/notes.md": b"# n\n"}
    assert holds_course_material(_zip(tmp_path, handout))
    assert holds_course_material(_zip(tmp_path, {"Week 1/board.jpg": b"", "n.md": b"# n\n"}))
    app = {"app/main.py": b"x = 1\n", "app/ui.py": b"y = 2\n", "app/img/logo.png": b""}
    assert not holds_course_material(_zip(tmp_path, app))

    archive = write_zip(tmp_path / "graphs.zip", project)
    library.ingest([archive])
    (source,) = library.sources()
    assert (source.path, source.kind) == (str(archive), SourceKind.CODE)


class _CancelMidway(threading.Event):
    """A cancel event the user sets once some members are taken out (counted then)."""

    def __init__(self, storage: Path, looks: int) -> None:
        super().__init__()
        self.storage, self.looks, self.written = storage, looks, -1

    def is_set(self) -> bool:
        self.looks -= 1
        if self.looks == 0:
            self.written = sum(1 for p in self.storage.rglob("*") if p.is_file())
            self.set()
        return super().is_set()


def test_a_cancelled_opening_removes_what_it_wrote(library: Library, tmp_path: Path) -> None:
    archive = make_moodle_zip(tmp_path / "cs101.zip", tmp_path / "work")
    storage = library.folder / ARCHIVES_FOLDER
    cancel = _CancelMidway(storage, looks=12)

    report = library.ingest([archive], cancel=cancel)

    assert [f.outcome for f in report.files] == [Outcome.CANCELLED]
    assert cancel.written >= 3
    assert [p for p in storage.rglob("*") if p.is_file()] == []
    assert library.sources() == []


def test_a_disk_without_room_for_the_members_is_said_before_anything_is_written(
    tmp_path: Path,
) -> None:
    check_room(tmp_path, 1024)
    with pytest.raises(UnreadableFileError, match="not enough free disk space"):
        check_room(tmp_path / "not" / "yet", 1 << 60)


def test_a_second_download_of_the_same_files_keeps_no_copy_of_them(
    library: Library, tmp_path: Path
) -> None:
    first = make_moodle_zip(tmp_path / "cs101-monday.zip", tmp_path / "work")
    second = tmp_path / "cs101-friday.zip"
    second.write_bytes(first.read_bytes())
    library.ingest([first])

    report = library.ingest([second])

    assert report.count(Outcome.DUPLICATE) == len(MOODLE_PLACES) - 1
    kept = [p for p in (library.folder / ARCHIVES_FOLDER).rglob("*") if p.is_file()]
    assert {member_place(p)[0] for p in kept if member_place(p)} == {  # type: ignore[index]
        "cs101-monday.zip",
        "cs101-friday.zip",  # its broken PDF, whose error row names it
    }
    assert [shown_name(p) for p in kept if "friday" in str(p)] == [f"Week 3/{BROKEN_MEMBER}"]


def test_removing_the_course_removes_the_files_taken_out_of_its_zip(
    library: Library, tmp_path: Path
) -> None:
    library.ingest([make_moodle_zip(tmp_path / "cs101.zip", tmp_path / "work")])
    storage = library.folder / ARCHIVES_FOLDER
    assert any(p.is_file() for p in storage.rglob("*"))

    library.remove(MOODLE_COURSE)

    assert [p for p in storage.rglob("*") if p.is_file()] == []


def test_a_recording_whose_import_fails_leaves_no_copy_and_says_so(
    library: Library, tmp_path: Path
) -> None:
    members_ = moodle_members(tmp_path / "work")
    silent = members_[f"{MOODLE_COURSE}/Week 2/recording.mp4"]  # a tone: no speech in it
    archive = write_zip(tmp_path / "week.zip", {
        "Week 1/notes.md": b"# Notes\nA tone is no lecture.\n",
        "Week 2/tone.mp4": silent,
    })  # fmt: skip

    report = library.ingest([archive])

    (failed,) = report.errors
    assert shown_name(failed.path) == "Week 2/tone.mp4"
    assert failed.detail.endswith("(its copy taken out of the zip was removed)")
    assert not Path(failed.path).exists()
    assert {shown_name(s.path): s.status for s in library.sources()} == {
        "Week 1/notes.md": SourceStatus.INDEXED,
        "Week 2/tone.mp4": SourceStatus.ERROR,
    }


def test_a_file_the_zip_no_longer_holds_is_no_longer_found(
    library: Library, tmp_path: Path
) -> None:
    members_, archive = _imported_moodle(library, tmp_path)
    assert shown_name(library.search("amortised dynamic arrays").results[0].source) == (
        "Week 1/notes.md"
    )

    del members_[f"{MOODLE_COURSE}/Week 1/notes.md"]
    write_zip(archive, members_)
    library.ingest([archive])

    assert "Week 1/notes.md" not in _places(library)
    assert all(
        shown_name(r.source) != "Week 1/notes.md"
        for r in library.search("amortised dynamic arrays").results
    )
    stored = [shown_name(p) for p in (library.folder / ARCHIVES_FOLDER).rglob("*.md")]
    assert stored == []


def test_a_zip_that_now_holds_only_code_keeps_none_of_its_old_course_files(
    library: Library, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "d.pdf", ["Tries\nkeys stored by prefix"]).read_bytes()
    archive = write_zip(tmp_path / "week.zip", {"Week 1/tries.pdf": pdf, "Week 1/n.md": b"# n\n"})
    library.ingest([archive])
    assert set(_places(library)) == {"Week 1/tries.pdf", "Week 1/n.md"}

    write_zip(archive, {"lab/trie.py": b"def insert(root, key):\n    return root\n"})
    library.ingest([archive])

    (source,) = library.sources()  # one code archive, none of the slides taken out before
    assert (source.path, source.kind) == (str(archive), SourceKind.CODE)
    assert all(locators(r).page is None for r in library.search("keys stored by prefix").results)
    assert [p for p in (library.folder / ARCHIVES_FOLDER).rglob("*") if p.is_file()] == []


def test_coursedex_ingest_names_the_files_of_a_zip_it_did_not_import(
    tmp_path: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.cli import main

    archive = make_moodle_zip(tmp_path / "CS101.zip", tmp_path / "work")
    args = ["--library", str(tmp_path / "lib"), "--models", str(models_dir), "ingest"]

    code = main([*args, *ENGLISH_INGEST, "--course", "Algorithms", str(archive)])

    out, err = capsys.readouterr()
    assert code == 0
    assert "indexed: Week 1/Graphs slides.pdf\n" in err  # each file's line, at its place
    assert "  2 files in CS101.zip not imported: Week 3/broken.pdf, Week 3/grades.xyz\n" in out
    assert "    Week 3/grades.xyz: not a kind of file Coursedex reads (.xyz)\n" in out
    main(["--library", str(tmp_path / "lib"), "list"])
    listed = capsys.readouterr().out
    assert listed.startswith("Algorithms\n")  # the course named wins over the zip's folder
    assert "Week 2/recording.mp4" in listed


def test_an_import_cancelled_after_the_zip_was_opened_resumes_from_its_copies(
    library: Library, tmp_path: Path
) -> None:
    archive = make_moodle_zip(tmp_path / "cs101.zip", tmp_path / "work")
    cancel = threading.Event()

    def cancel_after_the_first(p: IngestProgress) -> None:
        if p.result is not None:
            cancel.set()

    first = library.ingest([archive], progress=cancel_after_the_first, cancel=cancel)
    assert first.count(Outcome.INDEXED) == 1 and first.count(Outcome.CANCELLED) >= 6

    resumed = library.resume()

    assert resumed.count(Outcome.INDEXED) + resumed.count(Outcome.ERROR) == len(MOODLE_PLACES) - 1
    assert shown_name(library.search(SLIDE_6_QUESTION).results[0].source) == (
        "Week 1/Graphs slides.pdf"
    )
