"""A course pack never overwrites what the library indexed from the user's own files (issue 34,
item 1). The user's course "Biology" (a lecture read through its subtitles, and notes.md) is
in their folder ``courses/biology``; a teacher's pack of the same course, with one more file,
is made hostile by tools/hostile/collisions.py (the course named "biology", every text the
attacker's) and put beside that folder, as the tester did. Imported with and without
``--media``, it adds its new file and leaves the user's two as the user indexed them: a file
of the same content is kept, one of other content is a conflict, named and left out. A
record the pack made for a file not here never passes for a file put there later."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.cli import main
from engine.integrations.watch import FolderWatcher
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.packs import export_pack, import_pack
from engine.packs.media import content_hash
from engine.types import SourceKind, SourceStatus
from tests.english import english
from tools.factories import make_srt
from tools.hostile.collisions import ATTACKER, CollidingPack, generate
from tools.lecture_media import Clip, make_lecture_video, slide_image

COURSE = "Biology"
OWN = {"lecture.mp4": SourceKind.VIDEO, "notes.md": SourceKind.NOTES}
CUES = (
    (1000, 3500, "Osmosis moves water across a membrane."),
    (4000, 6500, "Active transport spends energy against the gradient."),
)
NOTES = "# Week one\n\nThe axolotl regenerates its limbs.\n"
GLOSSARY = "# Glossary\n\nA zygote is a fertilised egg cell.\n"


@dataclass(frozen=True)
class Setting:
    folder: Path  # the user's course folder, courses/biology
    library: Path  # the user's library, closed: copy it, never open it
    packs: dict[str, CollidingPack]  # in courses/, beside the user's folder


def _course_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    picture = slide_image(["Osmosis", "water across a membrane"], folder.parent / "slide.png")
    make_lecture_video(folder / "lecture.mp4", [Clip(picture, seconds=7.0)], audio=False)
    make_srt(folder / "lecture.srt", CUES)
    (folder / "notes.md").write_text(NOTES, encoding="utf-8")
    return folder


def _open(folder: Path, models_dir: Path, embedder: OnnxEmbedder) -> Library:
    return Library.open(folder, english(), lambda: embedder, models=ModelRegistry(models_dir))


@pytest.fixture(scope="module")
def setting(
    tmp_path_factory: pytest.TempPathFactory, models_dir: Path, embedder: OnnxEmbedder
) -> Setting:
    root = tmp_path_factory.mktemp("ownership")
    folder = _course_folder(root / "courses" / "biology")
    teacher = root / "teacher" / COURSE  # the same files, and a glossary the user lacks
    shutil.copytree(folder, teacher)
    (teacher / "glossary.md").write_text(GLOSSARY, encoding="utf-8")
    with _open(root / "teacher-lib", models_dir, embedder) as library:
        library.ingest([teacher], course=COURSE)
        export_pack(library, COURSE, root / "good.cdxpack")
    with _open(root / "user-lib", models_dir, embedder) as library:
        report = library.ingest([folder], course=COURSE)
        assert {Path(f.path).name for f in report.files} == set(OWN), report.files
    packs = {p.path.name: p for p in generate(root / "good.cdxpack", root / "courses")}
    return Setting(folder, root / "user-lib", packs)


@pytest.fixture
def mine_dir(setting: Setting, tmp_path: Path) -> Path:
    return Path(shutil.copytree(setting.library, tmp_path / "lib"))


@pytest.fixture
def mine(mine_dir: Path, models_dir: Path, embedder: OnnxEmbedder) -> Iterator[Library]:
    with _open(mine_dir, models_dir, embedder) as library:
        yield library


Own = dict[str, tuple[object, ...]]


def _own(library: Library, folder: Path) -> Own:
    """What the library holds for each of the user's files: its record and its text."""
    out: Own = {}
    for name in OWN:
        path = str(folder / name)
        source = library.source(path)
        assert source is not None, path
        texts = tuple(s.text for s in library.segments_of(path))
        cues = tuple(t.text for t in library.transcript(path)) if name.endswith(".mp4") else ()
        out[name] = (source.course, source.sha256, source.size, source.mtime_ns, source.status)
        out[name] += (source.kind, source.segments, texts, cues)
    return out


def _matches_its_file(library: Library, folder: Path) -> None:
    """A file's record is of that file's bytes: the sha256 the library holds is the file's."""
    for name, kind in OWN.items():
        source = library.source(str(folder / name))
        assert source is not None and source.status is SourceStatus.INDEXED
        assert source.sha256 == content_hash(folder / name, kind), name


@pytest.mark.parametrize("with_media", [False, True], ids=["no-media", "media"])
@pytest.mark.parametrize("name", ["same-bytes.cdxpack", "other-bytes.cdxpack"])
def test_a_colliding_pack_leaves_the_users_files_as_they_indexed_them(
    setting: Setting, mine: Library, name: str, with_media: bool
) -> None:
    case = setting.packs[name]
    folder = setting.folder
    before = _own(mine, folder)
    assert not any(ATTACKER in str(v) for v in before.values())  # not vacuous
    summary = import_pack(mine, case.path, media=folder if with_media else None)
    assert _own(mine, folder) == before
    _matches_its_file(mine, folder)
    hits = [h for h in mine.search(ATTACKER, limit=50).results if h.fulltext_rank is not None]
    assert hits and {Path(h.source).name for h in hits} == {"glossary.md"}

    files = {Path(f.path).name: f for f in summary.files}
    assert set(files) == {*OWN, "glossary.md"}, files
    for own in OWN:
        f = files[own]
        assert f.path == str(folder / own)
        if case.same_bytes:  # the user's own copy, found by content: its index kept
            assert f.kept_in == COURSE and f.conflict is None and f.here
        else:  # other content where the user's file is: named, left out
            assert f.kept_in is None and f.conflict is not None
            assert "other content" in f.conflict and COURSE in f.conflict
    left_out = sorted(Path(f.path).name for f in summary.conflicts)
    assert left_out == ([] if case.same_bytes else sorted(OWN))
    glossary = files["glossary.md"]  # what the course lacked is added to it
    assert glossary.conflict is None and glossary.kept_in is None and not glossary.here
    added = mine.source(glossary.path)
    assert added is not None and added.course == COURSE
    assert [c.name for c in mine.courses()] == [COURSE]

    report = mine.ingest([folder], course=COURSE)  # the user's files, read again
    assert {Path(f.path).name: f.outcome.value for f in report.files} == dict.fromkeys(
        OWN, "unchanged"
    )
    assert _own(mine, folder) == before


def test_a_pack_is_not_written_under_a_file_of_other_content_the_library_lacks(
    setting: Setting, mine: Library, tmp_path: Path
) -> None:
    """The user's own notes.md, never imported, where the pack expects its notes.md: the
    pack's text would sit under bytes it was not read from. Left out and named."""
    media = tmp_path / "my biology"
    media.mkdir()
    (media / "notes.md").write_text("# My own notes\n\nNot imported yet.\n", encoding="utf-8")
    summary = import_pack(mine, setting.packs["other-bytes.cdxpack"].path, media=media)
    notes = next(f for f in summary.files if Path(f.path).name == "notes.md")
    assert notes.path == str(media / "notes.md") and notes.conflict is not None
    assert "other content" in notes.conflict
    assert mine.source(str(media / "notes.md")) is None
    assert (media / "notes.md").read_text(encoding="utf-8").startswith("# My own notes")


def test_the_command_names_each_conflict_and_keeps_the_users_files(
    setting: Setting,
    mine_dir: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _open(mine_dir, models_dir, embedder) as library:
        before = _own(library, setting.folder)
    capsys.readouterr()
    pack = setting.packs["other-bytes.cdxpack"].path
    code = main(
        [
            *("--library", str(mine_dir), "--models", str(models_dir)),
            *("pack", "import", str(pack), "--media", str(setting.folder)),
        ]
    )
    out = capsys.readouterr().out
    print(out)
    assert code == 0
    lines = out.splitlines()
    for own in OWN:
        conflict = [line for line in lines if line.startswith("  conflict: ") and own in line]
        assert len(conflict) == 1 and "other content" in conflict[0], out
    assert lines[-1].startswith("2 files of the pack left out"), out
    with _open(mine_dir, models_dir, embedder) as library:
        assert _own(library, setting.folder) == before


def test_a_file_put_where_a_pack_expected_one_is_read_again_whatever_its_time(
    setting: Setting, mine: Library, tmp_path: Path
) -> None:
    """A pack's file that is not here is recorded with the pack's size and no time (0). A
    file of other bytes put there later, of that size and dated 0 (the epoch, as some
    archives and reproducible builds leave them), must be read: its record's sha256 is
    not the file's, whatever its size and time say."""
    media = tmp_path / "later"
    media.mkdir()
    summary = import_pack(mine, setting.packs["same-bytes.cdxpack"].path, media=media)
    expected = next(f for f in summary.files if Path(f.path).name == "glossary.md")
    assert expected.path == str(media / "glossary.md") and not expected.here
    mine_text = "# Mine\n\nA diploid cell holds two sets.".ljust(len(GLOSSARY) - 1) + "\n"
    assert len(mine_text.encode()) == len(GLOSSARY.encode())
    (media / "glossary.md").write_text(mine_text, encoding="utf-8")
    os.utime(media / "glossary.md", ns=(0, 0))
    report = mine.ingest([media / "glossary.md"], course=COURSE)
    assert [f.outcome.value for f in report.files] == ["indexed"], report.files
    record = mine.source(expected.path)
    assert record is not None
    assert record.sha256 == content_hash(media / "glossary.md", SourceKind.NOTES)
    texts = " ".join(s.text for s in mine.segments_of(expected.path))
    assert "diploid" in texts and ATTACKER not in texts


def test_a_followed_folder_reads_a_file_put_where_a_pack_expected_one(
    setting: Setting, library: Library, tmp_path: Path
) -> None:
    """The same in a course that follows its folder: the watcher does not take the pack's
    record for the file because their sizes and a time of 0 agree."""
    media = tmp_path / "Biology"
    media.mkdir()
    import_pack(library, setting.library.parent / "good.cdxpack", media=media)
    own = media / "glossary.md"
    own.write_text("# Mine\n\nA diploid cell holds two sets.".ljust(len(GLOSSARY) - 1) + "\n")
    os.utime(own, ns=(0, 0))
    library.follow(COURSE)
    report = FolderWatcher(library, settle_s=0).scan()
    assert report.imported is not None, report
    assert [(f.path, f.outcome.value) for f in report.imported.files] == [(str(own), "indexed")]
    assert "diploid" in " ".join(s.text for s in library.segments_of(str(own)))


def test_a_kept_file_found_later_in_the_media_folder_is_linked_not_rewritten(
    setting: Setting, library: Library
) -> None:
    """A pack imported without its files, then again with the folder holding them: its
    records are the library's now (kept), and each follows its file to where it was found,
    as `pack locate` links it; the file the folder lacks stays missing."""
    good = setting.library.parent / "good.cdxpack"
    first = import_pack(library, good)
    assert len(first.missing) == 3
    texts = {f.title: [s.text for s in library.segments_of(f.path)] for f in first.files}
    again = import_pack(library, good, media=setting.folder)
    assert again.segments == 0 and again.conflicts == []
    found = {Path(f.path).name: f for f in again.files if f.here}
    assert set(found) == set(OWN)
    for name, f in found.items():
        assert f.path == str(setting.folder / name) and f.kept_in == COURSE
        assert [s.text for s in library.segments_of(f.path)] == texts[f.title]
    assert [f.title for f in again.missing] == ["Glossary"]
    assert len(library.sources()) == 3
