"""The preview: a lecture playing from the hit with its transcript, a slide page, or a file at
its line, in one stack (with a hint before anything is open)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QLineEdit, QStackedWidget, QVBoxLayout, QWidget

from app.accessible import describe
from app.notes.places import Spot
from app.notes.taking import NoteTaker
from app.player.keys import NOTE_KEY
from app.player.memory import PlaybackMemory
from app.player.playback import PlayerUnavailable, has_qt_multimedia
from app.player.view import PlayerView
from app.search.results import OPEN_HINT
from app.tasks import Failure, Tasks
from app.viewers.code_view import CodeView
from app.viewers.missing import MissingFile
from app.viewers.slide_view import SlideView
from engine.api import (
    AtLines,
    AtMoment,
    Chapter,
    Library,
    Note,
    OnPage,
    SearchResult,
    SegmentKind,
    Source,
    SourceKind,
    Timing,
    WholeFile,
    clock,
)

log = logging.getLogger(__name__)


class PreviewPane(QWidget):
    """Shows a search result: plays it, or shows its slide page or its file at the line.
    The player is made on first use (loading libVLC takes a moment)."""

    def __init__(
        self,
        library: Library,
        tasks: Tasks,
        *,
        backend: str = "auto",
        vlc_args: Sequence[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.backend = backend
        self.vlc_args = tuple(vlc_args)
        describe(
            self,
            "Preview",
            "The result opened: the lecture playing with its transcript, a slide, or a file.",
        )
        self.stack = QStackedWidget()
        self.placeholder = QLabel(OPEN_HINT)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.stack.addWidget(self.placeholder)
        self.slide_view = SlideView(library, tasks)
        self.slide_view.play_requested.connect(self.play)
        self.stack.addWidget(self.slide_view)
        self.code_view = CodeView()
        self.stack.addWidget(self.code_view)
        self.missing = MissingFile(library, tasks)  # a hit on a file not on this computer
        self.stack.addWidget(self.missing)
        self._player: PlayerView | None = None
        self.memory: PlaybackMemory | None = None  # the player's speed and positions
        self.keys_from: QLineEdit | None = None  # a text box the player's keys work from
        self._lecture = ""  # the last lecture played
        self._shown = ""  # the file whose lecture, slide or text is on show
        self._removed: set[str] = set()  # files removed from the library while open
        self._said_removed = ""  # the file the placeholder says was removed
        self._text_file: tuple[str, str | None] = ("", None)  # the code view's file, member
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.stack, 1)
        self._notes()

    def _notes(self) -> None:
        """A note where the user is: the player's button and B (its own key, so it works in
        full screen too), a slide's or a file's button and B while one shows."""
        self.notes = NoteTaker(self.library, self.tasks, self)
        self.notes.added.connect(self._note_added)
        self.slide_view.note_button.clicked.connect(self.note_here)
        self.code_view.note_button.clicked.connect(self.note_here)
        self._note_key = QShortcut(QKeySequence(NOTE_KEY), self)
        self._note_key.setContext(Qt.ShortcutContext.WindowShortcut)
        self._note_key.activated.connect(self.note_here)
        self.stack.currentChanged.connect(
            lambda _i: self._note_key.setEnabled(
                self.stack.currentWidget() in (self.slide_view, self.code_view)
            )
        )
        self._note_key.setEnabled(False)

    @property
    def has_player(self) -> bool:
        """Whether the player was made (without making it)."""
        return self._player is not None

    @property
    def player(self) -> PlayerView:
        """The player, made on first use."""
        if self._player is None:
            try:
                self._player = PlayerView(
                    backend=self.backend, vlc_args=self.vlc_args, memory=self.memory
                )
            except PlayerUnavailable as e:
                # The other engine, once: "auto" has tried both (make_backend). Without Qt
                # Multimedia (the Linux build) that is VLC, whatever the setting says, and
                # its failure says what to install.
                fallback = "qt" if has_qt_multimedia() else "vlc"
                if self.backend in (fallback, "auto"):
                    raise
                log.warning("%s; using %s", e, "Qt Multimedia" if fallback == "qt" else "VLC")
                self._player = PlayerView(
                    backend=fallback, vlc_args=self.vlc_args, memory=self.memory
                )
            self._player.controls.note_clicked.connect(self.note_at_moment)
            self.stack.addWidget(self._player)
        return self._player

    def set_backend(self, backend: str) -> None:
        """Use another player; a lecture on screen goes on in it from where it was."""
        old, previous, self.backend = self._player, self.backend, backend
        if old is None or backend == previous:
            return
        showing = self.stack.currentWidget() is old
        position = old.position_ms()
        old.shutdown()
        self.stack.removeWidget(old)  # the stack would show its next page: the code view
        old.deleteLater()
        self._player = None
        if showing and self._lecture:
            self.play(self._lecture, position)
        elif showing:
            self.stack.setCurrentWidget(self.placeholder)

    def shutdown(self) -> None:
        if self._player is not None:
            self._player.shutdown()

    def removed(self, paths: Collection[str]) -> None:
        """These files left the library: if one is on show it goes (a lecture stops), and
        none of them opens again from a result or a link still on screen."""
        self._removed.update(paths)
        if self._shown in paths:
            self._say_removed(self._shown)

    def restored(self, paths: Collection[str]) -> None:
        """These files are in the library (again): they open as any other, and the preview
        no longer says one of them was removed."""
        self._removed.difference_update(paths)
        if self._said_removed in paths:
            name, self._said_removed = Path(self._said_removed).name, ""
            if self.stack.currentWidget() is self.placeholder:
                self.placeholder.setText(f"“{name}” is in the library again. {OPEN_HINT}")

    def _say_removed(self, path: str) -> None:
        if self._player is not None:
            self._player.stop()
        self._shown = self._lecture = ""
        self._said_removed = path
        self.placeholder.setText(f"“{Path(path).name}” was removed from the library.")
        self.stack.setCurrentWidget(self.placeholder)

    def show_result(self, result: SearchResult, terms: Sequence[str]) -> None:
        """Play a video hit from its time, show a slide page, or a file at the line; a file
        not on this computer (a course pack's) is said so, with Locate…"""
        if result.source not in self._removed and not Path(result.source).exists():
            self._not_here(result, terms)
            return
        playable = result.source_kind in (SourceKind.VIDEO, SourceKind.AUDIO)
        match result.place:
            case OnPage(page=page, shown_in=shown_in) if result.kind == SegmentKind.SLIDE:
                moments = tuple((s.source, s.start_ms) for s in shown_in)
                self.show_page(result.source, page, moments, terms)
            case AtMoment(start_ms=at) if playable:
                self.play(result.source, at, terms)
            case AtLines(line=line, path_in_archive=member):
                self.show_file(result.source, member, line, terms)
            case WholeFile(path_in_archive=member):
                self.show_file(result.source, member, None, terms)
            case _:  # a moment of subtitles, a note on a page: the file from its start
                self.show_file(result.source, None, None, terms)

    def _not_here(self, result: SearchResult, terms: Sequence[str]) -> None:
        """The hit's file is not on this computer: say where it was expected; once located,
        show the hit from the file chosen."""
        if self._player is not None:
            self._player.stop()
        self._shown = result.source

        def again(path: str) -> None:
            self.show_result(replace(result, source=path), terms)

        self.missing.show_for(result.source, again)
        self.stack.setCurrentWidget(self.missing)

    def show_page(
        self,
        path: str,
        page: int,
        shown_in: Sequence[tuple[str, int]] = (),
        terms: Sequence[str] = (),
    ) -> None:
        """A deck's page; ``shown_in`` lists (video, ms) where a lecture shows it."""
        if path in self._removed:
            self._say_removed(path)
            return
        self._shown = path
        self.slide_view.show_page(path, page, shown_in, terms)
        self.stack.setCurrentWidget(self.slide_view)

    def show_file(
        self, source: str, member: str | None, line: int | None, terms: Sequence[str] = ()
    ) -> None:
        """A file (or an archive's ``member``) at ``line``, read on the task pool."""
        if source in self._removed:
            self._say_removed(source)
            return
        self._shown = source
        library, name = self.library, member or Path(source).name

        def shown(text: str) -> None:
            self.code_view.show_code(text, name, line, terms)
            self._text_file = (source, member)
            self.stack.setCurrentWidget(self.code_view)

        def failed(failure: Failure) -> None:
            gone = not Path(source).exists()
            self.code_view.show_error(
                f"{Path(source).name} is no longer at {Path(source).parent}: "
                "it was moved or deleted"
                if gone
                else f"{name}: {failure.message}"
            )
            self.stack.setCurrentWidget(self.code_view)

        self.tasks.run(lambda: str(library.source_text(source, member)), shown, failed)

    def play(self, path: str, start_ms: int | None, terms: Sequence[str] = ()) -> None:
        """Open a lecture at a time (None: where it was left), with its transcript and
        chapters beside it; ``terms`` (the words searched) are marked in both."""
        if path in self._removed:
            self._say_removed(path)
            return
        self._shown = path
        try:
            player = self.player
        except PlayerUnavailable as e:  # no VLC, and a build without Qt Multimedia
            self._lecture = ""
            self.placeholder.setText(str(e))
            self.stack.setCurrentWidget(self.placeholder)
            return
        if self.keys_from is not None:
            player.watch_text_box(self.keys_from)
        self.stack.setCurrentWidget(player)
        self._lecture = path
        library = self.library

        def with_lines(read: tuple[Sequence[Timing], Sequence[Chapter], Source | None]) -> None:
            lines, chapters, source = read
            if path in self._removed or self._lecture != path:  # removed, or another since
                return
            player.open(path, start_ms, lines, terms=terms, chapters=chapters, source=source)

        self.tasks.run(
            lambda: (library.transcript(path), library.chapters(path), library.source(path)),
            with_lines,
            lambda _failure: with_lines(([], [], None)),
        )

    # --- notes -----------------------------------------------------------------------------

    def note_here(self) -> None:
        """Ask for a note where the user is: the moment playing, the slide's page, or the
        line of the file's cursor."""
        page = self.stack.currentWidget()
        if page is not None and page is self._player:
            self.note_at_moment()
        elif page is self.slide_view and self.slide_view.current_path:
            view = self.slide_view
            self.notes.ask(Spot(view.current_path, view.title, page=view.current_page), self)
        elif (
            page is self.code_view and self.code_view.note_button.isEnabled() and self._text_file[0]
        ):
            (source, member), cursor = self._text_file, self.code_view.editor.textCursor()
            line = cursor.blockNumber() + 1
            self.notes.ask(Spot(source, Path(source).stem, line=line, member=member), self)

    def note_at_moment(self) -> None:
        """A note at the moment playing (in full screen too, where the player is out of the
        stack): paused while the note is typed, playing on after if it was playing."""
        player = self._player
        if player is None or not self._lecture:
            return
        playing, at = player.is_playing(), player.position_ms()
        player.pause()
        spot = Spot(self._lecture, player.transcript.title, at_ms=at)
        self.notes.ask(spot, player, then=player.play if playing else None)

    def note_at_result(self, result: SearchResult) -> None:
        """Ask for a note at a result's place: its time, else its page, else its line."""
        match result.place:
            case AtMoment(start_ms=at):
                spot = Spot(result.source, result.title, at_ms=at)
            case OnPage(page=page):
                spot = Spot(result.source, result.title, page=page)
            case AtLines(line=line, path_in_archive=member):
                spot = Spot(result.source, result.title, line=line, member=member)
            case WholeFile(path_in_archive=member):
                spot = Spot(result.source, result.title, member=member)
        self.notes.ask(spot, self)

    def _note_added(self, note: Note) -> None:
        if self._player is not None and self._player.isVisible():  # in full screen too
            at = note.place.at_ms
            self._player.controls.show_notice(
                f"Note added at {clock(at)}" if at is not None else "Note added"
            )

    def open_note(self, note: Note) -> None:
        """A note's place: its lecture from the time, its deck at the page, its file at the
        line; a note on a whole file opens the file as a result of it would."""
        path, place = note.source_path, note.place
        if path is None:
            return
        if path not in self._removed and not Path(path).exists():  # as a hit's: Locate…
            if self._player is not None:
                self._player.stop()
            self._shown = path
            self.missing.show_for(
                path, lambda found: self.open_note(replace(note, source_path=found))
            )
            self.stack.setCurrentWidget(self.missing)
            return
        if place.at_ms is not None:
            self.play(path, place.at_ms)
        elif place.page is not None:
            self.show_page(path, place.page)
        elif place.line is not None or place.path_in_archive is not None:
            self.show_file(path, place.path_in_archive, place.line)
        else:
            library = self.library

            def by_kind(source: Source | None) -> None:
                kind = source.kind if source is not None else None
                if kind in (SourceKind.VIDEO, SourceKind.AUDIO):
                    self.play(path, None)
                elif kind == SourceKind.SLIDES:
                    self.show_page(path, 1)
                else:
                    self.show_file(path, None, None)

            self.tasks.run(lambda: library.source(path), by_kind)
