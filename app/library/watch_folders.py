"""Watch folders in the window: while it is open, the courses that follow their folder import
what is added or changed there in the background (engine/integrations/watch.py scans on its
own thread): what its import changed is relayed as the library says it, and the files
found gone from their folder have their rows read again: the panel and the results catch
up. File > Follow course folders… picks the courses. Both get the library and what they
tell, not the window."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from engine.api import Changes, FolderWatcher, Library, Outcome, WatchReport, plural

log = logging.getLogger(__name__)
MENU_TEXT = "Follow course &folders…"
_COURSE = Qt.ItemDataRole.UserRole


class WatchBridge(QObject):
    """Owns the window's watcher and carries its reports to the UI thread: a line for the
    user (``say``, unless an import shows its own), what its import changed (``changed``)
    and the files found gone (``recheck``: their rows show them missing)."""

    reported = Signal(object)  # WatchReport, emitted on the watcher's thread

    def __init__(
        self,
        library: Library,
        *,
        changed: Callable[[Changes], None],
        recheck: Callable[[Sequence[str]], None],
        say: Callable[[str], None],
        importing: Callable[[], bool],
        window: QWidget,
        interval_s: float | None = None,
    ) -> None:
        """The watching ends when ``window`` closes (the library closes right after)."""
        super().__init__(window)
        self.window_ = window
        self.changed = changed
        self.recheck = recheck
        self.say = say
        self.importing = importing
        options = {} if interval_s is None else {"interval_s": interval_s}
        self.watcher = FolderWatcher(library, on_report=self.reported.emit, **options)
        self.reported.connect(self._show)  # queued: the signal crosses threads
        window.installEventFilter(self)

    def start(self) -> None:
        self.watcher.start()

    def stop(self) -> None:
        self.watcher.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Closing the window ends the watching: the library closes right after.
        if watched is self.window_ and event.type() == QEvent.Type.Close:
            self.stop()
        return super().eventFilter(watched, event)

    def _show(self, report: WatchReport) -> None:
        if report.imported is not None:
            self.changed(report.imported.changes)
        if report.missing:
            self.recheck(report.missing)
        words: list[str] = []
        if report.imported is not None:
            new = report.imported.count(Outcome.INDEXED)
            failed = report.imported.count(Outcome.ERROR)
            if new:
                words.append(f"{plural(new, 'new or changed file')} imported")
            if failed:
                words.append(f"{failed} could not be read")
        if report.missing:
            n = len(report.missing)
            words.append(f"{n} file{'s are' if n > 1 else ' is'} missing from the folder")
        if words and not self.importing():  # the import bar's line, unless it shows an import
            self.say("Followed folders: " + "; ".join(words) + ".")


class FollowDialog(QDialog):
    """The courses imported as folders, each checked when it follows its folder."""

    def __init__(self, library: Library, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Follow course folders")
        self.library = library
        self.courses = QListWidget()
        describe(
            self.courses,
            "Courses imported as folders",
            "Check a course to import what appears in its folder; Space checks or unchecks.",
        )
        for course in self.library.courses():
            if not course.root:
                continue
            item = QListWidgetItem(f"{course.name}  —  {course.root}")
            item.setData(_COURSE, course.name)
            on = self.library.follows(course.name)
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self.courses.addItem(item)
        note = QLabel(
            "While Coursedex is open, files added to or changed in a followed folder are "
            "imported by themselves; files removed from it are shown missing, not removed."
            if self.courses.count()
            else "No course was imported as a folder: add a folder first (File > Add folder)."
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.courses)
        layout.addWidget(buttons)
        self.courses.setVisible(self.courses.count() > 0)
        self.setMinimumWidth(480)

    def accept(self) -> None:
        for i in range(self.courses.count()):
            item = self.courses.item(i)
            on = item.checkState() == Qt.CheckState.Checked
            self.library.follow(str(item.data(_COURSE)), on)
        super().accept()
