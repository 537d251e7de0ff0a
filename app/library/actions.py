"""What the library panel's rows do: open a file in its own application or show its folder,
export a transcript (a handout and flashcards: study_exports.py), set a file's or a course's
language (language.py), remove a course or file (the window plays lectures itself).

A removal asked for during an import stops the import's work on what is removed (the file
being transcribed stops, queued ones are skipped; the rest of the import goes on) and the
library removes it as that import ends; what the import does not hold but cannot be removed
while it runs waits for its end (the panel says so). The library's import session
(``library.importing``) holds all of it: these actions keep no copy. What each removal
changed is the engine's to tell: it is relayed as it is, and the window's panel and results
follow (those carried out as the import ends come with its report). The actions get what
they use (the panel, the library, the task pool, whether an import runs, where to say
things, where to relay changes), not the window.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from app.dialogs.confirm import confirmed
from app.library.file_dialogs import FileDialogs
from app.library.language import LanguageActions
from app.library.panel import LibraryPanel
from app.library.study_exports import StudyExports
from app.tasks import Failure, Tasks
from engine.api import (
    Changes,
    IngestReport,
    Library,
    LibraryBusyError,
    NotFoundError,
    Removal,
    Timing,
    capital,
    note_times,
    plural,
    write_transcript,
)

log = logging.getLogger(__name__)


class LibraryActions(QObject):
    """Wires the panel's requests to the desktop and the library."""

    def __init__(
        self,
        panel: LibraryPanel,
        library: Library,
        tasks: Tasks,
        *,
        importing: Callable[[], bool],
        say: Callable[[str], None],
        changed: Callable[[Changes], None],
        recheck: Callable[[Sequence[str]], None],
        dialogs: FileDialogs,
        import_again: Callable[[Sequence[Path]], None],
        parent: QWidget,
    ) -> None:
        """``say`` shows a line to the user; ``changed`` relays what the library says a call
        changed; ``recheck`` reads rows again (none: all) when nothing was written but what
        they show may differ; ``dialogs`` ask where a transcript, a handout or flashcards
        go; ``import_again`` imports the files the library queued again (their language
        set); ``parent`` holds the message boxes."""
        super().__init__(parent)
        self.panel = panel
        self.library = library
        self.tasks = tasks
        self.importing = importing
        self._say = say
        self.changed = changed
        self.recheck = recheck
        self.transcript_to_save = dialogs.transcript_to_save
        self.parent_ = parent
        self.message: QMessageBox | None = None  # the last message box shown (not modal)
        panel.open_requested.connect(self.open_file)
        panel.reveal_requested.connect(self.show_in_folder)
        panel.export_requested.connect(self.export_transcript)
        panel.remove_requested.connect(self.remove)
        self.study = StudyExports(panel, library, tasks, dialogs, say=say, warn=self._warn)
        self.languages = LanguageActions(
            panel,
            library,
            tasks,
            import_again=import_again,
            say=say,
            warn=self._warn,
            changed=changed,
            parent=parent,
        )

    # --- the desktop ------------------------------------------------------------------------

    def open_file(self, path: str) -> bool:
        """Open a file in the application the desktop uses for it."""
        if not Path(path).is_file():
            self._warn("Cannot open the file", _gone(path))
            self.recheck([path])  # it shows as missing from now on
            return False
        return self._open_url(QUrl.fromLocalFile(path))

    def show_in_folder(self, path: str) -> bool:
        """Show a file in its folder, selected where the file manager can (Windows, macOS,
        a Linux one with the freedesktop FileManager1 service); else open the folder. A
        course's folder opens as it is."""
        folder = Path(path) if Path(path).is_dir() else Path(path).parent
        if not folder.is_dir():
            self._warn("Cannot show the folder", f"The folder {folder} no longer exists.")
            return False
        if Path(path).is_file() and _select_in_file_manager(Path(path)):
            return True
        return self._open_url(QUrl.fromLocalFile(str(folder)))

    def _open_url(self, url: QUrl) -> bool:
        if QDesktopServices.openUrl(url):
            return True
        self._warn("Cannot open", f"No application on this computer opens {url.toLocalFile()}.")
        return False

    # --- transcripts ----------------------------------------------------------------------

    def export_transcript(self, path: str, dest: Path | None = None) -> None:
        """Save a lecture's transcript as .srt or .txt (asks where, unless ``dest``)."""
        asked = dest is None  # the save dialog asked before replacing a file
        if dest is None:
            dest = self.transcript_to_save(path)
            if dest is None:
                return
        library, where = self.library, dest
        source = library.source(path)
        title = source.title if source is not None else Path(path).stem

        def work() -> Path:
            lines: list[Timing] = library.transcript(path)
            if not lines:
                raise NotFoundError(f"{Path(path).name} has no transcript to export")
            notes = note_times(library.notes(source=path))
            return write_transcript(lines, where, title, notes, library=library, force=asked)

        def failed(failure: Failure) -> None:
            self._warn("Cannot export the transcript", failure.message)

        self.tasks.run(work, lambda out: self._say(f"Transcript saved as {out}"), failed)

    # --- removing -------------------------------------------------------------------------

    def remove(self, target: str, is_course: bool, *, confirm: bool = True) -> None:
        """Remove a course or a file from the library (after asking); during an import, its
        work on it stops and it goes as the import ends."""
        if confirm and not self._confirm_removal(target, is_course, self.importing()):
            return
        library = self.library
        # Asked again: the import may have ended while the question was open.
        if self.importing():
            self.panel.set_removing(target)

            def work() -> list[str] | Removal:
                stopped = library.remove_during_import(target)
                if stopped or target in library.importing.pending_removals():
                    return stopped
                try:
                    return library.remove(target)
                except LibraryBusyError:  # the import waits for another process's
                    if library.importing.remove_after(target):
                        return []
                    raise

            self.tasks.run(
                work,
                lambda done: self._during_import(target, is_course, done),
                lambda failed: self._removed(target, is_course, failed),
            )
            return
        self.tasks.run(
            lambda: library.remove(target),
            lambda done: self._removed(target, is_course, done),
            lambda failed: self._removed(target, is_course, failed),
        )

    def _during_import(self, target: str, is_course: bool, done: list[str] | Removal) -> None:
        """A removal asked during an import: done already, or the import stops work on the
        paths ``done`` (removed as it ends), or it waits for the end (``done`` empty)."""
        what = capital(_what(target, is_course))
        if isinstance(done, Removal):
            self._removed(target, is_course, done)
        elif done and not self.importing():  # that import has ended: it removed them
            self.panel.set_removing(target, False)
            self._say(f"{what} was removed; its import had stopped.")
        elif done:
            files = f" ({plural(len(done), 'file')})" if is_course else ""
            self._say(f"{what}{files} removed from the library: its import stopped there.")
        elif self.importing():  # else the import has ended, and said it removed it
            self._say(f"{what} is removed once the import ends.")

    def _confirm_removal(self, target: str, is_course: bool, importing: bool) -> bool:
        what = _what(target, is_course) + (" and its files" if is_course else "")
        stops = " An import is running: its work on it stops." if importing else ""
        return confirmed(
            self.parent_,
            "Remove from the library",
            f"Remove {what} from the library?{stops} The files on disk are not touched.",
        )

    def _removed(self, target: str, is_course: bool, outcome: Removal | Failure) -> None:
        self.panel.set_removing(target, False)
        if isinstance(outcome, Failure) and not isinstance(outcome.error, NotFoundError):
            self._warn("Cannot remove", outcome.message)
            self.recheck(())  # it stays: its row shows its state again
            return
        if isinstance(outcome, Failure):  # its row went with the removal that did it
            self._say(f"{capital(_what(target, is_course))} was already removed.")
            return
        self._say(_removed_line(target, is_course, outcome.count))
        self.changed(outcome.changes)

    def import_ended(self, report: IngestReport | None) -> None:
        """Say what the import removed as it ended that waited for it (those it stopped
        were said as they stopped); the window relays what its report changed."""
        self.panel.set_importing(False)
        for removed in report.removed_after if report is not None else ():
            self.panel.set_removing(removed.target, False)
            if not removed.stopped:
                self._say(_removed_line(removed.target, removed.course, removed.files))

    # --- messages ---------------------------------------------------------------------------

    def _warn(self, title: str, text: str) -> None:
        if self.message is not None:
            self.message.deleteLater()
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self.parent_)
        self.message = box
        box.open()  # not modal for the app: playback and searching go on


def _select_in_file_manager(path: Path) -> bool:
    """Ask the desktop's file manager to show ``path`` selected; False if it cannot."""
    if sys.platform == "win32":
        return QProcess.startDetached("explorer", [f"/select,{path}"])[0]
    if sys.platform == "darwin":
        return QProcess.startDetached("open", ["-R", str(path)])[0]
    from PySide6.QtDBus import QDBusConnection, QDBusInterface

    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    manager = QDBusInterface(
        "org.freedesktop.FileManager1",
        "/org/freedesktop/FileManager1",
        "org.freedesktop.FileManager1",
        bus,
    )
    if not manager.isValid():
        return False
    reply = manager.call("ShowItems", [QUrl.fromLocalFile(str(path)).toString()], "")
    return not reply.errorName()


def _removed_line(target: str, is_course: bool, files: int) -> str:
    if is_course:
        return f"Removed the course “{target}” ({plural(files, 'file')})."
    return f"Removed “{Path(target).name}” from the library."


def _what(target: str, is_course: bool) -> str:
    return f"the course “{target}”" if is_course else f"“{Path(target).name}”"


def _gone(path: str) -> str:
    return (
        f"{Path(path).name} is no longer at {Path(path).parent}: it was moved or deleted. "
        "Put it back, or remove it from the library."
    )
