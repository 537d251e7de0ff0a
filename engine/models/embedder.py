"""Sentence embeddings with an ONNX transformer + a Hugging Face ``tokenizer.json``.

The graph outputs token states ([batch, seq, dim]); pooling (mean over the attention mask,
or the first token) and L2 normalisation happen here, as the manifest says.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from engine.errors import ModelError
from engine.models.manifest import ModelManifest, ModelRole, Pooling

logger = logging.getLogger(__name__)

TOKENIZER_FILE = "tokenizer.json"
_TOKEN_OUTPUT_NAMES = ("last_hidden_state", "token_embeddings")
_PAD_TOKENS = ("[PAD]", "<pad>")
# The tokenizer truncates only after splitting the whole text: a 10 MB subtitle cue or line
# of code took 1.3 GB and half a minute to embed. No real text needs more characters per
# token than this (spaces are not tokens; longer words are one unknown token), so cutting
# there first changes no vector.
_CHARS_PER_TOKEN = 64
# A batch's attention grows with batch x tokens^2: 32 texts of 256 tokens (the longest the
# tokenizer keeps) took 1.5 GB, against 0.6 GB for 8 of them at the same speed. Batches of
# long texts shrink so that batch x tokens^2 stays within 32 texts of 128 tokens.
_ATTENTION_BUDGET = 32 * 128 * 128


class OnnxEmbedder:
    """Embeds texts with the model in ``model_dir`` on ``threads`` CPU threads.

    Raises:
        ModelError: the directory is incomplete, a file is corrupt, or it is not an embedder.
    """

    def __init__(self, model_dir: Path, threads: int = 2) -> None:
        manifest = load_manifest(model_dir, ModelRole.EMBEDDER)
        if manifest.dimension is None:
            raise ModelError(f"manifest of {manifest.name} has no dimension")
        self.manifest = manifest
        self.name = manifest.name
        self.model_id = manifest.model_id
        self.dimension: int = manifest.dimension
        self.calibration = manifest.calibration
        self._tokenizer = _load_tokenizer(model_dir / TOKENIZER_FILE, manifest.max_length)
        self._session, self._input_names = open_session(model_dir, manifest, threads)
        self._output_name = self._pick_output()

    def _pick_output(self) -> str:
        candidates = [
            o.name
            for o in self._session.get_outputs()
            if len(o.shape) == 3
            and (o.shape[2] == self.dimension or not isinstance(o.shape[2], int))
        ]
        for name in _TOKEN_OUTPUT_NAMES:
            if name in candidates:
                return name
        if candidates:
            return candidates[0]
        shapes = {o.name: o.shape for o in self._session.get_outputs()}
        raise ModelError(
            f"{self.name}: no token-embeddings output of shape [batch, seq, {self.dimension}] "
            f"in the ONNX graph (outputs: {shapes})"
        )

    def embed(
        self, texts: Sequence[str], *, query: bool = False, batch_size: int = 32
    ) -> npt.NDArray[np.float32]:
        """Vectors of shape (len(texts), dimension), float32, unit length if the model says so.

        ``query`` selects the manifest's query prefix instead of the document prefix.
        """
        if batch_size < 1:
            raise ModelError(f"batch_size must be at least 1, got {batch_size}")
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        prefix = self.manifest.query_prefix if query else self.manifest.document_prefix
        # Similar lengths share a batch, so little compute goes to pad tokens.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [prefix + texts[i] for i in order]
        start = 0
        while start < len(ordered):
            encodings = self._batch(ordered[start : start + batch_size])
            out[order[start : start + len(encodings)]] = self._embed_batch(encodings)
            start += len(encodings)
        return out

    def _batch(self, texts: list[str]) -> list[Any]:
        """The encodings of the next batch: the first of ``texts`` (shortest first), fewer
        of them when they are long (:data:`_ATTENTION_BUDGET`)."""
        longest = self.manifest.max_length * _CHARS_PER_TOKEN
        size = len(texts)
        while True:
            encodings = self._tokenizer.encode_batch([t[:longest] for t in texts[:size]])
            tokens = len(encodings[0].ids)  # padded to the batch's longest
            if size == 1 or size * tokens * tokens <= _ATTENTION_BUDGET:
                return encodings
            size = max(1, _ATTENTION_BUDGET // (tokens * tokens))

    def _embed_batch(self, encodings: list[Any]) -> npt.NDArray[np.float32]:
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = model_feeds(encodings, self._input_names)
        try:
            (states,) = self._session.run([self._output_name], feeds)
        except Exception as e:  # onnxruntime raises its own untyped errors
            raise ModelError(f"{self.name}: inference failed: {e}") from e
        states = np.asarray(states, dtype=np.float32)
        if self.manifest.pooling is Pooling.CLS:
            pooled = states[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if self.manifest.normalize:
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.maximum(norms, 1e-12)
        return pooled.astype(np.float32, copy=False)


# The embedders this process has loaded, held weakly: a second library of the same model in
# one process (the window's and a command's, a pack's import beside a search, the MCP server's
# libraries) shares the one in memory, ~0.2 s of CPU and its session's memory each, for as
# long as anyone holds it. Keyed by the folder's files as they are (a file replaced, rewritten
# or touched loads anew) and by threads; the registry has checked the files before.
_LOADED: weakref.WeakValueDictionary[tuple[object, ...], OnnxEmbedder] = (
    weakref.WeakValueDictionary()
)
_LOADING = threading.Lock()


def shared_embedder(model_dir: Path, threads: int) -> OnnxEmbedder:
    """The embedder of ``model_dir`` on ``threads`` threads: the one this process already
    holds when the folder's files are unchanged, else loaded now.

    Raises:
        ModelError: as :class:`OnnxEmbedder`.
    """
    key = (str(model_dir.resolve()), threads, _file_stamps(model_dir))
    with _LOADING:  # two threads asking at once load it once
        embedder = _LOADED.get(key)
        if embedder is None:
            embedder = OnnxEmbedder(model_dir, threads)
            _LOADED[key] = embedder
    return embedder


def _file_stamps(model_dir: Path) -> tuple[tuple[object, ...], ...]:
    try:
        paths = sorted(model_dir.iterdir())
    except OSError:
        return ()  # OnnxEmbedder says what is wrong
    stamps = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        stamps.append((path.name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(stamps)


def load_manifest(model_dir: Path, role: ModelRole) -> ModelManifest:
    """The manifest of a model directory of ``role`` whose files are all there.

    Raises:
        ModelError: no manifest, another role, or a file missing or of the wrong size.
    """
    manifest = ModelManifest.load(model_dir)
    if manifest.role is not role:
        article = "an" if str(role)[0] in "aeiou" else "a"
        raise ModelError(f"{manifest.name} is a {manifest.role} model, not {article} {role}")
    # Sizes only: hashing on every load would cost a read of the whole model.
    problems = manifest.verify(model_dir, full=False)
    if problems:
        raise ModelError(
            f"model {manifest.name} in {model_dir} is incomplete: {'; '.join(problems)}"
        )
    return manifest


def open_session(model_dir: Path, manifest: ModelManifest, threads: int) -> tuple[Any, set[str]]:
    """The ONNX session of a model directory and its input names (``input_ids`` required)."""
    session = _load_session(model_dir / manifest.model_file, threads)
    names = {i.name for i in session.get_inputs()}
    if "input_ids" not in names:
        raise ModelError(f"{manifest.name}: the ONNX graph has no input_ids input")
    return session, names


def model_feeds(
    encodings: Sequence[Any], input_names: set[str]
) -> dict[str, npt.NDArray[np.int64]]:
    """A transformer graph's inputs for a padded batch of tokenizer encodings."""
    feeds = {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64)}
    if "attention_mask" in input_names:
        feeds["attention_mask"] = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    if "token_type_ids" in input_names:
        feeds["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
    return feeds


def _load_tokenizer(path: Path, max_length: int) -> Tokenizer:
    if not path.is_file():
        raise ModelError(f"{path} is missing: the model directory is incomplete")
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as e:  # tokenizers raises a bare Exception on bad JSON
        raise ModelError(f"cannot load tokenizer {path}: {e}") from e
    # Shipped tokenizer.json files often pin truncation/padding (128 for all-MiniLM-L6-v2):
    # truncate at the manifest's length and pad only to the longest text of each batch.
    pad_id, pad_token = _pad_token(tokenizer)
    tokenizer.enable_truncation(max_length=max_length)
    tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token)
    return tokenizer


def _pad_token(tokenizer: Tokenizer) -> tuple[int, str]:
    padding = tokenizer.padding
    if padding is not None:
        return int(padding["pad_id"]), str(padding["pad_token"])
    for token in _PAD_TOKENS:
        token_id = tokenizer.token_to_id(token)
        if token_id is not None:
            return token_id, token
    return 0, _PAD_TOKENS[0]


def _load_session(path: Path, threads: int) -> Any:
    import onnxruntime as ort  # lazy: importing onnxruntime costs ~0.3 s at start-up

    # engine/__init__ switched its telemetry off before this import; this stops the runtime's
    # own events too, should anything have imported onnxruntime before the engine.
    ort.disable_telemetry_events()
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    # Idle threads sleep instead of spinning: the embedder shares 2 cores with transcription
    # and the GUI; spinning doubled single-query latency under load (19 ms vs 7 ms).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own untyped errors
        raise ModelError(f"cannot load ONNX model {path}: {e}") from e
