"""What a student takes away from the library panel's menus: a lecture's handout (Export
handout…: .html or .md) and a course's flashcards (Export flashcards…: an Anki .apkg).

Both ask where to save (the dialog asks before replacing a file: only then is one
replaced), then write on the task pool (drawing slide pages takes a moment) and
say where the file went on the status line; a failure is a message box with the engine's one
line, and the window goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject

from app.library.file_dialogs import FileDialogs
from app.library.panel import LibraryPanel
from app.tasks import Failure, Tasks
from engine.api import (
    DeckWritten,
    Library,
    build_handout,
    course_cards,
    plural,
    write_deck,
    write_handout,
)

HANDOUT = "handout"
FLASHCARDS = "flashcards"


class StudyExports(QObject):
    """Wires the panel's Export handout… and Export flashcards… to the engine."""

    def __init__(
        self,
        panel: LibraryPanel,
        library: Library,
        tasks: Tasks,
        dialogs: FileDialogs,
        *,
        say: Callable[[str], None],
        warn: Callable[[str, str], None],
    ) -> None:
        """``say`` puts a line on the status line, ``warn`` shows a message box."""
        super().__init__(panel)
        self.library = library
        self.tasks = tasks
        self.dialogs = dialogs
        self.say = say
        self.warn = warn
        panel.study_requested.connect(self.export)

    def export(self, what: str, target: str) -> None:
        if what == HANDOUT:
            self.export_handout(target)
        elif what == FLASHCARDS:
            self.export_flashcards(target)

    def export_handout(self, lecture: str, dest: Path | None = None) -> None:
        """Save a lecture's handout (asks where, unless ``dest``)."""
        where = dest or self.dialogs.handout_to_save(lecture)
        if where is None:
            return
        library = self.library

        def work() -> Path:
            handout = build_handout(library, lecture)
            # Replaced only when the save dialog asked; a ``dest`` given is never replaced.
            return write_handout(handout, where, library=library, force=dest is None)

        def failed(failure: Failure) -> None:
            self.warn("Cannot export the handout", failure.message)

        self.tasks.run(work, lambda out: self.say(f"Handout saved: {out}"), failed)

    def export_flashcards(self, course: str, dest: Path | None = None) -> None:
        """Save a course's flashcards as an Anki deck (asks where, unless ``dest``)."""
        where = dest or self.dialogs.flashcards_to_save(course)
        if where is None:
            return
        library = self.library

        def work() -> DeckWritten:
            cards = course_cards(library, course)
            return write_deck(course, cards, where, library=library, force=dest is None)

        def done(written: DeckWritten) -> None:
            self.say(f"Flashcards saved: {written.path} ({plural(written.cards, 'card')})")

        def failed(failure: Failure) -> None:
            self.warn("Cannot export the flashcards", failure.message)

        self.tasks.run(work, done, failed)
