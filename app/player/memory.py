"""What the player remembers between starts: the playback speed, and where each lecture was
left. A QSettings INI file beside the user's settings.json (settings are typed JSON the user
edits in a dialog; this is state the player keeps by itself, written often)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QSettings

STATE_FILE = "playback.ini"
SPEEDS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
NEAR_END_MS = 5_000  # a lecture left this close to its end starts over next time


def _key(path: str) -> str:
    # A path holds slashes, which QSettings reads as groups: its hash is the key.
    return "positions/" + hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()


class PlaybackMemory:
    """Speed and per-lecture positions in ``settings``; bad values read as nothing."""

    def __init__(self, settings: QSettings) -> None:
        self._settings = settings

    @classmethod
    def beside(cls, settings_file: Path) -> PlaybackMemory:
        """The memory kept in ``playback.ini`` in the folder of ``settings_file``."""
        path = settings_file.with_name(STATE_FILE)
        return cls(QSettings(str(path), QSettings.Format.IniFormat))

    def speed(self) -> float:
        try:
            value = float(self._settings.value("player/speed", 1.0))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return 1.0
        return value if value in SPEEDS else 1.0

    def set_speed(self, rate: float) -> None:
        self._settings.setValue("player/speed", rate)

    def position(self, path: str) -> int | None:
        """Where ``path`` was left, in ms; None when it was not, or was played to its end."""
        value = self._settings.value(_key(path))
        try:
            ms = int(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None
        return ms if ms > 0 else None

    def set_position(self, path: str, ms: int | None) -> None:
        if ms is None or ms <= 0:
            self._settings.remove(_key(path))
        else:
            self._settings.setValue(_key(path), int(ms))

    def leave(self, path: str, position_ms: int, duration_ms: int) -> None:
        """``path`` was left at ``position_ms``: kept, unless that is near its end (then it
        starts over next time)."""
        near_end = duration_ms > 0 and position_ms >= duration_ms - NEAR_END_MS
        self.set_position(path, None if near_end else position_ms)

    def sync(self) -> None:
        self._settings.sync()
