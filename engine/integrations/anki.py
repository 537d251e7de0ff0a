"""Flashcards written as an Anki package (.apkg) with genanki.

genanki is the maintained library that writes Anki's own format (a zip holding the
collection's SQLite file and the pictures), so Anki imports it as any shared deck. The ids
Anki matches on are derived, never random: the card type's from a fixed name, the deck's
from the course's name, each note's guid from what the card is about
(:attr:`Card.guid_parts`). Importing a second export of the same course therefore updates
its cards instead of adding a copy of each.

genanki's own ``write_to_file`` leaves its temporary database behind; the package is
written here instead, in a temporary folder that is removed, then moved into place whole.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CoursedexError
from engine.integrations.flashcards import Card
from engine.integrations.pictures import Picture
from engine.outputs import check_output, write_failed, write_output
from engine.plain_text import printable

if TYPE_CHECKING:
    import genanki

    from engine.library import Library

MODEL_NAME = "Coursedex card"
DECK_PREFIX = "Coursedex::"  # every course's deck under one parent deck in Anki
CSS = """
.card { font-family: system-ui, sans-serif; font-size: 20px; text-align: left;
        color: #1f2328; background: #fff; max-width: 40em; margin: 0 auto; }
.from { color: #59636e; font-size: 14px; margin-top: .5em; }
.where { color: #59636e; font-size: 14px; margin-top: 1em; }
img { max-width: 100%; border: 1px solid #d1d9e0; border-radius: 4px; margin-top: .5em; }
pre { white-space: pre-wrap; font-size: 15px; background: #f6f8fa; padding: .5em; }
"""


@dataclass(frozen=True, slots=True)
class DeckWritten:
    path: Path
    cards: int
    pictures: int


def stable_id(text: str) -> int:
    """An Anki id derived from ``text``: the same text gives the same id on every export,
    in the range genanki advises for ids chosen by hand (2^30 to 2^31)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return (1 << 30) + int.from_bytes(digest[:4], "big") % (1 << 30)


MODEL_ID = stable_id("coursedex card model, version 1")


def deck_name(course: str) -> str:
    # "::" makes a deck a parent in Anki: a course name's own would nest it further.
    return DECK_PREFIX + course.replace("::", ":")


def write_deck(
    course: str,
    cards: Sequence[Card],
    dest: Path,
    *,
    library: Library | None,
    force: bool = False,
) -> DeckWritten:
    """Write ``cards`` as the Anki deck of ``course`` to ``dest`` (.apkg), whole or not
    at all, only where :func:`~engine.outputs.check_output` allows (``library``'s,
    ``force``).

    Raises:
        CoursedexError: ``dest`` is refused, is not an .apkg, or cannot be written.
    """
    given, dest = dest, check_output(dest, library, force=force)
    if dest.suffix.lower() != ".apkg":
        raise CoursedexError(
            f"cannot write flashcards as {printable(dest.suffix) or 'a file without a suffix'}: "
            "choose .apkg (Anki's package)"
        )
    import genanki

    model = genanki.Model(
        MODEL_ID,
        MODEL_NAME,
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Picture"}, {"name": "Where"}],
        templates=[
            {
                "name": "Card 1",
                "qfmt": "{{Front}}",
                "afmt": '{{FrontSide}}<hr id="answer">{{Back}}{{Picture}}'
                '<div class="where">{{Where}}</div>',
            }
        ],
        css=CSS,
    )
    deck = genanki.Deck(stable_id("coursedex deck " + course.casefold()), deck_name(course))
    pictures = {c.picture.name: c.picture for c in cards if c.picture is not None}
    for card in cards:
        image = f'<img src="{card.picture.name}">' if card.picture is not None else ""
        deck.add_note(
            genanki.Note(
                model=model,
                fields=[card.front, card.back, image, card.where],
                guid=genanki.guid_for(*card.guid_parts),
                tags=["coursedex", card.kind],
            )
        )
    try:
        _write_package(genanki.Package(deck), pictures, given, dest, library, force=force)
    except OSError as e:
        raise write_failed(dest, e) from e
    except sqlite3.Error as e:  # the collection is built in the temp folder first
        full = getattr(e, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
        why = "the disk is full" if full else e
        raise CoursedexError(f"cannot write {printable(str(dest))}: {why}") from e
    return DeckWritten(dest, len(cards), len(pictures))


def _write_package(
    package: genanki.Package,
    pictures: dict[str, Picture],
    given: Path,
    dest: Path,
    library: Library | None,
    *,
    force: bool,
) -> None:
    """genanki's package written as ``write_to_file`` does, without its leftovers."""
    with tempfile.TemporaryDirectory(prefix="coursedex-anki-") as work:
        db = Path(work) / "collection.anki2"
        conn = sqlite3.connect(db)
        try:
            now = time.time()
            package.write_to_db(conn.cursor(), now, itertools.count(int(now * 1000)))
            conn.commit()
        finally:
            conn.close()

        def write(tmp: Path) -> None:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
                out.write(db, "collection.anki2")
                names = sorted(pictures)
                out.writestr("media", json.dumps({str(i): n for i, n in enumerate(names)}))
                for i, name in enumerate(names):
                    out.writestr(str(i), pictures[name].data)

        write_output(given, dest, write, library, force=force)
