"""Cross-encoder reranking with an ONNX model + a Hugging Face ``tokenizer.json``.

A cross-encoder reads the query and a passage together ("[CLS] query [SEP] passage [SEP]")
and outputs one relevance logit per pair: far better ordering than comparing two separately
made vectors, and far slower, so only the head of the fused candidates is reranked, in
batches, within a time budget.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engine.errors import ModelError
from engine.models.embedder import (
    TOKENIZER_FILE,
    _load_tokenizer,
    load_manifest,
    model_feeds,
    open_session,
)
from engine.models.manifest import ModelRole

log = logging.getLogger(__name__)

_LOGIT_OUTPUTS = ("logits", "scores", "output")


class OnnxReranker:
    """Scores (query, passage) pairs with the cross-encoder in ``model_dir``.

    Raises:
        ModelError: the directory is incomplete, a file is corrupt, or it is not a reranker.
    """

    def __init__(self, model_dir: Path, threads: int = 2, max_length: int | None = None) -> None:
        manifest = load_manifest(model_dir, ModelRole.RERANKER)
        self.manifest = manifest
        self.name = manifest.name
        self.model_id = manifest.model_id
        length = min(manifest.max_length, max_length or manifest.max_length)
        self._tokenizer = _load_tokenizer(model_dir / TOKENIZER_FILE, length)
        self._session, self._input_names = open_session(model_dir, manifest, threads)
        self._output_name = self._pick_output()

    def _pick_output(self) -> str:
        outputs = {o.name: o.shape for o in self._session.get_outputs()}
        for name in _LOGIT_OUTPUTS:
            if name in outputs:
                return name
        for name, shape in outputs.items():
            if len(shape) == 2 and shape[1] in (1, "1"):
                return name
        raise ModelError(
            f"{self.name}: no [batch, 1] relevance output in the ONNX graph (outputs: {outputs})"
        )

    def score(
        self,
        query: str,
        passages: Sequence[str],
        *,
        batch_size: int = 8,
        budget_ms: float | None = None,
    ) -> npt.NDArray[np.float32]:
        """One relevance logit per passage, higher is better, in the order given.

        Passages are scored in batches of ``batch_size``; once ``budget_ms`` has passed, the
        passages not yet scored get NaN (the caller keeps them in their earlier order). The
        first batch is always scored.
        """
        if batch_size < 1:
            raise ModelError(f"batch_size must be at least 1, got {batch_size}")
        out = np.full(len(passages), np.nan, dtype=np.float32)
        started = time.perf_counter()
        for start in range(0, len(passages), batch_size):
            spent = (time.perf_counter() - started) * 1000
            if start and budget_ms is not None and spent >= budget_ms:
                log.debug("rerank budget spent after %d of %d passages", start, len(passages))
                break
            pairs = [(query, p) for p in passages[start : start + batch_size]]
            out[start : start + len(pairs)] = self._score_batch(pairs)
        return out

    def _score_batch(self, pairs: list[tuple[str, str]]) -> npt.NDArray[np.float32]:
        feeds = model_feeds(self._tokenizer.encode_batch(pairs), self._input_names)
        try:
            (logits,) = self._session.run([self._output_name], feeds)
        except Exception as e:  # onnxruntime raises its own untyped errors
            raise ModelError(f"{self.name}: inference failed: {e}") from e
        return np.asarray(logits, dtype=np.float32).reshape(len(pairs), -1)[:, 0]
