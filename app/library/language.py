"""Language…, from a file's or a course's menu in the library panel: the user says which
language it is in (or asks to detect it again) when detection got it wrong, the library
records it and queues the files to read or hear again, and those import as any import does,
on the bar at the bottom (progress, time left, Cancel; ImportBar.import_again).

The dialog is a searchable list of the languages speech can be heard in, "Detect
automatically" first and the current language picked; a language may also be typed as a code
or a native name ("es", "español"). Under it a line says what will happen and about how long a
lecture takes to hear again, before anything starts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.languages import HEARD, about_minutes, hearing_minutes, language_choices
from app.library.panel import LibraryPanel
from app.tasks import Failure, Tasks
from engine.api import (
    Changes,
    CoursedexError,
    LanguageSet,
    Library,
    Source,
    language_name,
    parse_language,
    plural,
)

DETECT = "Detect automatically"
_AUTO = ""  # the list's data for DETECT (None reads back as no data at all)


def current_language(sources: Sequence[Source]) -> str | None:
    """The language the files share, or None: not known, or not one language."""
    found = {s.language for s in sources}
    return found.pop() if len(found) == 1 else None


def what_happens(sources: Sequence[Source], language: str | None, is_course: bool) -> str:
    """What setting ``language`` (None: detect again) does to these files, in a line or two:
    "Spanish: the lecture is transcribed again in Spanish (about 4 min)."."""
    name = language_name(language) if language else ""
    one = f"“{Path(sources[0].path).name}”" if sources and not is_course else ""
    redone = [s for s in sources if language is None or s.language != language]
    if sources and not redone:  # the detection confirmed: kept, nothing to do again
        many = f"all {len(sources)} files are" if len(sources) > 1 else "the file is"
        which = f"{one} is" if one else many
        return f"{name}: {which} in {name} already; nothing is heard or read again."
    sources = redone
    lectures = [s for s in sources if s.kind in HEARD]
    texts = len(sources) - len(lectures)
    time = about_minutes(hearing_minutes((s.duration_ms for s in lectures), language))
    parts: list[str] = []
    if lectures:
        which = one or ("the lecture" if len(lectures) == 1 else f"the {len(lectures)} lectures")
        many = len(lectures) > 1
        if name:
            heard = f"transcribed again in {name}"
        else:
            heard = f"heard again and {'their languages' if many else 'its language'} detected"
        parts.append(f"{which} {'are' if many else 'is'} {heard} ({time})")
    if texts:
        which = one or plural(texts, "file")
        if lectures and is_course:
            which = "the other file" if texts == 1 else f"the other {texts} files"
        are, their = ("are", "their") if texts > 1 else ("is", "its")
        read = f"read again as {name} text" if name else f"read again and {their} language found"
        parts.append(f"{which} {are} {read}")
    if not parts:
        return "The course has no files yet." if is_course else ""
    return f"{name or DETECT}: {'; '.join(parts)}. The import shows on the bar at the bottom."


class LanguageDialog(QDialog):
    """Which language a file or a course's files are in. ``language()`` once accepted."""

    def __init__(
        self, target: str, is_course: bool, sources: Sequence[Source], parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Language")
        self.sources, self.is_course = list(sources), is_course
        what = f"are the files of “{target}”" if is_course else f"is “{Path(target).name}”"
        self.question = QLabel(f"Which language {what} in?")
        self.question.setWordWrap(True)
        self.box = QComboBox(editable=True)
        self.box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.box.addItem(DETECT, _AUTO)
        for name, code in language_choices():
            self.box.addItem(name, code)
        completer = QCompleter(self.box.model(), self.box)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)  # "ital" finds Italian
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.box.setCompleter(completer)
        describe(
            self.box,
            "Language",
            "The language its speech and text are in. Type to find one, or pick Detect "
            "automatically.",
        )
        self.question.setBuddy(self.box)  # on Linux and macOS, a combo box's name
        current = current_language(self.sources)
        self.box.setCurrentIndex(max(0, self.box.findData(current or _AUTO)))
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Set language")
        ok.setDefault(True)  # Enter sets it, Esc cancels
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.box.currentIndexChanged.connect(self._explain)
        self.box.editTextChanged.connect(self._explain)
        layout = QVBoxLayout(self)
        for widget in (self.question, self.box, self.note, self.buttons):
            layout.addWidget(widget)
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 60)
        self._explain()

    def chosen(self) -> tuple[bool, str | None]:
        """(whether the box names a language or Detect, its code or None for Detect)."""
        text = self.box.currentText().strip()
        found = self.box.findText(text, Qt.MatchFlag.MatchFixedString)  # any case
        if found >= 0:
            code = str(self.box.itemData(found))
            return True, code or None
        try:
            return True, parse_language(text)  # a code or a native name: "es", "español"
        except CoursedexError:
            pass
        matches = self._matches(text) if text else []
        if len(matches) == 1:  # the start of a name, or a part of it: "germ", "ital"
            return True, str(self.box.itemData(matches[0])) or None
        return False, None

    def _matches(self, text: str) -> list[int]:
        """The rows whose name holds ``text``, in any case (as the completer finds them)."""
        wanted = text.casefold()
        return [i for i in range(self.box.count()) if wanted in self.box.itemText(i).casefold()]

    def language(self) -> str | None:
        """The code picked; None: detect again."""
        return self.chosen()[1]

    def _explain(self) -> None:
        named, code = self.chosen()
        text = self.box.currentText().strip()
        if named:
            self.note.setText(what_happens(self.sources, code, self.is_course))
        elif not text:
            self.note.setText("Type a language, or pick one from the list.")
        elif len(found := self._matches(text)) > 1:
            names = ", ".join(self.box.itemText(i) for i in found[:4])
            more = ", …" if len(found) > 4 else ""
            self.note.setText(f"“{text}” could be {names}{more}: pick one from the list.")
        else:
            self.note.setText(f"No language is called “{text}”: pick one from the list.")
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(named and bool(self.sources))

    def accept(self) -> None:
        if self.chosen()[0] and self.sources:
            super().accept()


class LanguageActions(QObject):
    """Asks the language of what the panel's menu names, sets it and imports what must be
    read or heard again."""

    def __init__(
        self,
        panel: LibraryPanel,
        library: Library,
        tasks: Tasks,
        *,
        import_again: Callable[[Sequence[Path]], None],
        say: Callable[[str], None],
        warn: Callable[[str, str], None],
        changed: Callable[[Changes], None],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.panel, self.library, self.tasks = panel, library, tasks
        self.import_again, self._say, self._warn, self.changed = import_again, say, warn, changed
        self.parent_ = parent
        self.dialog: LanguageDialog | None = None  # the one open (tests answer it)
        panel.language_requested.connect(self.ask)

    def ask(self, target: str, is_course: bool) -> None:
        """Read the files' records (on a worker), then ask which language."""
        library = self.library

        def read() -> list[Source]:
            if is_course:
                return library.sources(target)
            return [s] if (s := library.source(target)) is not None else []

        self.tasks.run(
            read,
            lambda sources: self._show(target, is_course, sources),
            lambda failed: self._warn("Cannot set the language", failed.message),
        )

    def _show(self, target: str, is_course: bool, sources: list[Source]) -> None:
        if self.dialog is not None:
            self.dialog.reject()
        self.dialog = dialog = LanguageDialog(target, is_course, sources, self.parent_)
        dialog.accepted.connect(lambda: self.set_language(target, is_course, dialog.language()))
        dialog.finished.connect(lambda _result: self._closed(dialog))
        dialog.open()  # modal to the window only: a lecture keeps playing

    def _closed(self, dialog: LanguageDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    def set_language(self, target: str, is_course: bool, language: str | None) -> None:
        """Record ``language`` (None: detect again) for a file or a course (on a worker),
        then import again what the library queued for it."""
        library = self.library
        self.tasks.run(
            lambda: library.set_language(target, language),
            lambda done: self._reimport(target, is_course, language, done),
            lambda failed: self._failed(failed),
        )

    def _reimport(
        self, target: str, is_course: bool, language: str | None, done: LanguageSet
    ) -> None:
        what = f"“{target}”" if is_course else f"“{Path(target).name}”"
        # Said during the import and after it (the bar keeps it): true in both.
        said = f"{what}: its language found again"
        if language:
            said = f"{what} set to {language_name(language)}"
        self.changed(done.changes)  # the rows show the language set
        paths = done.again
        if not paths:
            self._say(f"{said}; nothing needed importing again.")
            return
        self.import_again(paths)
        self._say(f"{said}, {plural(len(paths), 'file')} imported again")

    def _failed(self, failed: Failure) -> None:
        self._warn("Cannot set the language", failed.message)
