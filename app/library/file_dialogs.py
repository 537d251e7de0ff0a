"""The file dialogs the window opens: files or a folder to import, where to save a transcript,
a handout, flashcards or a course pack.

They open where the student keeps such things: the last folder used (remembered between
starts by the window), else their Videos folder for lectures, Documents for a course folder
or a transcript, else their home folder; never the folder the app happened to start in. The
import dialog's filters come from the engine's own list of what it can import
(IMPORT_GROUPS): All supported, Lectures, Slides, Code, Notes, All files.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.dialogs.confirm import confirmed
from engine.api import IMPORT_GROUPS

Location = QStandardPaths.StandardLocation
ALL_FILES = "All files (*)"
PACK_FILTER = "Course packs (*.cdxpack)"


def _patterns(extensions: frozenset[str]) -> str:
    return " ".join(f"*{extension}" for extension in sorted(extensions))


def import_filters() -> list[str]:
    """The import dialog's filters, what the engine imports first: "All supported (...)",
    one per group ("Lectures (*.avi *.flac ...)"), then "All files (*)"."""
    every = frozenset().union(*(extensions for _name, extensions in IMPORT_GROUPS))
    groups = [f"{name} ({_patterns(extensions)})" for name, extensions in IMPORT_GROUPS]
    return [f"All supported ({_patterns(every)})", *groups, ALL_FILES]


def _file_name(course: str, otherwise: str) -> str:
    """A course's name as a file's, without the characters a file system refuses."""
    return "".join("_" if c in '/\\:*?"<>|' else c for c in course).strip() or otherwise


class FileDialogs:
    """Opens the dialogs in the right folder and remembers the last one used."""

    def __init__(self, parent: QWidget, last_folder: str = "") -> None:
        self.parent = parent
        self.last_folder = last_folder  # the window keeps it between starts

    def start_folder(self, usual: Location) -> str:
        """The last folder used if it is still there, else the user's ``usual`` folder (Videos,
        Documents), else their home."""
        for folder in (self.last_folder, QStandardPaths.writableLocation(usual)):
            if folder and Path(folder).is_dir():
                return folder
        return str(Path.home())

    def files_to_import(self) -> list[Path]:
        dialog = self._dialog("Add files to the library", Location.MoviesLocation)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilters(import_filters())
        dialog.setOption(QFileDialog.Option.HideNameFilterDetails)  # 90 patterns say little
        return self._run(dialog)

    def folder_to_import(self) -> Path | None:
        dialog = self._dialog("Add a course folder", Location.DocumentsLocation)
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly)
        chosen = self._run(dialog)
        return chosen[0] if chosen else None

    def transcript_to_save(self, lecture: str) -> Path | None:
        """Where to save a lecture's transcript, as .srt or .txt (the filter picked decides
        a name typed without either)."""
        dialog = self._dialog("Export transcript", Location.DocumentsLocation)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters(["SubRip subtitles (*.srt)", "Plain text (*.txt)"])
        dialog.selectFile(f"{Path(lecture).stem}.srt")
        chosen = self._run(dialog)
        if not chosen:
            return None
        path = chosen[0]
        if path.suffix.lower() not in (".srt", ".txt"):
            txt = "Plain text" in dialog.selectedNameFilter()
            path = path.with_name(f"{path.name}.{'txt' if txt else 'srt'}")
            return path if self._may_replace(path) else None
        return path

    def handout_to_save(self, lecture: str) -> Path | None:
        """Where to save a lecture's handout, as .html or .md (the filter picked decides a
        name typed without either)."""
        return self._save_as(
            "Export handout",
            Path(lecture).stem,
            [("Web page, one file (*.html)", ".html"), ("Markdown (*.md)", ".md")],
        )

    def flashcards_to_save(self, course: str) -> Path | None:
        """Where to save a course's flashcards (an Anki package)."""
        name = _file_name(course, "flashcards")
        return self._save_as("Export flashcards", name, [("Anki deck (*.apkg)", ".apkg")])

    def pack_to_save(self, course: str) -> Path | None:
        """Where to save a course pack (named after the course)."""
        name = _file_name(course, "course")
        return self._save_as("Export course pack", name, [(PACK_FILTER, ".cdxpack")])

    def _save_as(self, title: str, name: str, kinds: list[tuple[str, str]]) -> Path | None:
        """A save dialog offering ``kinds`` ((filter, suffix), the first the default)."""
        dialog = self._dialog(title, Location.DocumentsLocation)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters([label for label, _ in kinds])
        dialog.selectFile(f"{name}{kinds[0][1]}")
        chosen = self._run(dialog)
        if not chosen:
            return None
        path = chosen[0]
        suffixes = [suffix for _, suffix in kinds]
        if path.suffix.lower() not in suffixes:
            picked = dict(kinds).get(dialog.selectedNameFilter(), suffixes[0])
            path = path.with_name(path.name + picked)
            return path if self._may_replace(path) else None
        return path

    def _may_replace(self, path: Path) -> bool:
        """Whether to write ``path``, a name the dialog did not see (its suffix added
        after): asked as the dialog asks when it is there."""
        if not path.exists():
            return True
        return confirmed(
            self.parent,
            "Replace the file?",
            f"{path.name} already exists. Do you want to replace it?",
            QMessageBox.Icon.Warning,
        )

    def _dialog(self, title: str, usual: Location) -> QFileDialog:
        return QFileDialog(self.parent, title, self.start_folder(usual))

    def _run(self, dialog: QFileDialog) -> list[Path]:
        """The paths chosen (none when cancelled); the folder holding them is the next
        start (a course folder's parent, where the other courses are)."""
        try:
            if not dialog.exec() or not dialog.selectedFiles():
                return []
            chosen = [Path(name) for name in dialog.selectedFiles()]
            self.last_folder = str(chosen[0].parent)
            return chosen
        finally:
            dialog.deleteLater()
