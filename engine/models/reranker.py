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
# A MiniLM-L6 cross-encoder on 2 cores without VNNI (these machines): about 0.17 ms per
# token of a batch. A first guess on the slow side; each scored batch corrects it.
FIRST_COST_GUESS_MS = 0.2
COST_LEARNING = 0.3  # weight of the newest batch in the running estimate


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
        # Milliseconds per token of a batch, first guessed, then learned from every batch.
        self.ms_per_token = FIRST_COST_GUESS_MS

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

        Passages are scored in order, in batches of up to ``batch_size``. With a
        ``budget_ms``, a batch holds only as many pairs as the time left is predicted to
        pay for (from this model's measured cost per token), and the passages that do not
        fit get NaN (the caller keeps them in their earlier order); the first passage is
        always scored.
        """
        if batch_size < 1:
            raise ModelError(f"batch_size must be at least 1, got {batch_size}")
        out = np.full(len(passages), np.nan, dtype=np.float32)
        if not passages:
            return out
        started = time.perf_counter()
        pairs = [(query, p) for p in passages]
        lengths = [sum(e.attention_mask) for e in self._tokenizer.encode_batch(pairs)]
        start = 0
        while start < len(pairs):
            count = min(batch_size, len(pairs) - start)
            if budget_ms is not None:
                left = budget_ms - (time.perf_counter() - started) * 1000
                count = self._affordable(lengths[start : start + count], left)
                if count == 0 and start > 0:
                    log.debug("rerank budget spent after %d of %d passages", start, len(pairs))
                    break
                count = max(1, count)
            batch = pairs[start : start + count]
            t0 = time.perf_counter()
            out[start : start + count] = self._score_batch(batch)
            tokens = count * max(lengths[start : start + count])
            measured = (time.perf_counter() - t0) * 1000 / tokens
            self.ms_per_token += COST_LEARNING * (measured - self.ms_per_token)
            start += count
        return out

    def _affordable(self, lengths: Sequence[int], left_ms: float) -> int:
        """How many of the next pairs one batch can score in ``left_ms`` (a batch costs
        its size times its longest pair, in tokens, at the measured cost per token)."""
        longest = 0
        for count, length in enumerate(lengths, start=1):
            longest = max(longest, length)
            if count * longest * self.ms_per_token > left_ms:
                return count - 1
        return len(lengths)

    def _score_batch(self, pairs: list[tuple[str, str]]) -> npt.NDArray[np.float32]:
        feeds = model_feeds(self._tokenizer.encode_batch(pairs), self._input_names)
        try:
            (logits,) = self._session.run([self._output_name], feeds)
        except Exception as e:  # onnxruntime raises its own untyped errors
            raise ModelError(f"{self.name}: inference failed: {e}") from e
        return np.asarray(logits, dtype=np.float32).reshape(len(pairs), -1)[:, 0]
