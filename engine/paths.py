"""The default library and models folders.

Only entry points read the environment: they pass it in (``default_library(os.environ)``),
so the engine itself never looks at ``COURSEDEX_LIBRARY`` or ``COURSEDEX_MODELS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

LIBRARY_ENV = "COURSEDEX_LIBRARY"
MODELS_ENV = "COURSEDEX_MODELS"


def _user_data_dir() -> Path:
    import platformdirs  # lazy: the export tool imports engine.models without platformdirs

    return Path(platformdirs.user_data_dir("coursedex", appauthor=False))


def default_models_dir() -> Path:
    """``<user data dir>/coursedex/models`` (the CLI and GUI pass this to the registry)."""
    return _user_data_dir() / "models"


def default_library(environ: Mapping[str, str]) -> Path:
    """``$COURSEDEX_LIBRARY`` when set, else ``<user data dir>/coursedex/library``."""
    value = environ.get(LIBRARY_ENV)
    return Path(value).expanduser() if value else _user_data_dir() / "library"


def default_models(environ: Mapping[str, str]) -> Path:
    """``$COURSEDEX_MODELS`` when set, else :func:`default_models_dir`."""
    value = environ.get(MODELS_ENV)
    return Path(value).expanduser() if value else default_models_dir()
