"""`coursedex export anki`: the demo course's deck, opened as Anki would (a zip holding the
collection's SQLite file), has one card per slide (it has no notes) with its picture, and a
second export gives the same deck, card type and guids, so Anki updates the cards instead of
adding copies. Real library (the demo course), real genanki, the real command in-process."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.cli import main
from engine.demo import DEMO_COURSE
from engine.integrations.anki import MODEL_ID, deck_name, stable_id, write_deck
from engine.integrations.flashcards import course_cards
from engine.integrations.links import parse_link
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.types import SourceKind
from tests.conftest import HIPPO_MS, LECTURE_CUES, opened_copy
from tools.factories import make_srt
from tools.hostile.exact import CONTROL_NOTE, CONTROL_TITLE, CONTROLS

PNG = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Package:
    """What an .apkg holds, read with sqlite3 as Anki reads it."""

    cards: int
    notes: list[tuple[str, list[str], str]]  # (guid, fields, tags)
    models: set[int]
    decks: dict[int, str]
    card_decks: set[int]
    media: dict[str, bytes]  # file name -> bytes


def read_package(path: Path, work: Path) -> Package:
    with zipfile.ZipFile(path) as zf:
        zf.extract("collection.anki2", work)
        names = json.loads(zf.read("media"))
        media = {name: zf.read(number) for number, name in names.items()}
    db = sqlite3.connect(work / "collection.anki2")
    try:
        cards = db.execute("SELECT count(*) FROM cards").fetchone()[0]
        rows = db.execute("SELECT guid, flds, tags, mid FROM notes ORDER BY guid").fetchall()
        decks = json.loads(db.execute("SELECT decks FROM col").fetchone()[0])
        card_decks = {r[0] for r in db.execute("SELECT DISTINCT did FROM cards")}
    finally:
        db.close()
    return Package(
        cards,
        [(guid, fields.split("\x1f"), tags.strip()) for guid, fields, tags, _ in rows],
        {mid for *_, mid in rows},
        {int(k): v["name"] for k, v in decks.items()},
        card_decks,
        media,
    )


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory,
    demo_library_template: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
) -> Iterator[Library]:
    dest = tmp_path_factory.mktemp("anki") / "lib"
    with opened_copy(demo_library_template, dest, models_dir, embedder) as library:
        yield library


def _cli(library: Library, models: Path, *args: str) -> int:
    return main(["--library", str(library.folder), "--models", str(models), *args])


def test_a_course_without_notes_gets_a_card_per_slide_and_the_same_guids_again(
    demo: Library, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "demo.apkg", tmp_path / "again.apkg"
    assert _cli(demo, models_dir, "export", "anki", DEMO_COURSE.upper(), "-o", str(first)) == 0
    assert "8 cards (8 slides)" in capsys.readouterr().out
    (tmp_path / "a").mkdir()
    package = read_package(first, tmp_path / "a")

    deck = next(s for s in demo.sources(DEMO_COURSE) if s.kind == SourceKind.SLIDES)
    pages = demo.slide_pages(deck.path)
    assert package.cards == len(package.notes) == len(pages) == 8
    assert package.models == {MODEL_ID}
    deck_id = stable_id("coursedex deck " + DEMO_COURSE.casefold())
    assert package.decks[deck_id] == deck_name(DEMO_COURSE) == f"Coursedex::{DEMO_COURSE}"
    assert package.card_decks == {deck_id}
    # Each card: the slide's title in front; what was said, its picture and its moment behind.
    fronts = {fields[0].split("<div", 1)[0] for _, fields, _ in package.notes}
    assert {"Big-O notation", "Binary search", "Hash tables"} <= fronts
    lecture = next(s for s in demo.sources(DEMO_COURSE) if s.kind == SourceKind.VIDEO)
    for _, (_front, back, picture, where), tags in package.notes:
        assert back.startswith("<p>") and len(back.split()) > 20  # sentences spoken
        name = picture.removeprefix('<img src="').removesuffix('">')
        assert package.media[name].startswith(PNG)
        href = where.split('"')[1].replace("&amp;", "&")
        link = parse_link(href)
        assert link.source == lecture.path and link.start_ms is not None
        assert tags == "coursedex slide"
    assert len(package.media) == 8

    assert _cli(demo, models_dir, "export", "anki", DEMO_COURSE, "-o", str(second)) == 0
    (tmp_path / "b").mkdir()
    again = read_package(second, tmp_path / "b")
    assert [guid for guid, _, _ in again.notes] == [guid for guid, _, _ in package.notes]
    assert (again.decks, again.models) == (package.decks, package.models)
    assert set(again.media) == set(package.media)


def test_cli_errors_are_one_line_and_fail(
    demo: Library, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    cases = {
        ("No such course", str(tmp_path / "a.apkg")): "no course named 'No such course'",
        (DEMO_COURSE, str(tmp_path / "missing" / "a.apkg")): "cannot write",
        (DEMO_COURSE, str(tmp_path / "a.zip")): "choose .apkg",
    }
    for (course, out), message in cases.items():
        assert _cli(demo, models_dir, "export", "anki", course, "-o", out) == 1, course
        err = capsys.readouterr().err
        assert err.startswith("coursedex: ") and message in err, err
        assert err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_a_course_with_nothing_to_learn_says_so(
    library: Library, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    course = tmp_path / "Reading"
    course.mkdir()
    (course / "notes.md").write_text("# Week one\n\nRead chapter one.\n", encoding="utf-8")
    library.ingest([course])
    capsys.readouterr()
    out = tmp_path / "reading.apkg"
    assert _cli(library, models_dir, "export", "anki", "Reading", "-o", str(out)) == 1
    assert "has no notes and no slides" in capsys.readouterr().err
    assert not out.exists()


def test_a_card_per_note_and_with_slides_the_slides_without_one(
    demo: Library, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lecture = next(s for s in demo.sources(DEMO_COURSE) if s.kind == SourceKind.VIDEO)
    deck = next(s for s in demo.sources(DEMO_COURSE) if s.kind == SourceKind.SLIDES)
    demo.add_note(lecture.path, 'Stable: equal keys keep their order <b>"why"</b>', at_ms=170_000)
    demo.add_note(deck.path, "Pivot: median of three", page=5)
    demo.add_note(deck.path, "Pivot: the sorted-input trap", page=5)  # two at one place
    out = tmp_path / "notes.apkg"
    assert _cli(demo, models_dir, "export", "anki", DEMO_COURSE, "-o", str(out)) == 0
    assert "3 cards (3 notes, 0 slides)" in capsys.readouterr().out
    (tmp_path / "a").mkdir()
    package = read_package(out, tmp_path / "a")
    assert package.cards == len(package.notes) == 3
    cards = {fields[0].split("<div", 1)[0]: fields for _, fields, _ in package.notes}
    stable = cards["Stable: equal keys keep their order &lt;b&gt;&quot;why&quot;&lt;/b&gt;"]
    said = demo.transcript(lecture.path)
    at = max(i for i, t in enumerate(said) if t.start_ms <= 170_000)
    assert " ".join(said[at].text.split()) in stable[1]  # the sentence spoken there
    slide_at = demo.store.recordings.slide_at(lecture.id, 170_000)
    assert slide_at is not None and deck.sha256 is not None
    assert stable[2] == f'<img src="slide-{deck.sha256[:16]}-p{slide_at.page}.png">'
    assert parse_link(stable[3].split('"')[1].replace("&amp;", "&")).start_ms == 170_000
    pivot = cards["Pivot: median of three"]
    assert "Median-of-three pivot" in pivot[1] and "Quicksort partitioning" not in pivot[1]
    assert parse_link(pivot[3].split('"')[1].replace("&amp;", "&")).page == 5
    assert {tags for *_, tags in package.notes} == {"coursedex note"}

    # --slides: a card for each slide page no note is on (4 and 5 have notes).
    both = tmp_path / "both.apkg"
    assert _cli(demo, models_dir, "export", "anki", DEMO_COURSE, "--slides", "-o", str(both)) == 0
    (tmp_path / "b").mkdir()
    with_slides = read_package(both, tmp_path / "b")
    assert with_slides.cards == 3 + 8 - 2
    # The same notes keep their guids; the slide cards are the ones a notes-less export had.
    notes_guids = {g for g, _, _ in package.notes}
    assert notes_guids <= {g for g, _, _ in with_slides.notes}
    fronts = {
        f[0].split("<div", 1)[0] for _, f, tags in with_slides.notes if tags.endswith("slide")
    }
    assert "Quicksort partitioning" not in fronts and "Binary search" in fronts


def test_a_note_whose_file_is_gone_still_gets_its_card(library: Library, tmp_path: Path) -> None:
    course = tmp_path / "Zoology"
    course.mkdir()
    lecture = make_srt(course / "week 1.srt", LECTURE_CUES)
    library.ingest([course])
    library.add_note(str(lecture), "Hippos: the river horse", at_ms=HIPPO_MS)
    library.remove(str(lecture))
    cards = course_cards(library, "Zoology")
    assert [(c.kind, c.back) for c in cards] == [("note", "")]
    assert cards[0].front.startswith("Hippos: the river horse")
    assert "week 1.srt (no longer in the library)" in cards[0].where
    written = write_deck("Zoology", cards, tmp_path / "zoology.apkg", library=library)
    (tmp_path / "x").mkdir()
    assert read_package(written.path, tmp_path / "x").cards == 1


def test_control_characters_are_escaped_on_the_cards(library: Library, tmp_path: Path) -> None:
    """Issue 34, item 10, as in the handouts: ESC and BEL of a note or a file's name are
    written as their escapes (``\\x1b``), not raw into the card's HTML."""
    course = tmp_path / "Zoology"
    course.mkdir()
    lecture = make_srt(course / f"{CONTROL_TITLE}.srt", LECTURE_CUES)
    library.ingest([course])
    library.add_note(str(lecture), CONTROL_NOTE, at_ms=HIPPO_MS)
    (card,) = course_cards(library, "Zoology")
    html = card.front + card.back + card.where
    assert not [c for c in html if c in CONTROLS], [c for c in html if c in CONTROLS]
    assert card.front.startswith("note \\x00 bell\\x07 esc\\x1b[2J"), card.front
    assert "Lecture \\x1b[31mRED" in card.where, card.where
