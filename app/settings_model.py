"""The user's settings: a typed, versioned JSON file, its mapping to the engine's config, and
the one holder of them while the app runs (:class:`AppSettings`).

Each key is checked on load; a bad value falls back to its default (logged) and the rest
are kept. Older files are migrated step by step; a file from a newer Coursedex is read as
far as it goes and never overwritten without the user saving. The dialog that edits them and
the theme are app/dialogs/settings.py.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from engine.api import (
    AUTO_SPEECH_MODEL,
    ENGLISH_SPEECH_MODEL,
    EngineConfig,
    MediaConfig,
    default_library,
    default_models,
)

log = logging.getLogger(__name__)

SETTINGS_VERSION = 2
SETTINGS_ENV = "COURSEDEX_SETTINGS"
THEMES = ("system", "light", "dark")
PLAYERS = ("auto", "vlc", "qt")


@dataclass(frozen=True, slots=True)
class Settings:
    version: int = SETTINGS_VERSION
    speech_model: str = MediaConfig().speech_model
    threads: int = EngineConfig().threads
    screen_text: bool = True
    library_dir: str = ""  # "" means the default folder (see ``library_path``)
    models_dir: str = ""
    theme: str = "system"  # "system" | "light" | "dark"
    player: str = "auto"  # "auto" | "vlc" | "qt"

    @property
    def library_path(self) -> Path:
        return (
            Path(self.library_dir).expanduser() if self.library_dir else default_library(os.environ)
        )

    @property
    def models_path(self) -> Path:
        return Path(self.models_dir).expanduser() if self.models_dir else default_models(os.environ)


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "speech_model": lambda v: isinstance(v, str) and bool(v.strip()),
    "threads": _positive,
    "screen_text": lambda v: isinstance(v, bool),
    "library_dir": lambda v: isinstance(v, str),
    "models_dir": lambda v: isinstance(v, str),
    "theme": lambda v: v in THEMES,
    "player": lambda v: v in PLAYERS,
}


def _v0_to_v1(raw: dict[str, Any]) -> dict[str, Any]:
    """Version 0 (no "version" key) had a boolean "dark_mode" where 1 has "theme"."""
    out = dict(raw)
    dark = out.pop("dark_mode", None)
    if isinstance(dark, bool):
        out["theme"] = "dark" if dark else "light"
    out["version"] = 1
    return out


def _v1_to_v2(raw: dict[str, Any]) -> dict[str, Any]:
    """Version 2 has the automatic speech model (tiny.en for English lectures, Whisper base
    for the others). Version 1 wrote its default, tiny.en, into every file, chosen or not:
    it becomes automatic, which hears English lectures with tiny.en all the same and the
    others with a model that knows their language instead of English nonsense. Any other
    model someone chose stays."""
    out = dict(raw)
    if out.get("speech_model") == ENGLISH_SPEECH_MODEL:
        out["speech_model"] = AUTO_SPEECH_MODEL
    out["version"] = 2
    return out


# MIGRATIONS[n] turns a version-n dict into version n + 1.
MIGRATIONS: list[Callable[[dict[str, Any]], dict[str, Any]]] = [_v0_to_v1, _v1_to_v2]


def default_settings_path() -> Path:
    """``$COURSEDEX_SETTINGS``, else ``settings.json`` in the user's config folder."""
    value = os.environ.get(SETTINGS_ENV)
    if value:
        return Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("coursedex", appauthor=False)) / "settings.json"


def load_settings(path: Path) -> Settings:
    """The settings in ``path``; defaults where the file, or a key in it, is missing or bad.

    A file that is not JSON is renamed to ``<name>.bad`` (kept for the user) and defaults
    are used.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as e:
        log.warning("cannot read settings %s (%s); using defaults", path, e)
        return Settings()
    try:
        raw = json.loads(text)
        if not isinstance(raw, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        bad = path.with_name(path.name + ".bad")
        log.warning("settings %s are damaged (%s); kept as %s, using defaults", path, e, bad)
        os.replace(path, bad)
        return Settings()
    version = raw.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        log.warning("settings %s: version %r is not a number; reading as version 0", path, version)
        version = 0
    if version > SETTINGS_VERSION:
        log.warning(
            "settings %s were written by a newer Coursedex (version %d); reading what this "
            "version knows",
            path,
            version,
        )
    for step in range(version, SETTINGS_VERSION):
        raw = MIGRATIONS[step](raw)
    values: dict[str, Any] = {}
    for name, check in _CHECKS.items():
        if name not in raw:
            continue
        if check(raw[name]):
            values[name] = raw[name]
        else:
            log.warning("settings %s: %s = %r is not valid; default used", path, name, raw[name])
    settings = Settings(version=max(version, SETTINGS_VERSION), **values)
    if version < SETTINGS_VERSION:
        # Migrate once: the file is rewritten in the current format.
        try:
            save_settings(path, settings)
            log.info("settings %s migrated from version %d to %d", path, version, SETTINGS_VERSION)
        except OSError as e:
            log.warning("cannot rewrite the migrated settings %s (%s)", path, e)
    return settings


def save_settings(path: Path, settings: Settings) -> None:
    """Write atomically: a temporary file beside it, flushed to disk, renamed over it.

    A file written by a newer Coursedex is first copied to ``<name>.v<version>``, so the
    keys this version does not know are not lost.

    Raises:
        OSError: the folder or the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    newer = _version_on_disk(path)
    if newer is not None and newer > SETTINGS_VERSION:
        keep = path.with_name(f"{path.name}.v{newer}")
        shutil.copyfile(path, keep)
        log.warning("settings %s were written by a newer Coursedex; kept as %s", path, keep)
    data = asdict(settings)
    data["version"] = SETTINGS_VERSION
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _version_on_disk(path: Path) -> int | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = raw.get("version") if isinstance(raw, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def engine_config(settings: Settings, base: EngineConfig | None = None) -> EngineConfig:
    """The engine settings the user chose, over ``base`` (defaults if None)."""
    base = base or EngineConfig()
    media = replace(
        base.media, speech_model=settings.speech_model, screen_text=settings.screen_text
    )
    return replace(base, threads=settings.threads, media=media)


class AppSettings(QObject):
    """The user's settings while the app runs: the one copy the start, the window and its
    dialogs read, and the one place they change (:meth:`change`: saved, then ``changed``).
    The engine's part is not held here: the library owns its config, and whoever shows the
    library makes it follow ``changed`` (:func:`engine_config`)."""

    changed = Signal(object, object)  # the Settings before the change, and now

    def __init__(
        self, settings: Settings, path: Path | None = None, parent: QObject | None = None
    ) -> None:
        """``path``: the file they are kept in (None: not kept, as in tests and tools)."""
        super().__init__(parent)
        self._current = settings
        self.path = path

    @classmethod
    def load(cls, path: Path) -> AppSettings:
        """The settings in ``path`` (see :func:`load_settings`)."""
        return cls(load_settings(path), path)

    @property
    def current(self) -> Settings:
        return self._current

    def change(self, new: Settings) -> None:
        """Save ``new`` and use it from now on.

        Raises:
            OSError: the file cannot be written (the settings stay as they were).
        """
        if self.path is not None:
            save_settings(self.path, new)
        before, self._current = self._current, new
        self.changed.emit(before, new)
