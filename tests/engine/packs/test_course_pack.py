"""Course packs (issue 27, item 4): the demo course exported from library A (its lecture
transcribed once, by tiny.en) and imported into empty libraries, with and without the folder
holding its files. The same top results for the demo's queries, no recognition child
started, files found by content, and a file not here searchable all the same."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import threading
import zipfile
from multiprocessing.process import BaseProcess
from pathlib import Path

import numpy as np
import pytest

from engine.config import EngineConfig
from engine.demo import DEMO_COURSE, DEMO_DIR, demo_files, demo_queries
from engine.errors import Cancelled, CoursedexError
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.packs import PackProgress, export_pack, import_pack
from engine.packs.locate import locate_file
from engine.search import SearchFilters
from engine.search.results import moment_ms
from engine.types import SegmentKind, SourceKind
from tests.places import at_moment, locators
from tools.hostile.packs import _course, _parts, _write

LECTURE = DEMO_DIR / "lecture-01-sorting.mp4"
Hit = tuple[str, str, int | None, int | None, str | None, int | None]


@pytest.fixture(scope="module")
def demo_pack(demo_library: Library, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pack") / "demo.cdxpack"
    export_pack(demo_library, DEMO_COURSE, out)
    return out


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[BaseProcess]:
    """Every multiprocessing child started while the test runs: speech recognition runs in
    one (engine/media/transcribe.py starts it with ``Process.start``)."""
    started: list[BaseProcess] = []
    original = BaseProcess.start

    def start(self: BaseProcess) -> None:
        started.append(self)
        original(self)

    monkeypatch.setattr(BaseProcess, "start", start)
    return started


def _top(library: Library, query: str, limit: int = 5) -> list[Hit]:
    """What a student sees of the top hits: which file (by title), kind and place."""
    found = library.search(query, limit=limit).results
    return [
        (r.title, r.kind.value, p.start_ms, p.page, p.path_in_archive, p.line)
        for r, p in ((r, locators(r)) for r in found)
    ]


def _media(folder: Path) -> Path:
    """The demo's files as a student keeps them: the lecture renamed, in a folder of its own."""
    folder.mkdir()
    for path in demo_files():
        name = "Lecture 1 - my download.mp4" if path == LECTURE else path.name
        shutil.copyfile(path, folder / name)
    return folder


def test_the_pack_is_a_zip_of_checked_json_and_npy_parts(demo_pack: Path) -> None:
    with zipfile.ZipFile(demo_pack) as zf:
        names = zf.namelist()
        manifest = json.loads(zf.read("manifest.json"))
        assert names[0] == "manifest.json"
        assert manifest["format"] == "coursedex-pack" and manifest["version"] == 1
        assert manifest["course"] == DEMO_COURSE and manifest["model_id"].startswith("all-minilm")
        assert sorted(manifest["parts"]) == sorted(n for n in names if n != "manifest.json")
        for name, part in manifest["parts"].items():
            body = zf.read(name)
            assert len(body) == part["size"]
        assert any(n.startswith("thumbs/") and n.endswith(".jpg") for n in names)
        for name in ("vectors.npy", "sentences.npy"):  # plain arrays: no pickle needed
            array = np.load(io.BytesIO(zf.read(name)), allow_pickle=False)
            assert array.ndim == 2 and array.shape[1] == manifest["dimension"]
        course = json.loads(zf.read("course.json"))
    kinds = {s["kind"] for s in course["sources"]}
    assert kinds == {"video", "slides", "code", "notes"}
    lecture = next(s for s in course["sources"] if s["kind"] == "video")
    assert lecture["path"] == LECTURE.name and lecture["duration_ms"] > 300_000
    assert any(seg.get("words") for seg in lecture["segments"])  # word times travel
    assert course["slide_links"]  # the lecture's moments that show slides


def test_with_the_media_folder_the_class_finds_what_the_teacher_found(
    demo_library: Library,
    demo_pack: Path,
    library: Library,
    starts: list[BaseProcess],
    tmp_path: Path,
) -> None:
    media = _media(tmp_path / "my files")
    summary = import_pack(library, demo_pack, media=media)
    assert starts == [], "no recognition child may start"
    assert all(f.here for f in summary.files) and not summary.reembedded
    assert {Path(f.path).name for f in summary.files} >= {"Lecture 1 - my download.mp4"}
    for query in demo_queries():
        assert _top(library, query) == _top(demo_library, query), query
    hit = library.search(
        "why is merge sort stable", filters=SearchFilters(kinds=(SegmentKind.TRANSCRIPT,))
    ).results[0]
    assert hit.source == str(media.resolve() / "Lecture 1 - my download.mp4")
    moment = at_moment(hit)
    assert moment.thumbnail is not None and Path(moment.thumbnail).is_file()
    assert moment.slide is not None and Path(moment.slide.source).parent == media.resolve()
    assert library.transcript(hit.source) == demo_library.transcript(str(LECTURE))
    assert library.chapters(hit.source) == demo_library.chapters(str(LECTURE))
    assert starts == []


def test_without_media_the_course_is_searchable_and_its_files_are_missing(
    demo_library: Library, demo_pack: Path, library: Library, starts: list[BaseProcess]
) -> None:
    summary = import_pack(library, demo_pack)
    assert starts == []
    assert len(summary.missing) == 6
    expected = demo_pack.parent / DEMO_COURSE
    assert {Path(f.path) for f in summary.files} == {expected / p.name for p in demo_files()}
    for query in demo_queries():
        assert _top(library, query) == _top(demo_library, query), query
        assert all(not Path(r.source).exists() for r in library.search(query).results)
    assert library.stats()["segments_by_kind"] == demo_library.stats()["segments_by_kind"]


def test_a_pack_beside_its_course_folder_finds_the_files_there(
    demo_pack: Path, library: Library, tmp_path: Path
) -> None:
    """Unzipped as shared (the pack and the course's folder side by side), the files are
    where the pack expects them: found there, not called missing, nor someone else's."""
    shared = tmp_path / "shared"
    shared.mkdir()
    pack = Path(shutil.copyfile(demo_pack, shared / demo_pack.name))
    shutil.copytree(DEMO_DIR, shared / DEMO_COURSE)
    summary = import_pack(library, pack)
    assert summary.missing == [] and summary.conflicts == []
    assert {Path(f.path) for f in summary.files} == {
        shared / DEMO_COURSE / p.name for p in demo_files()
    }
    assert all(f.here for f in summary.files)
    assert Path(library.search("why is merge sort stable").results[0].source).exists()


def test_a_missing_file_is_linked_by_its_content_only(
    demo_pack: Path, library: Library, tmp_path: Path
) -> None:
    summary = import_pack(library, demo_pack)
    lecture = next(f for f in summary.files if f.title.startswith("lecture"))
    media = _media(tmp_path / "found later")
    with pytest.raises(CoursedexError, match="its content differs"):
        locate_file(library, lecture.path, media / "slides.pdf")
    assert library.source(lecture.path) is not None  # unchanged
    located = locate_file(library, lecture.path, media / "Lecture 1 - my download.mp4")
    linked = located.source
    assert linked.path == str(media.resolve() / "Lecture 1 - my download.mp4")
    assert located.changes.changed == (lecture.path, linked.path) and located.changes.results
    assert library.source(lecture.path) is None and linked.segments > 20
    hits = library.search("why is merge sort stable").results
    assert any(h.source == linked.path for h in hits)


def test_importing_a_missing_file_later_links_it_without_transcribing(
    demo_pack: Path, library: Library, starts: list[BaseProcess], tmp_path: Path
) -> None:
    import_pack(library, demo_pack)
    media = _media(tmp_path / "downloaded")
    report = library.ingest([media / "Lecture 1 - my download.mp4"])
    assert [f.outcome.value for f in report.files] == ["moved"]
    assert starts == []


def test_the_users_own_copy_in_the_library_is_used_and_kept(
    demo_pack: Path, library: Library, tmp_path: Path
) -> None:
    """Notes the student imported into a course of their own stay there, not twice."""
    mine = _media(tmp_path / "mine")
    library.ingest([mine / "notes.md"], course="My notes")
    summary = import_pack(library, demo_pack)
    notes = next(f for f in summary.files if f.title.endswith("course notes"))
    assert notes.here and notes.kept_in == "My notes" and notes.path == str(mine / "notes.md")
    kept = [s.course for s in library.sources() if Path(s.path).name == "notes.md"]
    assert kept == ["My notes"]
    assert len(library.sources(DEMO_COURSE)) == len(demo_files()) - 1


def test_importing_a_pack_again_changes_nothing(demo_pack: Path, library: Library) -> None:
    import_pack(library, demo_pack)
    first = library.stats()
    import_pack(library, demo_pack)
    assert library.stats() == first


def test_a_pack_of_another_model_is_embedded_again_from_its_text(
    demo_library: Library,
    demo_pack: Path,
    library: Library,
    starts: list[BaseProcess],
    tmp_path: Path,
) -> None:
    """The pack's vectors are noise under another model's id: the import must not use them."""
    with zipfile.ZipFile(demo_pack) as zf:
        parts = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(parts["manifest.json"])
    vectors = np.load(io.BytesIO(parts["vectors.npy"]))
    noise = np.random.default_rng(7).standard_normal(vectors.shape).astype(np.float32)
    buffer = io.BytesIO()
    np.save(buffer, noise)
    parts["vectors.npy"] = buffer.getvalue()
    manifest["model_id"] = "some-other-embedder@0123456789ab"
    manifest["parts"]["vectors.npy"] = {
        "sha256": hashlib.sha256(parts["vectors.npy"]).hexdigest(),
        "size": len(parts["vectors.npy"]),
    }
    parts["manifest.json"] = json.dumps(manifest).encode()
    other = tmp_path / "other.cdxpack"
    with zipfile.ZipFile(other, "w") as zf:
        for name, body in parts.items():
            zf.writestr(name, body)
    reports: list[PackProgress] = []
    summary = import_pack(library, other, progress=reports.append)
    assert summary.reembedded
    # Progress in texts (segments and their sentences), not files: a one-hour lecture is one
    # file of 65 s of embedding.
    course = json.loads(parts["course.json"])
    texts = sum(
        1 + len(seg.get("timings", [])) for src in course["sources"] for seg in src["segments"]
    )
    embedding = [p for p in reports if p.stage == "embedding"]
    done = [p.done for p in embedding]
    assert done == sorted(done) and len(set(done)) > len(course["sources"])
    assert embedding[-1].done == embedding[-1].total == texts
    assert starts == []
    for query in demo_queries():
        assert _top(library, query) == _top(demo_library, query), query


def test_notes_travel_with_the_pack_when_asked(
    demo_pack: Path, library: Library, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """A teacher's notes on the lecture and a slide reach the class once, at their places."""
    import_pack(library, demo_pack)
    files = {Path(s.path).suffix: s.path for s in library.sources(DEMO_COURSE)}
    library.add_note(files[".mp4"], "Stability matters for radix sort", at_ms=180_000)
    library.add_note(files[".pdf"], "Exam question last year", page=3)
    bare, noted = tmp_path / "bare.cdxpack", tmp_path / "noted.cdxpack"
    assert export_pack(library, DEMO_COURSE, bare).notes == 0
    assert export_pack(library, DEMO_COURSE, noted, with_notes=True).notes == 2
    with Library.open(tmp_path / "class", EngineConfig(), lambda: embedder) as student:
        assert import_pack(student, bare).notes == 0 and student.notes() == []
        kinds = student.stats()["segments_by_kind"]
        assert isinstance(kinds, dict) and "bookmark" not in kinds  # nor as segments
        assert import_pack(student, noted).notes == 2
        assert import_pack(student, noted).notes == 0  # not twice
        got = [(n.text, n.place.at_ms, n.place.page) for n in student.notes(DEMO_COURSE)]
        assert sorted(got) == [
            ("Exam question last year", None, 3),
            ("Stability matters for radix sort", 180_000, None),
        ]
        hits = student.search(
            "radix sort", filters=SearchFilters(kinds=(SegmentKind.BOOKMARK,))
        ).results
        assert hits and moment_ms(hits[0].place) == 180_000 and hits[0].title.startswith("lecture")


def test_a_note_on_a_file_the_student_keeps_in_another_course_is_added_there(
    demo_pack: Path, library: Library, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """The student's own copy of the course notes stays in their course (kept); the
    teacher's note on it is not lost: it shows there, once, and search finds it."""
    import_pack(library, demo_pack)
    notes_file = next(
        s.path for s in library.sources(DEMO_COURSE) if Path(s.path).name == "notes.md"
    )
    library.add_note(notes_file, "Learn the recurrence by heart", line=1)
    noted = tmp_path / "noted.cdxpack"
    export_pack(library, DEMO_COURSE, noted, with_notes=True)
    mine = _media(tmp_path / "mine")
    with Library.open(tmp_path / "class", EngineConfig(), lambda: embedder) as student:
        student.ingest([mine / "notes.md"], course="My notes")
        assert import_pack(student, noted).notes == 1
        assert import_pack(student, noted).notes == 0  # not twice
        got = [(n.course, n.text, n.place.line, n.source_path) for n in student.notes()]
        assert got == [("My notes", "Learn the recurrence by heart", 1, str(mine / "notes.md"))]
        hits = student.search(
            "recurrence by heart", filters=SearchFilters(kinds=(SegmentKind.BOOKMARK,))
        ).results
        assert [(h.source, locators(h).line) for h in hits] == [(str(mine / "notes.md"), 1)]


def test_an_import_says_what_it_changed(
    demo_pack: Path, library: Library, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """The window refreshes what the import's ``changes`` name (issue 37): the files it
    added, a new course told whole, the notes it added by id; a file the student keeps is
    not among them, and an import again adds nothing."""
    mine = _media(tmp_path / "mine")
    library.ingest([mine / "notes.md"], course="My notes")
    first = import_pack(library, demo_pack).changes
    assert first.whole and first.results and not first.changed and not first.removed
    assert set(first.added) == {s.path for s in library.sources(DEMO_COURSE)}
    again = import_pack(library, demo_pack).changes
    assert not again.whole and again.added == again.changed == again.notes_added == ()
    files = {Path(s.path).suffix: s.path for s in library.sources(DEMO_COURSE)}
    library.add_note(files[".mp4"], "Stability matters for radix sort", at_ms=180_000)
    noted = tmp_path / "noted.cdxpack"
    export_pack(library, DEMO_COURSE, noted, with_notes=True)
    with Library.open(tmp_path / "class", EngineConfig(), lambda: embedder) as student:
        changes = import_pack(student, noted).changes
        assert changes.notes_added == tuple(n.id for n in student.notes()) != ()
        assert import_pack(student, noted).changes.notes_added == ()


def test_a_pack_given_to_ingest_says_how_to_import_it(demo_pack: Path, library: Library) -> None:
    """A pack dropped on the window or given to `coursedex ingest` is not a course's file."""
    report = library.ingest([demo_pack])
    (error,) = report.errors
    assert "a course pack: import it with File > Import course pack" in error.detail
    assert "coursedex pack import" in error.detail and library.stats()["segments"] == 0


def test_an_export_reports_each_file_and_stops_when_cancelled(
    demo_library: Library, tmp_path: Path
) -> None:
    """The window's progress bar and Cancel (issue 36, item 10): a report per file read and
    for the writing; a cancel writes nothing."""
    seen: list[PackProgress] = []
    out = tmp_path / "demo.cdxpack"
    done = export_pack(demo_library, DEMO_COURSE, out, progress=seen.append)
    files = done.files
    assert [(p.stage, p.done, p.total) for p in seen] == [
        *(("reading", i, files) for i in range(files)),
        ("writing", 0, 1),
        ("writing", 1, 1),
    ]
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        export_pack(demo_library, DEMO_COURSE, tmp_path / "not.cdxpack", cancel=cancel)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.cdxpack"]


def test_a_pack_that_cannot_be_written_says_so_in_one_line(
    demo_library: Library, tmp_path: Path
) -> None:
    beside = tmp_path / "a file"
    beside.write_text("not a folder")
    with pytest.raises(
        CoursedexError,
        match=r"^cannot write .*a file/demo\.cdxpack: .*a file is a file, not a folder$",
    ):
        export_pack(demo_library, DEMO_COURSE, beside / "demo.cdxpack")
    assert beside.read_text() == "not a folder"


def test_each_file_s_language_travels_and_a_pack_without_languages_still_imports(
    demo_pack: Path, library: Library, tmp_path: Path
) -> None:
    with zipfile.ZipFile(demo_pack) as zf:
        course = json.loads(zf.read("course.json"))
    languages = {s["kind"]: s["language"] for s in course["sources"]}
    assert languages["video"] == "en" and languages["code"] is None  # heard; code: none
    import_pack(library, demo_pack)
    lecture = next(s for s in library.sources() if s.kind is SourceKind.VIDEO)
    assert lecture.language == "en"

    def made_before_languages(course: dict[str, object]) -> None:
        sources = course["sources"]
        assert isinstance(sources, list)
        for source in sources:
            del source["language"]

    older = _course(_parts(demo_pack), made_before_languages)
    import_pack(library, _write(tmp_path / "older.cdxpack", older, rehash=True))
    # Its files' languages are read off their text as the pack comes in; code has none.
    languages = {s.kind: s.language for s in library.sources()}
    assert languages.pop(SourceKind.CODE) is None
    assert set(languages.values()) == {"en"}, languages
