"""The Models page of Settings: what is installed, how big, install with progress, verify,
remove. Installs and checks run on a worker thread; results come back as one line."""

from __future__ import annotations

import contextlib
import threading

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.dialogs.confirm import confirmed
from app.tasks import Failure, Tasks
from engine.api import Cancelled, CoursedexError, ModelError, ModelInfo, ModelRegistry, human_size

_COLUMNS = ("Model", "Role", "Installed", "Size", "About")


class ModelsPage(QWidget):
    installed = Signal(str)  # model name
    removed = Signal(str)  # model name
    install_failed = Signal(str, str)  # model name, reason
    verify_done = Signal(str, list)  # model name, problems (empty: sound)

    _progress = Signal(int, object)  # bytes done, total or None (from the worker)

    def __init__(
        self, registry: ModelRegistry, parent: QWidget | None = None, *, mirror: str | None = None
    ) -> None:
        super().__init__(parent)
        self.registry = registry
        self.mirror = mirror
        self.tasks = Tasks(self)
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(_COLUMNS))
        describe(
            self.table,
            "Models",
            "The models Coursedex can use, whether each is installed, and its size. "
            "Pick one to install, verify or remove it.",
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        for column in range(len(_COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.install_button = QPushButton("Install")
        self.verify_button = QPushButton("Verify")
        self.remove_button = QPushButton("Remove")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.hide()
        self.progress = QProgressBar()
        self.progress.setFormat("%p%")
        self.progress.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.install_button.clicked.connect(self.install_selected)
        self.verify_button.clicked.connect(self.verify_selected)
        self.remove_button.clicked.connect(lambda: self.remove_selected())
        self.cancel_button.clicked.connect(self.cancel)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self._progress.connect(self._show_progress)
        self._cancel: threading.Event | None = None
        self._busy = False
        buttons = QHBoxLayout()
        for button in (self.install_button, self.verify_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.progress, 2)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.refresh()

    def refresh(self) -> None:
        selected = self.selected()
        self._infos: list[ModelInfo] = self.registry.list()
        self.table.setRowCount(len(self._infos))
        for row, info in enumerate(self._infos):
            size = "" if info.size_bytes is None else human_size(info.size_bytes)
            cells = (info.name, info.role.value, "yes" if info.installed else "no", size,
                     info.description)  # fmt: skip
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column == 3:
                    align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    item.setTextAlignment(align)
                self.table.setItem(row, column, item)
            if info.name == selected:
                self.table.selectRow(row)
        self._update_buttons()

    def row_of(self, name: str) -> int:
        return next((i for i, info in enumerate(self._infos) if info.name == name), -1)

    def select(self, name: str) -> None:
        self.table.selectRow(self.row_of(name))

    def selected(self) -> str | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or not hasattr(self, "_infos"):
            return None
        return self._infos[rows[0].row()].name

    def _selected_info(self) -> ModelInfo | None:
        name = self.selected()
        return next((i for i in self._infos if i.name == name), None)

    def _update_buttons(self) -> None:
        info = self._selected_info()
        idle = not self._busy
        self.install_button.setEnabled(idle and info is not None and not info.installed)
        self.verify_button.setEnabled(idle and info is not None and info.installed)
        self.remove_button.setEnabled(idle and info is not None and info.path is not None)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self._update_buttons()

    # --- actions ----------------------------------------------------------------------------

    def install_selected(self) -> None:
        name = self.selected()
        if name is None or self._busy:
            return
        self._cancel = cancel = threading.Event()
        self.progress.setRange(0, 0)  # until the size is known
        self._set_busy(True)
        self.status.setText(f"Installing {name}…")
        registry, mirror, report = self.registry, self.mirror, self._progress.emit

        def job() -> None:
            try:
                registry.install(name, progress=report, cancel=cancel, mirror=mirror)
            except ModelError:  # a cancelled one keeps what it downloaded for the next Install
                _discard_partial(registry, name)
                raise

        self.tasks.run(
            job, lambda _: self._install_done(name, None), lambda f: self._install_done(name, f)
        )

    def _show_progress(self, done: int, total: object) -> None:
        if isinstance(total, int) and total > 0:
            self.progress.setRange(0, 1000)
            self.progress.setValue(round(1000 * done / total))
            self.progress.setFormat(f"%p%  {human_size(done)} of {human_size(total)}")
        else:
            self.progress.setFormat(human_size(done))

    def _install_done(self, name: str, failed: Failure | None) -> None:
        self._cancel = None
        self._set_busy(False)
        if failed is not None:
            cancelled = isinstance(failed.error, Cancelled)
            why = "cancelled; Install resumes where it stopped" if cancelled else failed.message
            self.status.setText(f"{name} was not installed: {why}")
            self.install_failed.emit(name, why)
        else:
            self.status.setText(f"{name} is installed")
            self.installed.emit(name)
        self.refresh()

    def cancel(self) -> None:
        """Stop the install under way; what it downloaded is kept for the next Install."""
        if self._busy and self._cancel is not None:
            self._cancel.set()
            self.status.setText("Cancelling…")

    def verify_selected(self) -> None:
        name = self.selected()
        if name is None or self._busy:
            return
        self.progress.setRange(0, 0)
        self._set_busy(True)
        self.cancel_button.hide()
        self.status.setText(f"Checking every file of {name}…")
        registry = self.registry
        self.tasks.run(
            lambda: list(registry.verify(name)),
            lambda problems: self._verified(name, problems),
            lambda failed: self._verified(name, [failed.message]),
        )

    def _verified(self, name: str, problems: list[str]) -> None:
        self._set_busy(False)
        if problems:
            self.status.setText(f"{name} is damaged: " + "; ".join(problems))
        else:
            count = len(self.registry.manifest(name).files)
            files = "its file" if count == 1 else f"all {count} files"
            self.status.setText(f"{name}: {files} verified")
        self.verify_done.emit(name, problems)

    def remove_selected(self, *, confirm: bool = True) -> None:
        info = self._selected_info()
        if info is None or info.path is None or self._busy:
            return
        if confirm:
            asked = f"Delete {info.name} ({info.path}) from this computer?"
            if not confirmed(self, "Remove model", asked):
                return
        try:
            self.registry.remove(info.name)
            self.status.setText(f"{info.name} removed")
            self.removed.emit(info.name)
        except CoursedexError as e:
            self.status.setText(f"{info.name} could not be removed: {e}")
        self.refresh()

    @property
    def busy(self) -> bool:
        """True while an install or a check runs."""
        return self._busy


def _discard_partial(registry: ModelRegistry, name: str) -> None:
    """After a failed install, delete what it left (a cancelled one keeps it for resume):
    the failure is a 404, a bad checksum or a download that broke after its retries."""
    if any(info.name == name and info.installed for info in registry.list()):
        return
    with contextlib.suppress(ModelError):  # raised when nothing was left
        registry.remove(name)
