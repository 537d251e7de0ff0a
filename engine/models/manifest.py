"""The manifest of a model directory: what the files are, how to run them, their checksums.

A model directory holds the model file(s), ``tokenizer.json`` and ``manifest.json``. It is
complete on its own: nothing is ever fetched to fill a gap, a missing or changed file is an
error. This module imports only the standard library so that the export tool (which runs in
its own environment) writes manifests with the same code the engine reads them with.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine.errors import Cancelled, ModelError

logger = logging.getLogger(__name__)

MANIFEST_NAME = "manifest.json"
_HASH_CHUNK = 1024 * 1024


class ModelRole(StrEnum):
    EMBEDDER = "embedder"
    RERANKER = "reranker"
    SPEECH = "speech"


class ModelFormat(StrEnum):
    ONNX = "onnx"
    CTRANSLATE2 = "ctranslate2"


class Pooling(StrEnum):
    MEAN = "mean"
    CLS = "cls"


@dataclass(frozen=True, slots=True)
class Calibration:
    """Where an embedder's cosine similarities fall, as the search's thresholds and weights.

    all-MiniLM-L6-v2 spreads them over about 0.0-0.8, multilingual-e5 packs them into
    0.7-0.9: a threshold or a weight on similarity means something else for each. The
    defaults are all-MiniLM-L6-v2's (tuned on TutorialVQA train), which a manifest written
    before calibrations existed gets. ``SearchConfig`` overrides any of them.
    """

    gate: float = 0.35  # early exit: the best similarity below this (and little word overlap)
    sentence_weight: float = 3.0  # sentence rescoring: the closest sentence's similarity
    window_weight: float = 1.5  # score fusion: the segment's own vector's similarity
    seek_words: float = 0.2  # a window's seek: weight of query words beside similarity
    # > 0 (multilingual-e5, whose cosines shift with the languages of the question and the
    # text): a question also passes the gate when its nearest segment stands out by this
    # much from the library's run of segments (the median of the query's 10th-100th
    # nearest, engine/search/scale.py).
    standout: float = 0.0

    @classmethod
    def from_dict(cls, raw: Any) -> Calibration:
        """From a manifest's ``calibration`` object; a missing key keeps its default.

        Raises:
            TypeError, ValueError: not an object, or a value that is not a number.
        """
        if not isinstance(raw, dict):
            raise TypeError(f"calibration must be an object, got {type(raw).__name__}")
        return cls(**{f.name: float(raw[f.name]) for f in fields(cls) if f.name in raw})

    def to_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_DEFAULT_MODEL_FILE = {ModelFormat.ONNX: "model.onnx", ModelFormat.CTRANSLATE2: "model.bin"}


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One file of a model directory, with the checksum it must have."""

    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class ModelManifest:
    """Parsed ``manifest.json``. ``files`` maps a file name (relative) to its checksum.

    ``model_file`` names the file whose hash identifies the model (``model.onnx`` for ONNX,
    ``model.bin`` for CTranslate2). ``dimension`` is ``None`` for models without vectors.
    """

    name: str
    role: ModelRole
    files: Mapping[str, FileEntry] = field(hash=False)
    format: ModelFormat = ModelFormat.ONNX
    dimension: int | None = None
    pooling: Pooling = Pooling.MEAN
    normalize: bool = True
    max_length: int = 256
    query_prefix: str = ""
    document_prefix: str = ""
    source: str = ""
    model_file: str = ""
    calibration: Calibration = field(default_factory=Calibration)

    def __post_init__(self) -> None:
        if not self.model_file:
            object.__setattr__(self, "model_file", _DEFAULT_MODEL_FILE[self.format])
        if self.model_file not in self.files:
            raise ModelError(
                f"manifest of {self.name!r} does not list its model file {self.model_file!r}"
            )

    @property
    def model_id(self) -> str:
        """``name@<first 12 hex of the model file's sha256>``: what a library records."""
        return f"{self.name}@{self.files[self.model_file].sha256[:12]}"

    @classmethod
    def load(cls, directory: Path) -> ModelManifest:
        """Read ``directory/manifest.json``.

        Raises:
            ModelError: the manifest is missing, not JSON, or lacks required fields.
        """
        path = directory / MANIFEST_NAME
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as e:
            raise ModelError(f"{directory} is not a model directory: no {MANIFEST_NAME}") from e
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ModelError(f"cannot read {path}: {e}") from e
        return cls.from_dict(raw, where=str(path))

    @classmethod
    def from_dict(cls, raw: Any, *, where: str = "manifest") -> ModelManifest:
        """Build from the JSON object of a manifest; ``where`` names it in error messages."""
        if not isinstance(raw, dict):
            raise ModelError(f"{where}: expected a JSON object")
        try:
            files_raw = raw["files"]
            if not isinstance(files_raw, dict) or not files_raw:
                raise ModelError(f"{where}: 'files' must be a non-empty object")
            files = {
                str(fname): FileEntry(sha256=str(entry["sha256"]).lower(), size=int(entry["size"]))
                for fname, entry in files_raw.items()
            }
            dimension = raw.get("dimension")
            return cls(
                name=str(raw["name"]),
                role=ModelRole(raw["role"]),
                files=files,
                format=ModelFormat(raw.get("format", ModelFormat.ONNX)),
                dimension=None if dimension is None else int(dimension),
                pooling=Pooling(raw.get("pooling", Pooling.MEAN)),
                normalize=bool(raw.get("normalize", True)),
                max_length=int(raw.get("max_length", 256)),
                query_prefix=str(raw.get("query_prefix", "")),
                document_prefix=str(raw.get("document_prefix", "")),
                source=str(raw.get("source", "")),
                model_file=str(raw.get("model_file", "")),
                calibration=Calibration.from_dict(raw.get("calibration", {})),
            )
        except ModelError:
            raise
        except KeyError as e:
            raise ModelError(f"{where}: missing field {e.args[0]!r}") from e
        except (TypeError, ValueError) as e:
            raise ModelError(f"{where}: invalid value: {e}") from e

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": str(self.role),
            "format": str(self.format),
            "dimension": self.dimension,
            "pooling": str(self.pooling),
            "normalize": self.normalize,
            "max_length": self.max_length,
            "query_prefix": self.query_prefix,
            "document_prefix": self.document_prefix,
            "model_file": self.model_file,
            "files": {
                fname: {"sha256": entry.sha256, "size": entry.size}
                for fname, entry in sorted(self.files.items())
            },
            "source": self.source,
            # Thresholds on a similarity scale: only an embedder has one.
            **(
                {"calibration": self.calibration.to_dict()}
                if self.role is ModelRole.EMBEDDER
                else {}
            ),
        }

    def write(self, directory: Path) -> Path:
        """Write ``directory/manifest.json`` atomically (temp file, fsync, rename)."""
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        return write_atomic(directory / MANIFEST_NAME, text.encode("utf-8"))

    def verify(self, directory: Path, *, full: bool = True) -> list[str]:
        """Problems with the files of ``directory`` (empty list: all good).

        Checks that every listed file exists with its size; ``full`` also checks sha256.
        """
        problems: list[str] = []
        for fname, entry in sorted(self.files.items()):
            path = directory / fname
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                problems.append(f"{fname}: missing")
                continue
            except OSError as e:
                problems.append(f"{fname}: unreadable ({e.strerror})")
                continue
            if size != entry.size:
                problems.append(f"{fname}: size {size} bytes, expected {entry.size}")
                continue
            if full:
                try:
                    digest = sha256_file(path)
                except ModelError as e:
                    problems.append(f"{fname}: {e}")
                    continue
                if digest != entry.sha256:
                    problems.append(
                        f"{fname}: sha256 {digest[:12]}..., expected {entry.sha256[:12]}..."
                    )
        return problems


def sha256_file(path: Path, cancel: threading.Event | None = None) -> str:
    """Hex sha256 of a file, read in chunks.

    Raises:
        ModelError: the file cannot be read.
        Cancelled: ``cancel`` was set.
    """
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            while chunk := f.read(_HASH_CHUNK):
                if cancel is not None and cancel.is_set():
                    raise Cancelled(f"hashing {path.name} cancelled")
                digest.update(chunk)
    except OSError as e:
        raise ModelError(f"cannot read {path}: {e.strerror or e}") from e
    return digest.hexdigest()


def file_entry(path: Path) -> FileEntry:
    """Checksum entry of an existing file."""
    return FileEntry(sha256=sha256_file(path), size=path.stat().st_size)


def fsync_dir(directory: Path) -> None:
    """Make a rename inside ``directory`` durable (no-op where directories cannot be opened)."""
    if os.name == "nt":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temp file in the same folder, fsync, rename."""
    try:
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as f:
                if os.name != "nt":
                    os.fchmod(f.fileno(), 0o644)  # mkstemp makes 0600; a manifest is no secret
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(path.parent)
    except OSError as e:
        raise ModelError(f"cannot write {path}: {e.strerror or e}") from e
    return path
