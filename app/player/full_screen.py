"""The player alone on the screen, and back where it was, with the focus given back.

Full screen is a window of its own that holds the player while it is on, then is hidden and
deleted. The player never becomes a top-level window itself: libVLC's surface makes it, and
every widget above it, a native X window, and a native top-level put back into the main
window is an X window taken from the window manager by a reparent while the manager still
handles it (it ignored, or won, the race one time in a few: the player stayed a borderless
window at 0,0 and the main window's picture went black, issue 24). The window that goes
full screen is only shown and hidden, as a window manager expects; the player moves between
two windows of ours, which the manager never sees.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QStackedWidget, QVBoxLayout, QWidget


class _FullScreenWindow(QWidget):
    """The window the player fills while full screen; closing it (Alt+F4) leaves full screen."""

    closing = Signal()

    def __init__(self, owner: QWidget | None) -> None:
        super().__init__(owner, Qt.WindowType.Window)
        self.setWindowTitle(owner.windowTitle() if owner is not None else "Coursedex")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closing.emit()  # the player goes home before the window goes
        super().closeEvent(event)


class FullScreen(QObject):
    """Full screen for ``widget``; Esc leaves it (only then: Esc elsewhere is not the player's).
    ``changed`` says when it went on or off."""

    changed = Signal(bool)

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._widget = widget
        self._window: QWidget | None = None  # while on: the widget itself when it is a window
        self._home: QWidget | None = None  # the parent to go back to after full screen
        self._focus_before: QWidget | None = None  # and the focus to give back
        self._escape = QShortcut(QKeySequence("Esc"), widget)
        self._escape.setContext(Qt.ShortcutContext.WindowShortcut)
        self._escape.setEnabled(False)
        self._escape.activated.connect(lambda: self.set(False))

    def is_on(self) -> bool:
        return self._window is not None

    def toggle(self) -> None:
        self.set(not self.is_on())

    def set(self, on: bool) -> None:
        if on == self.is_on():
            return
        if on:
            self._go_full_screen()
        else:
            self._go_home()
        self._escape.setEnabled(on)
        self.changed.emit(on)

    def _go_full_screen(self) -> None:
        widget = self._widget
        self._home = widget.parentWidget()
        self._focus_before = QApplication.focusWidget()
        screen = widget.screen()
        if self._home is None:  # a window of its own (a test, a tool): it goes full screen
            window: QWidget = widget
        else:
            window = _FullScreenWindow(widget.window())
            window.closing.connect(lambda: self.set(False))
            layout = window.layout()
            if layout is not None:
                layout.addWidget(widget)
            widget.show()
        self._window = window
        # Without a window manager (a bare X server) full screen alone keeps the size.
        window.setGeometry(screen.geometry())
        window.showFullScreen()
        window.activateWindow()
        widget.setFocus()  # not the transcript's find box: Space would type there

    def _go_home(self) -> None:
        widget, window = self._widget, self._window
        home, self._home, self._window = self._home, None, None
        if isinstance(home, QStackedWidget):
            home.addWidget(widget)
            home.setCurrentWidget(widget)
        elif home is not None:
            widget.setParent(home)
            layout = home.layout()
            if layout is not None:
                layout.addWidget(widget)
        widget.show()
        if isinstance(window, _FullScreenWindow):
            window.closing.disconnect()
            window.hide()
            window.deleteLater()
        elif window is not None:
            window.showNormal()
        widget.window().activateWindow()
        self.give_focus_back()

    def give_focus_back(self) -> bool:
        """Focus where it was before full screen (the window takes it back when it is
        activated again, so this runs then too); False when there is nowhere to go."""
        before = self._focus_before
        if before is None or not before.isVisible() or before.window() is not self._widget.window():
            return False
        before.setFocus(Qt.FocusReason.OtherFocusReason)
        return True
