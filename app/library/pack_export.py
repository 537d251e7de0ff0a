"""Export course pack… (a course's menu in the library panel, and the File menu): a course
shared without its files, as ``coursedex pack export`` writes it, so a class imports the
teacher's transcription instead of redoing it.

The File menu's exports the course picked in the library panel (a course row or one of its
files), the only course when there is one, else the course chosen from a list. The save
dialog asks where (and before replacing a file); the pack is written on the import bar's
worker with its progress bar and Cancel (nothing is written when cancelled), and the
status line says where it went, or why not. The course's notes stay out, as the command's
default: a teacher's notes are theirs (``coursedex pack export --with-notes`` carries them).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QComboBox, QInputDialog, QWidget

from app.library.bar_job import BarJob
from app.library.file_dialogs import FileDialogs
from app.library.import_bar import ImportBar
from app.library.panel import LibraryPanel
from app.tasks import Failure, Task
from engine.api import (
    ExportSummary,
    Library,
    PackProgress,
    export_pack,
    human_size,
    plural,
    printable,
)

PACK = "pack"  # what the panel's study_requested asks for: ("pack", a course's name)


class PackExport(BarJob):
    """Asks which course and where, writes its pack in the background, says the outcome
    (``finished``: the ExportSummary, or the one line that says why not)."""

    def __init__(
        self,
        library: Library,
        bar: ImportBar,
        dialogs: FileDialogs,
        panel: LibraryPanel,
        parent: QWidget,
    ) -> None:
        super().__init__(bar, parent)
        self.library = library
        self.dialogs = dialogs
        self.panel = panel
        self.window = parent
        self._course = ""
        panel.study_requested.connect(self._asked)

    def _asked(self, what: str, course: str) -> None:
        if what == PACK:
            self.choose(course)

    def choose(self, course: str | None = None) -> None:
        """The course (``course``, else as the File menu finds it), where to save, then the
        export; nothing happens when a dialog is cancelled."""
        course = course or self._course_wanted()
        if course is None:
            return
        if self.busy("export the course pack"):
            return
        where = self.dialogs.pack_to_save(course)
        if where is not None:
            self.start(course, where)

    def _course_wanted(self) -> str | None:
        picked = self.panel.selected_course()
        if picked is not None:
            return picked
        names = sorted((c.name for c in self.panel.courses()), key=str.casefold)
        if not names:
            self.bar.say("No course to export yet: import a course first.")
            return None
        if len(names) == 1:
            return names[0]
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle("Export course pack")
        dialog.setLabelText("The course to share as a pack:")
        dialog.setComboBoxItems(names)
        dialog.setComboBoxEditable(False)
        # Room for its title: a window manager elides it in a dialog as narrow as its list
        # (the dialog's own layout sets its width from its parts).
        box = dialog.findChild(QComboBox)
        if box is not None:
            box.setMinimumWidth(2 * box.fontMetrics().horizontalAdvance(dialog.windowTitle()))
        try:
            chosen = dialog.exec() == QInputDialog.DialogCode.Accepted
            return dialog.textValue() if chosen else None
        finally:
            dialog.deleteLater()

    def start(self, course: str, where: Path) -> None:
        """Write ``course``'s pack to ``where`` (replaced: the save dialog asked) on the import
        bar's worker."""
        if self.busy("export the course pack"):
            return
        library, self._course = self.library, printable(course)
        self.cancelling = f"Cancelling the export of “{self._course}”…"

        def work(job: Task[PackProgress]) -> ExportSummary:
            return export_pack(
                library, course, where, force=True, progress=job.report, cancel=job.cancelled
            )

        line = f"Exporting “{self._course}” as a course pack…"
        self.begin(line, work, self._done, self._failed, self._progress)

    def _progress(self, p: PackProgress) -> None:
        if p.stage == "reading":
            stage = f"reading its files ({p.done + 1} of {p.total})"
        else:
            stage = "writing the pack"
        self.show_progress(p, f"Exporting “{self._course}” as a course pack: {stage}…")

    def _done(self, done: ExportSummary) -> None:
        self.ended(
            f"Course pack saved: {done.path} ({plural(done.files, 'file')}, "
            f"{plural(done.segments, 'passage')}, {human_size(done.size)}). Whoever imports "
            "it (File > Import course pack…) searches the course without transcribing it."
        )
        self.finished.emit(done)

    def _failed(self, failed: Failure) -> None:
        self.failed(
            failed,
            f"The export of “{self._course}” was cancelled: no pack was written.",
            f"Could not export “{self._course}” as a course pack",
        )
