"""Adding a note where the user is: the editor asks for its text, then the library adds it on
the task pool (the window never waits on the engine). A note the library could not add is
asked again with its text and the reason."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from app.notes.editor import ask_note
from app.notes.places import Spot
from app.tasks import Failure, Tasks
from engine.api import Library


class NoteTaker(QObject):
    """Asks for a note at a Spot and adds it; ``added`` carries the engine's Note."""

    added = Signal(object)  # the AddedNote: the note, with what adding it changed

    def __init__(self, library: Library, tasks: Tasks, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks

    def ask(
        self,
        spot: Spot,
        over: QWidget,
        *,
        then: Callable[[], object] | None = None,
        text: str = "",
        error: str = "",
    ) -> None:
        """Ask for the note's text over ``over``'s window, then add it; ``then`` runs once
        the editor closes (the player plays on)."""
        typed = ask_note(over.window(), spot.text(), text, error=error)
        if then is not None:
            then()
        if typed is None:
            return
        library = self.library

        def failed(failure: Failure) -> None:
            self.ask(spot, over, text=typed, error=f"Not saved: {failure.message}")

        self.tasks.run(
            lambda: library.add_note(
                spot.source,
                typed,
                at_ms=spot.at_ms,
                page=spot.page,
                line=spot.line,
                path_in_archive=spot.member,
            ),
            self.added.emit,
            failed,
        )
