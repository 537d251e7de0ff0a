"""File > Import course pack… (or a pack dropped on the window): a course a teacher exported
(``coursedex pack export``) made searchable here without transcribing anything.

Two dialogs: the pack, then the folder holding the course's files (Cancel: none; the files
are then looked for in the library only, and those not found are imported as not here).
The import runs on the import bar's worker, with its progress bar and Cancel; what it did,
or why the pack was refused (one line: damaged, tampered, too new…), is said on the bar's
status line, which names the pack's files left out because other content is at their
places (the user's own stays as it is: issue 34). A file found later is linked from a hit
on it (the preview's "Locate…").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from app.library.bar_job import BarJob
from app.library.file_dialogs import ALL_FILES, PACK_FILTER, FileDialogs
from app.library.import_bar import ImportBar
from app.tasks import Failure, Task
from engine.api import (
    Changes,
    ImportSummary,
    Library,
    PackProgress,
    import_pack,
    plural,
    printable,
)

Location = QStandardPaths.StandardLocation
PACK_SUFFIX = ".cdxpack"
MEDIA_TITLE = "Folder holding the course's files (Cancel: import without them)"
STAGES = {
    "checking": "checking the pack",
    "finding files": "looking for the course's files",
    "embedding": "embedding its text for this library's search model",
    "writing": "writing",
}


class PackImport(BarJob):
    """Asks for a pack and its files' folder, imports it in the background, says the outcome
    (``finished``: the ImportSummary, or the one line that says why not)."""

    def __init__(
        self,
        library: Library,
        bar: ImportBar,
        dialogs: FileDialogs,
        changed: Callable[[Changes], None],
        parent: QWidget,
    ) -> None:
        super().__init__(bar, parent)
        self.library = library
        self.dialogs = dialogs
        self.changed = changed
        self.window = parent
        self._name = ""
        self._left_out = ""  # said after the outcome: the packs of a drop not imported

    def choose(self) -> None:
        """The two dialogs, then the import (nothing happens when the first is cancelled)."""
        pack = self._ask(
            "Import course pack", QFileDialog.FileMode.ExistingFile, [PACK_FILTER, ALL_FILES]
        )
        if pack is None:
            return
        self._with_media(pack)

    def take_packs(self, paths: Sequence[Path]) -> list[Path]:
        """A drop on the window: a course pack in it is imported as the menu does (the
        folder of its files asked for); the other paths are returned, to import as files.
        One pack at a time: the status line names the ones left out."""
        packs = [p for p in paths if p.suffix.lower() == PACK_SUFFIX and p.is_file()]
        if packs:
            self._with_media(packs[0])
            later = ", ".join(printable(p.name) for p in packs[1:])
            if later and self.running:
                self._left_out = f" One course pack at a time: drop {later} again."
        return [p for p in paths if p not in packs]

    def _with_media(self, pack: Path) -> None:
        media = self._ask(MEDIA_TITLE, QFileDialog.FileMode.Directory, [], start=str(pack.parent))
        self.start(pack, media)

    def _ask(
        self,
        title: str,
        mode: QFileDialog.FileMode,
        filters: list[str],
        start: str | None = None,
    ) -> Path | None:
        folder = start or self.dialogs.start_folder(Location.DownloadLocation)
        dialog = QFileDialog(self.window, title, folder)
        dialog.setFileMode(mode)
        if filters:
            dialog.setNameFilters(filters)
        try:
            if not dialog.exec() or not dialog.selectedFiles():
                return None
            chosen = Path(dialog.selectedFiles()[0])
        finally:
            dialog.deleteLater()
        self.dialogs.last_folder = str(chosen.parent if chosen.is_file() else chosen)
        return chosen

    def start(self, pack: Path, media: Path | None) -> None:
        """Import ``pack`` on the import bar's worker (one import at a time)."""
        if self.busy("import the course pack"):
            return
        library, self._name = self.library, printable(pack.name)
        self.cancelling = f"Cancelling the import of {self._name}…"

        def work(job: Task[PackProgress]) -> ImportSummary:
            return import_pack(
                library, pack, media=media, progress=job.report, cancel=job.cancelled
            )

        line = f"Importing the course pack {self._name}…"
        self.begin(line, work, self._done, self._failed, self._progress)

    def _progress(self, p: PackProgress) -> None:
        stage = STAGES.get(p.stage, p.stage)
        self.show_progress(p, f"Importing the course pack {self._name}: {stage}…")

    def ended(self, line: str) -> None:
        super().ended(line + self._left_out)
        self._left_out = ""

    def _done(self, summary: ImportSummary) -> None:
        self.ended(summary_text(summary, self._name))
        self.changed(summary.changes)
        self.finished.emit(summary)

    def located(self, changes: Changes) -> None:
        """A file not here was located (the preview's Locate…): the panel and results follow."""
        self.changed(changes)

    def _failed(self, failed: Failure) -> None:
        self.failed(
            failed,
            f"The import of {self._name} was cancelled: the library is as it was.",
            f"Could not import the course pack {self._name}",
        )


def summary_text(summary: ImportSummary, name: str) -> str:
    """What the status line says after an import: the course, its files, nothing
    transcribed, how many files are not on this computer, the files left out, and the notes
    and slide links left out (the first named)."""
    files = plural(len(summary.files), "file")
    again = " (embedded for this library's search model)" if summary.reembedded else ""
    text = (
        f"Imported “{printable(summary.course)}” from {name}: {files}, "
        f"{plural(summary.segments, 'passage')}{again}, nothing transcribed."
    )
    missing = len(summary.missing)
    if missing:
        text += (
            f" {plural(missing, 'file')} {'is' if missing == 1 else 'are'} not on this "
            "computer: searchable all the same; open a hit on one to locate it."
        )
    return text + _conflicts_text(summary) + _left_out_text(summary)


def _conflicts_text(summary: ImportSummary, named: int = 3) -> str:
    """The pack's files left out, the first few by name: other content is at their places."""
    conflicts = summary.conflicts
    if not conflicts:
        return ""
    names = ", ".join(f"“{printable(Path(f.path).name)}”" for f in conflicts[:named])
    if len(conflicts) > named:
        names += f" and {len(conflicts) - named} more"
    yours = "yours is kept as it is" if len(conflicts) == 1 else "yours are kept as they are"
    return (
        f" {plural(len(conflicts), 'file')} of the pack left out: other content is at "
        f"{names}; {yours}."
    )


def _left_out_text(summary: ImportSummary) -> str:
    """The notes and slide links left out, at places their files do not have; the first
    named (issue 34, item 8)."""
    left = summary.left_out
    if not left:
        return ""
    first = printable(left[0])
    many = plural(len(left), "note or slide link", "notes or slide links")
    more = ", …" if len(left) > 1 else ""
    return f" {many} left out, at a place its file does not have ({first}{more})."
