"""End-to-end tests of the engine facade: real files, real SQLite, the real embedder."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from engine.config import EngineConfig, MediaConfig, SearchConfig
from engine.errors import CoursedexError, ModelMismatchError, NotFoundError
from engine.importing.progress import Outcome
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.manifest import MANIFEST_NAME
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from engine.search import SearchFilters
from engine.store import Store
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind, SourceStatus
from tests.conftest import (
    HIPPO_MS,
    LECTURE_CUES,
    LOMUTO_LINE,
    SORTING_PY,
    MixedCourse,
    make_mixed_course,
    written,
)
from tests.english import ENGLISH_INGEST, english
from tests.places import at_lines, at_moment, locators, on_page

REPO = Path(__file__).resolve().parents[3]
FULLTEXT_ONLY = SearchConfig(dense=False)
# The dense probes below are loose paraphrases: the early-exit gate (tested on its own in
# test_search_stages.py) stays off so they test the vectors alone.
DENSE_ONLY = SearchConfig(fulltext=False, gate=0.0)
WEIRD_QUERIES = (
    '"',
    "NOT",
    "a AND (",
    "*",
    "lecture " * 250,  # 2,000 characters
    "\N{GRINNING FACE}",
    "?!.,;:-()[]{}",
    "",
    "'; DROP TABLE segments; --",
    "NEAR(hippopotamus axolotl)",
    "title:axolotl",
    "hippo*",
    "^chlorophyll",
    "\x00",
)


def _sources_found(library: Library, query: str, config: SearchConfig | None = None) -> list[str]:
    return [r.source for r in library.search(query, limit=50, config=config).results]


def _ids_by_path(library: Library) -> dict[str, list[int]]:
    return {
        s.path: sorted(library.store.segments.ids_of_source(s.id))
        for s in library.sources()
        if s.status == SourceStatus.INDEXED
    }


def _pending(library: Library) -> list[tuple[str, str]]:
    waiting = (SourceStatus.QUEUED, SourceStatus.INDEXING)
    return [(Path(s.path).name, s.status.value) for s in library.sources() if s.status in waiting]


def _counts(library: Library) -> tuple[int, int, int]:
    stats = library.stats()
    return int(stats["sources"]), int(stats["segments"]), int(stats["vectors"])  # type: ignore[call-overload]


def _write_notes(folder: Path, texts: dict[str, str]) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, text in texts.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths[name] = path
    return paths


# --- 1. one ingest of good and bad files ------------------------------------------------------


def test_mixed_folder_indexes_good_files_and_reports_bad_ones(
    library: Library, mixed_course: MixedCourse
) -> None:
    report = library.ingest([mixed_course.folder])

    outcomes = {Path(f.path).name: f.outcome for f in report.files}
    assert outcomes == {
        **{p.name: Outcome.INDEXED for p in mixed_course.good},
        **{p.name: Outcome.ERROR for p in mixed_course.bad.values()},
    }
    details = {Path(f.path).name: f.detail for f in report.errors}
    expected_words = {
        "corrupt pdf": "pdf",
        "zip slip": "escapes its folder",
        "zip bomb": "zip bomb",
        "empty": "empty",
        "binary": "binary",
    }
    for problem, path in mixed_course.bad.items():
        reason = details[path.name]
        assert expected_words[problem] in reason.lower(), (problem, reason)
        assert "\n" not in reason and "\r" not in reason, (problem, reason)
        assert "Traceback" not in reason and len(reason) <= 200, (problem, reason)
    stored = {Path(s.path).name: (s.status, s.error) for s in library.sources()}
    for path in mixed_course.bad.values():
        assert stored[path.name] == (SourceStatus.ERROR, details[path.name])
    for path in mixed_course.good:
        assert stored[path.name] == (SourceStatus.INDEXED, None)
    assert library.courses()[0].name == "Biology 101"
    assert _pending(library) == []

    for word, path in [
        ("chlorophyll", mixed_course.slides),
        ("mitochondria", mixed_course.slides),
        ("axolotl", mixed_course.notes),
        ("Lomuto", mixed_course.code),
        ("hippopotamus", mixed_course.lecture),
    ]:
        top = library.search(word).results[0]
        assert (top.source, top.fulltext_rank) == (str(path), 1), word
        assert _sources_found(library, word, FULLTEXT_ONLY) == [str(path)], word


def test_latin1_subtitles_are_decoded_and_found_with_or_without_accents(
    library: Library, mixed_course: MixedCourse
) -> None:
    library.ingest([mixed_course.latin1])
    library.ingest([mixed_course.notes])  # something else that must not match
    for query in ("café", "cafe", "CAFÉ", "élève", "eleve", "senor"):
        assert _sources_found(library, query, FULLTEXT_ONLY) == [str(mixed_course.latin1)], query
    top = library.search("café").results[0]
    assert top.source == str(mixed_course.latin1)
    assert "café est très chaud" in top.snippet
    assert "Ã" not in top.snippet  # no mojibake from a wrong code page


# --- 2. any text is a query ---------------------------------------------------------------


@pytest.mark.parametrize("typing", [False, True])
def test_any_text_is_a_valid_query(
    built_library: Library, mixed_course: MixedCourse, typing: bool
) -> None:
    before = _counts(built_library)
    known = {s.path for s in built_library.sources()}
    for query in WEIRD_QUERIES:
        for config in (None, FULLTEXT_ONLY, DENSE_ONLY):
            results = built_library.search(query, config=config, typing=typing).results
            assert all(r.source in known for r in results), query
            assert all(math.isfinite(r.score) for r in results), query
            assert len({r.segment_id for r in results}) == len(results), query
    assert built_library.search("", typing=typing).results == []
    assert built_library.search("   \t\n", typing=typing).results == []
    assert _counts(built_library) == before
    top = built_library.search("hippopotamus", typing=typing).results[0]
    assert top.source == str(mixed_course.lecture)


# --- 3. content addressing: unchanged, changed, moved, duplicate, remove --------------------


def test_reingest_unchanged_files_is_a_no_op(library: Library, tmp_path: Path) -> None:
    course = make_mixed_course(tmp_path / "Biology")
    library.ingest([course.folder])
    ids = _ids_by_path(library)
    counts = _counts(library)

    report = library.ingest([course.folder])

    good = {str(p) for p in course.good}
    assert {f.path: f.outcome for f in report.files if f.path in good} == dict.fromkeys(
        good, Outcome.UNCHANGED
    )
    assert _ids_by_path(library) == ids
    assert _counts(library) == counts
    assert _pending(library) == []


def test_changed_file_is_reindexed(library: Library, tmp_path: Path) -> None:
    notes = _write_notes(
        tmp_path / "Zoology",
        {"a.md": "# Amphibians\n\nThe axolotl regenerates.\n", "b.md": "# Birds\n\nKiwi.\n"},
    )
    library.ingest([tmp_path / "Zoology"])
    old_ids = _ids_by_path(library)[str(notes["a.md"])]

    notes["a.md"].write_text(
        "# Cats\n\nThe ocelot hunts at night.\n\n## More\n\nA caracal jumps high.\n"
    )
    report = library.ingest([tmp_path / "Zoology"])

    outcomes = {Path(f.path).name: f.outcome for f in report.files}
    assert outcomes == {"a.md": Outcome.INDEXED, "b.md": Outcome.UNCHANGED}
    assert _sources_found(library, "axolotl", FULLTEXT_ONLY) == []
    assert _sources_found(library, "ocelot", FULLTEXT_ONLY) == [str(notes["a.md"])]
    assert _sources_found(library, "caracal", FULLTEXT_ONLY) == [str(notes["a.md"])]
    new_ids = _ids_by_path(library)[str(notes["a.md"])]
    assert set(new_ids).isdisjoint(old_ids)
    _sources, segments, vectors = _counts(library)
    assert vectors == segments == len(library.store.segments.ids_with_text())
    top = library.search("wild cat hunting in the dark", config=DENSE_ONLY).results[0]
    assert top.source == str(notes["a.md"])


def test_changed_file_that_became_unreadable_is_not_searchable(
    library: Library, tmp_path: Path
) -> None:
    notes = _write_notes(
        tmp_path / "Zoology",
        {"a.md": "# Amphibians\n\nThe axolotl regenerates.\n", "b.md": "# Birds\n\nKiwi.\n"},
    )
    library.ingest([tmp_path / "Zoology"])
    notes["a.md"].write_bytes(b"\x00\x01\x02 the file is now binary")

    report = library.ingest([tmp_path / "Zoology"])

    assert [(Path(f.path).name, f.outcome) for f in report.files] == [
        ("a.md", Outcome.ERROR),
        ("b.md", Outcome.UNCHANGED),
    ]
    assert "binary" in report.errors[0].detail
    # The old text is no longer in the file: a hit on it would open a file without it.
    assert _sources_found(library, "axolotl", FULLTEXT_ONLY) == []
    assert str(notes["a.md"]) not in _sources_found(library, "axolotl regenerates")
    _, segments, vectors = _counts(library)
    assert segments == vectors == len(_ids_by_path(library)[str(notes["b.md"])])


def test_moved_file_keeps_its_index(library: Library, tmp_path: Path) -> None:
    notes = _write_notes(
        tmp_path / "Zoology",
        {"a.md": "# Amphibians\n\nThe axolotl regenerates.\n", "b.md": "# Birds\n\nKiwi.\n"},
    )
    library.ingest([tmp_path / "Zoology"])
    old_ids = _ids_by_path(library)[str(notes["a.md"])]
    counts = _counts(library)

    moved = notes["a.md"].rename(tmp_path / "Zoology" / "amphibians.md")
    report = library.ingest([moved])

    assert [(Path(f.path).name, f.outcome) for f in report.files] == [
        ("amphibians.md", Outcome.MOVED)
    ]
    assert _ids_by_path(library)[str(moved)] == old_ids
    assert str(notes["a.md"]) not in _ids_by_path(library)
    assert _counts(library) == counts
    hits = library.search("axolotl", config=FULLTEXT_ONLY).results
    assert [h.source for h in hits] == [str(moved)]
    assert hits[0].title == "Amphibians"
    assert _pending(library) == []


def test_copy_with_same_content_is_a_duplicate(library: Library, tmp_path: Path) -> None:
    notes = _write_notes(tmp_path / "Zoology", {"a.md": "# Amphibians\n\nThe axolotl.\n"})
    library.ingest([tmp_path / "Zoology"])
    counts = _counts(library)
    copy = Path(shutil.copy(notes["a.md"], tmp_path / "Zoology" / "copy.md"))

    report = library.ingest([tmp_path / "Zoology"])

    results = {Path(f.path).name: (f.outcome, f.detail) for f in report.files}
    assert results["a.md"] == (Outcome.UNCHANGED, "")
    assert results["copy.md"][0] == Outcome.DUPLICATE
    # Where it is, for the window's row and status line (issue 36, item 9)
    assert [f.kept_in for f in report.files if f.outcome == Outcome.DUPLICATE] == ["Zoology"]
    assert str(notes["a.md"]) in results["copy.md"][1]
    _, segments, vectors = _counts(library)
    assert (segments, vectors) == counts[1:]
    assert _sources_found(library, "axolotl", FULLTEXT_ONLY) == [str(notes["a.md"])]
    # A duplicate is settled: nothing is left waiting for a resume, and resume has no work.
    assert _pending(library) == []
    assert [f.path for f in library.resume().files] == []
    assert copy.exists()


def test_remove_file_and_course_deletes_rows_and_vectors(
    library: Library, mixed_course: MixedCourse, chemistry_notes: Path
) -> None:
    library.ingest([mixed_course.folder, chemistry_notes.parent])
    sources, segments, vectors = _counts(library)
    assert vectors == segments
    lecture_segments = len(_ids_by_path(library)[str(mixed_course.lecture)])
    assert lecture_segments >= 2

    assert library.remove(str(mixed_course.lecture)).count == 1
    assert _counts(library) == (
        sources - 1,
        segments - lecture_segments,
        vectors - lecture_segments,
    )
    assert str(mixed_course.lecture) not in _sources_found(library, "hippopotamus")
    assert _sources_found(library, "hippopotamus", FULLTEXT_ONLY) == []

    chem_segments = len(_ids_by_path(library)[str(chemistry_notes)])
    assert library.remove("Chemistry").count == 1
    assert [c.name for c in library.courses()] == ["Biology 101"]
    assert _counts(library) == (
        sources - 2,
        segments - lecture_segments - chem_segments,
        vectors - lecture_segments - chem_segments,
    )
    assert str(chemistry_notes) not in _sources_found(library, "burette titration")

    biology_files = len(library.sources("Biology 101"))
    assert library.remove("Biology 101").count == biology_files
    assert _counts(library) == (0, 0, 0)
    assert library.search("axolotl").results == []
    with pytest.raises(NotFoundError, match="Chemistry"):
        library.remove("Chemistry")


# --- 4. model mismatch ----------------------------------------------------------------------


@pytest.fixture
def other_embedder(models_dir: Path, tmp_path: Path) -> OnnxEmbedder:
    """The same network under another name, so its model id differs."""
    other = Path(shutil.copytree(ModelRegistry(models_dir).path(DEFAULT_EMBEDDER), tmp_path / "o"))
    manifest = json.loads((other / MANIFEST_NAME).read_text(encoding="utf-8"))
    manifest["name"] = "other-minilm"
    (other / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    return OnnxEmbedder(other, threads=2)


def test_model_mismatch_is_refused_until_reindex(
    tmp_path: Path,
    embedder: OnnxEmbedder,
    other_embedder: OnnxEmbedder,
    mixed_course: MixedCourse,
) -> None:
    assert other_embedder.model_id != embedder.model_id
    folder = tmp_path / "lib"
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        lib.ingest([mixed_course.folder])
        segments = _counts(lib)[1]

    with Library.open(folder, EngineConfig(), lambda: other_embedder) as lib:
        with pytest.raises(ModelMismatchError, match="coursedex reindex") as caught:
            lib.search("hippopotamus")
        assert embedder.model_id in str(caught.value)
        assert other_embedder.model_id in str(caught.value)
        new_note = tmp_path / "new.md"
        new_note.write_text("# New\n\nA note the library has not seen.\n", encoding="utf-8")
        with pytest.raises(ModelMismatchError, match="coursedex reindex"):
            lib.ingest([new_note])

        assert lib.reindex(other_embedder) == segments
        assert lib.embedder_id == other_embedder.model_id
        top = lib.search("a river horse walks into the book room", config=DENSE_ONLY)
        assert top.results[0].source == str(mixed_course.lecture)
        assert _counts(lib)[1:] == (segments, segments)

    with Library.open(folder, EngineConfig(), lambda: other_embedder) as lib:
        assert lib.search("hippopotamus").results[0].source == str(mixed_course.lecture)
    with (
        Library.open(folder, EngineConfig(), lambda: embedder) as lib,
        pytest.raises(ModelMismatchError),
    ):
        lib.search("hippopotamus")


# --- 5. vector index repair at open ---------------------------------------------------------

DENSE_PROBES = {
    "a river horse walks into the book room": "lecture.srt",
    "plants turn light into sugar with a green pigment": "slides.pdf",
    "a salamander that grows back its legs": "notes.md",
    "quick sort pivot partition function": "code.zip",
}


def _dense_tops(library: Library) -> dict[str, tuple[str, int]]:
    out = {}
    for query in DENSE_PROBES:
        top = library.search(query, config=DENSE_ONLY).results[0]
        out[query] = (Path(top.source).name, top.segment_id)
    return out


def test_deleted_vector_file_is_rebuilt_at_open(
    tmp_path: Path, embedder: OnnxEmbedder, mixed_course: MixedCourse
) -> None:
    folder = tmp_path / "lib"
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        lib.ingest([mixed_course.folder])
        before = _dense_tops(lib)
        segments = _counts(lib)[1]
    assert {q: name for q, (name, _) in before.items()} == DENSE_PROBES
    (folder / "vectors" / "text.hnsw").unlink()

    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        assert _dense_tops(lib) == before
        assert _counts(lib)[1:] == (segments, segments)
    assert (folder / "vectors" / "text.hnsw").is_file()


def test_stale_sidecar_is_repaired_at_open(
    tmp_path: Path, embedder: OnnxEmbedder, mixed_course: MixedCourse
) -> None:
    folder = tmp_path / "lib"
    sidecar = folder / "vectors" / "text.json"
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        lib.ingest([mixed_course.notes, mixed_course.slides])
        lib.save()
        old_sidecar = sidecar.read_bytes()
        lib.ingest([mixed_course.lecture, mixed_course.code])
        segments = _counts(lib)[1]
    assert sidecar.read_bytes() != old_sidecar
    sidecar.write_bytes(old_sidecar)

    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        assert _counts(lib)[1:] == (segments, segments)
        assert {q: name for q, (name, _) in _dense_tops(lib).items()} == DENSE_PROBES


def test_killed_ingest_loses_nothing_and_resumes(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    n = 40
    # Small notes (one segment each) keep the re-embedding in resume() short.
    paragraph = " ".join(f"Sentence {j} is about topic {j}." for j in range(12))
    notes = _write_notes(
        tmp_path / "Many",
        {
            f"note{i:02d}.md": f"# Note {i}\n\nfirstword{i:02d} opens it. {paragraph} "
            f"lastword{i:02d} closes it.\n"
            for i in range(n)
        },
    )
    folder = tmp_path / "lib"
    cmd = [sys.executable, "-m", "engine.cli", "--library", str(folder), "--models"]
    cmd += [str(models_dir), "--threads", "2", "ingest", *ENGLISH_INGEST, str(tmp_path / "Many")]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    indexed_at_kill = 0
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            indexed_at_kill = _indexed_rows(folder / "library.db")
            if indexed_at_kill >= 3:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.005)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert 3 <= indexed_at_kill < n

    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        indexed = [s for s in lib.sources() if s.status == SourceStatus.INDEXED]
        assert len(indexed) >= indexed_at_kill
        assert len(indexed) < n
        for source in indexed:
            i = Path(source.path).stem[-2:]
            for word in (f"firstword{i}", f"lastword{i}"):
                assert _sources_found(lib, word, FULLTEXT_ONLY) == [source.path], word
        _, segments, vectors = _counts(lib)
        assert vectors == segments == len(lib.store.segments.ids_with_text()) > 0

        report = lib.resume()
        assert report.count(Outcome.INDEXED) == n - len(indexed)
        assert report.count(Outcome.ERROR) == 0
        assert _pending(lib) == []
        assert len(lib.sources("Many")) == n
        for name, path in notes.items():
            i = name[4:6]
            assert _sources_found(lib, f"lastword{i}", FULLTEXT_ONLY) == [str(path)], name
        _, segments, vectors = _counts(lib)
        assert vectors == segments == len(lib.store.segments.ids_with_text())


def _indexed_rows(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)
        try:
            row = conn.execute("SELECT count(*) FROM sources WHERE status = 'indexed'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0  # not created yet, or busy
    return int(row[0])


# --- 6. seek refinement and code lines ------------------------------------------------------


def test_transcript_hit_seeks_to_the_matching_cue(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    hit = built_library.search("hippopotamus").results[0]
    assert (hit.source, hit.kind) == (str(mixed_course.lecture), SegmentKind.TRANSCRIPT)
    assert at_moment(hit).start_ms == HIPPO_MS
    assert hit.to_json()["start"] == 31.5
    assert "hippopotamus" in hit.snippet

    window = built_library.store.segments.by_ids([hit.segment_id])[hit.segment_id]
    assert window.start_ms is not None and window.start_ms < HIPPO_MS
    assert at_moment(hit).end_ms == window.end_ms
    plain = built_library.search("hippopotamus", config=SearchConfig(seek_refinement=False))
    assert plain.results[0].segment_id == hit.segment_id
    assert at_moment(plain.results[0]).start_ms == window.start_ms


def test_code_hit_points_at_the_matching_line(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    hit = built_library.search("Lomuto").results[0]
    assert (hit.source, hit.kind) == (str(mixed_course.code), SegmentKind.CODE)
    lines = at_lines(hit)
    assert lines.path_in_archive == "src/sorting.py"
    assert lines.line == LOMUTO_LINE
    assert lines.line_end is not None
    assert lines.line_start < LOMUTO_LINE <= lines.line_end


def test_transcript_lists_each_cue_once_in_time_order(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    lines = built_library.transcript(str(mixed_course.lecture))
    assert [(t.start_ms, t.end_ms, t.text) for t in lines] == list(LECTURE_CUES)
    with pytest.raises(NotFoundError):
        built_library.transcript(str(mixed_course.folder / "nowhere.srt"))


def test_source_text_reads_an_archive_member_and_a_notes_file(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    code = built_library.source_text(str(mixed_course.code), "src/sorting.py")
    assert code == SORTING_PY
    assert "Lomuto" in code.splitlines()[LOMUTO_LINE - 1]
    assert "axolotl" in built_library.source_text(str(mixed_course.notes))
    with pytest.raises(NotFoundError, match=r"src/missing\.py"):
        built_library.source_text(str(mixed_course.code), "src/missing.py")


# --- 7. filters -----------------------------------------------------------------------------


def test_filters_by_kind_and_course(
    built_library: Library, mixed_course: MixedCourse, chemistry_notes: Path
) -> None:
    slides = built_library.search("energy", limit=50, filters=SearchFilters((SegmentKind.SLIDE,)))
    assert sorted((locators(r).page or 0) for r in slides.results) == [1, 2]
    assert {r.source for r in slides.results} == {str(mixed_course.slides)}

    chem = built_library.search(
        "titrant drops", limit=50, filters=SearchFilters(course="Chemistry")
    )
    assert [r.source for r in chem.results] == [str(chemistry_notes)]
    # Nothing in Chemistry is close to a hippopotamus: no Biology hit leaks through.
    assert built_library.search("hippopotamus", filters=SearchFilters(course="Chemistry")).gated
    biology = built_library.search("energy", limit=50, filters=SearchFilters(course="Biology 101"))
    assert biology.results and all(r.course == "Biology 101" for r in biology.results)
    with pytest.raises(NotFoundError, match="Astronomy"):
        built_library.search("stars", filters=SearchFilters(course="Astronomy"))


def test_rename_course(built_library: Library, chemistry_notes: Path) -> None:
    built_library.rename_course("Chemistry", "Analytical Chemistry")
    assert [c.name for c in built_library.courses()] == ["Analytical Chemistry", "Biology 101"]
    hit = built_library.search("burette").results[0]
    assert (hit.source, hit.course) == (str(chemistry_notes), "Analytical Chemistry")
    with pytest.raises(NotFoundError):
        built_library.rename_course("Chemistry", "Other")
    with pytest.raises(CoursedexError, match="Biology 101"):
        built_library.rename_course("Analytical Chemistry", "Biology 101")
    assert [c.name for c in built_library.courses()] == ["Analytical Chemistry", "Biology 101"]


def test_search_config_switches(built_library: Library, mixed_course: MixedCourse) -> None:
    fulltext = built_library.search("axolotl", limit=50, config=FULLTEXT_ONLY).results
    assert [(r.source, r.fulltext_rank, r.dense_rank) for r in fulltext] == [
        (str(mixed_course.notes), 1, None)
    ]
    dense = built_library.search("axolotl", limit=50, config=DENSE_ONLY).results
    assert len(dense) == _counts(built_library)[1]
    assert all(r.fulltext_rank is None and r.dense_rank is not None for r in dense)
    off = replace(FULLTEXT_ONLY, fulltext=False)
    assert built_library.search("axolotl", config=off).results == []


def test_pages_without_text_layer_wait_when_screen_text_is_off(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    from tools.factories import make_image_only_pdf, make_pdf

    folder = tmp_path / "Scans"
    folder.mkdir()
    make_image_only_pdf(folder / "scan.pdf", ["Photosynthesis", "Chlorophyll"])
    make_pdf(folder / "text.pdf", ["Mitochondria\nThe powerhouse of the cell"])
    config = english(EngineConfig(media=MediaConfig(screen_text=False)))
    with Library.open(
        tmp_path / "lib", config, lambda: embedder, models=ModelRegistry(models_dir)
    ) as library:
        report = library.ingest([folder])
        by_name = {Path(f.path).name: f for f in report.files}
        assert by_name["scan.pdf"].outcome == Outcome.INDEXED
        assert "2 pages without a text layer wait for OCR" in by_name["scan.pdf"].detail
        stats = library.stats()
        assert stats["pages_waiting_for_ocr"] == 2
        assert stats["vectors"] == int(str(stats["segments"])) - 2
        assert library.search("powerhouse").results[0].source.endswith("text.pdf")
        hits = library.search("chlorophyll").results
        assert all(not r.source.endswith("scan.pdf") for r in hits)


def test_pages_without_text_layer_are_read_by_ocr(library: Library, tmp_path: Path) -> None:
    from tools.factories import make_image_only_pdf

    scan = make_image_only_pdf(
        tmp_path / "scan.pdf", ["Photosynthesis in leaves", "Chlorophyll absorbs light"]
    )
    report = library.ingest([scan])
    assert report.files[0].outcome == Outcome.INDEXED
    assert "wait for OCR" not in report.files[0].detail
    assert library.stats()["pages_waiting_for_ocr"] == 0
    hit = library.search("chlorophyll").results[0]
    assert (hit.source, hit.kind, on_page(hit).page) == (str(scan), SegmentKind.SLIDE, 2)


def test_lost_vectors_are_re_embedded_when_the_model_loads(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    folder = tmp_path / "Notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Axolotl\n\nThe axolotl regrows its limbs.\n")
    (folder / "b.md").write_text("# Platypus\n\nThe platypus lays eggs.\n")
    lib_dir = tmp_path / "lib"
    with Library.open(lib_dir, EngineConfig(), lambda: embedder) as library:
        library.ingest([folder])
        total = library.stats()["segments"]
    store = Store(lib_dir / "library.db")
    store.conn.execute("DELETE FROM embeddings WHERE segment_id = (SELECT min(id) FROM segments)")
    store.close()
    (lib_dir / "vectors" / "text.hnsw").unlink()
    with Library.open(lib_dir, EngineConfig(), lambda: embedder) as library:
        assert library.stats()["vectors"] == total  # re-embedded as the library opened
        before = written(lib_dir), library.store.conn.total_changes
        dense = SearchConfig(fulltext=False, passage_rank=False)
        top = library.search("regrowing limbs", config=dense).results[0]
        # The search, the first use of the model, wrote nothing.
        assert (written(lib_dir), library.store.conn.total_changes) == before
        assert top.source.endswith("a.md")
        assert library.stats()["vectors"] == total
        with_text = library.store.segments.ids_with_text()
        found, _ = library.store.embeddings.vectors(sorted(with_text), embedder.dimension)
        assert len(with_text) == len(found) == total


def test_course_filter_follows_a_file_moved_to_another_course(
    library: Library, tmp_path: Path
) -> None:
    first = tmp_path / "Botany"
    first.mkdir()
    note = first / "fern.md"
    note.write_text("# Ferns\n\nFerns reproduce with spores, not seeds.\n")
    library.ingest([first])
    in_botany = SearchFilters(course="Botany")
    assert [r.source for r in library.search("spores", filters=in_botany).results] == [str(note)]
    second = tmp_path / "Mycology"
    second.mkdir()
    moved = second / "fern.md"
    note.rename(moved)
    report = library.ingest([second])
    assert report.files[0].outcome == Outcome.MOVED
    dense = SearchConfig(fulltext=False, passage_rank=False)
    assert library.search("spores", filters=in_botany, config=dense).results == []
    found = library.search("spores", filters=SearchFilters(course="Mycology"), config=dense)
    assert [r.source for r in found.results] == [str(moved)]


def test_subtitles_beside_a_video_are_its_transcript_and_alone_are_a_source(
    library: Library, tmp_path: Path
) -> None:
    from tools.factories import make_srt

    folder = tmp_path / "Physics"
    folder.mkdir()
    video = folder / "lecture.mp4"
    video.write_bytes(b"not decoded until speech recognition arrives")
    make_srt(folder / "lecture.srt", [(0, 4000, "The pendulum swings with a fixed period.")])
    report = library.ingest([folder])
    assert [(Path(f.path).name, f.outcome) for f in report.files] == [
        ("lecture.mp4", Outcome.INDEXED)
    ]
    hit = library.search("pendulum").results[0]
    assert (hit.source, hit.kind, at_moment(hit).start_ms) == (
        str(video),
        SegmentKind.TRANSCRIPT,
        0,
    )

    # dropped on its own, the subtitle file is a source of its own
    other = tmp_path / "other"
    other.mkdir()
    make_srt(other / "talk.srt", [(1000, 5000, "Entropy never decreases in a closed system.")])
    (other / "talk.mp4").write_bytes(b"x")
    loose = library.ingest([other / "talk.srt"])
    assert [f.outcome for f in loose.files] == [Outcome.INDEXED]
    assert library.search("entropy").results[0].source == str(other / "talk.srt")


def test_own_writes_saved_in_steps_are_not_taken_for_a_repair(
    tmp_path: Path, embedder: OnnxEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    """A bulk loader (bench/search_latency.py) writes through ``index_parsed`` without the
    write lock and saves now and then: its own vectors written since the last save were
    taken for another process's at the next save, read again from the database and called
    'vector index repaired ... replaced' (at 100,000 segments, every vector read again)."""
    with Library.open(tmp_path / "lib", english(), lambda: embedder) as library:
        for i in range(4):
            text = f"Walrus number {i} swims in cold water."
            parsed = ParsedSource(
                kind=SourceKind.NOTES,
                title=f"note {i}",
                segments=(SegmentDraft(kind=SegmentKind.NOTE, text=text),),
            )
            library.index_parsed(f"/notes/{i}.md", parsed, course="c", sha256=f"sha-{i}")
            if i % 2:
                library.save()
    with Library.open(tmp_path / "lib", english(), lambda: embedder) as library:
        assert len(library.search("walrus").results) == 4
    repaired = [r.getMessage() for r in caplog.records if "repaired" in r.getMessage()]
    assert repaired == []
