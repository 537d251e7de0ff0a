"""The player alone on the screen, and back where it was: its own full-screen window, then
the same place in the stack or layout it came from, with the focus given back."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QStackedWidget, QWidget


class FullScreen(QObject):
    """Full screen for ``widget``; Esc leaves it (only then: Esc elsewhere is not the player's).
    ``changed`` says when it went on or off."""

    changed = Signal(bool)

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._widget = widget
        self._home: QWidget | None = None  # the parent to go back to after full screen
        self._focus_before: QWidget | None = None  # and the focus to give back
        self._escape = QShortcut(QKeySequence("Esc"), widget)
        self._escape.setContext(Qt.ShortcutContext.WindowShortcut)
        self._escape.setEnabled(False)
        self._escape.activated.connect(lambda: self.set(False))

    def is_on(self) -> bool:
        return self._widget.isWindow() and self._widget.isFullScreen()

    def toggle(self) -> None:
        self.set(not self.is_on())

    def set(self, on: bool) -> None:
        if on == self.is_on():
            return
        widget = self._widget
        if on:
            self._home = widget.parentWidget()
            screen = widget.screen()
            if self._home is not None:
                widget.setParent(None, Qt.WindowType.Window)
            # Without a window manager (a bare X server) full screen alone keeps the size.
            widget.setGeometry(screen.geometry())
            self._focus_before = QApplication.focusWidget()
            widget.showFullScreen()
            widget.setFocus()  # not the transcript's find box: Space would type there
        else:
            widget.showNormal()
            self._go_home()
        self._escape.setEnabled(on)
        self.changed.emit(on)
        widget.activateWindow()

    def _go_home(self) -> None:
        widget = self._widget
        home, self._home = self._home, None
        if isinstance(home, QStackedWidget):
            home.addWidget(widget)
            home.setCurrentWidget(widget)
        elif home is not None:
            widget.setParent(home)
            layout = home.layout()
            if layout is not None:
                layout.addWidget(widget)
        widget.show()
        if home is not None:
            home.window().activateWindow()
        self.give_focus_back()

    def give_focus_back(self) -> bool:
        """Focus where it was before full screen (the window takes it back when it is
        activated again, so this runs then too); False when there is nowhere to go."""
        before = self._focus_before
        if before is None or not before.isVisible() or before.window() is not self._widget.window():
            return False
        before.setFocus(Qt.FocusReason.OtherFocusReason)
        return True
