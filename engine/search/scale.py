"""The thresholds and weights on similarity one search uses: the embedder's own.

Each embedder spreads its cosines differently (all-MiniLM-L6-v2 over about 0.0-0.8,
multilingual-e5 over 0.7-0.9), so its manifest carries them (:class:`Calibration`); a
search config that sets one (an ablation, a benchmark) overrides the model's.

multilingual-e5's cosines also shift with the languages of the question and the text: the
answer to an English question is about 0.82 from the Spanish passage that holds it, and
0.86 from the English one; a cooking question 0.77 from Spanish passages, 0.80 from English
(XQuAD dev, medians). No one gate fits both, so its gate follows the query: the nearest
segment must stand out from the library's run of segments (:func:`background`) by
``Calibration.standout``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.config import SearchConfig
from engine.models.manifest import Calibration

# The run of segments a query's nearest one is measured against: its 10th to 100th nearest
# (fewer in a small library; none below MIN_RUN segments, where the gate stays open).
RUN = (10, 100)
MIN_RUN = 8


def background(similarities: Sequence[float]) -> float | None:
    """The median similarity of the query's run of segments (``similarities`` in rank
    order), or None when the library has too few segments to say."""
    n = min(len(similarities), RUN[1])
    if n < MIN_RUN:
        return None
    return float(np.median(np.asarray(similarities[min(RUN[0], n // 4) : n])))


def on_scale(cfg: SearchConfig, own: Calibration, run: float | None = None) -> Calibration:
    """``own`` (the embedder's), with every value ``cfg`` sets instead; a gate that follows
    the query is set from ``run`` (:func:`background`: no run, no gate)."""
    gate = own.gate
    if own.standout > 0:
        gate = 0.0 if run is None else run + own.standout
    return Calibration(
        gate=gate if cfg.gate is None else cfg.gate,
        sentence_weight=own.sentence_weight if cfg.sentence_weight is None else cfg.sentence_weight,
        window_weight=own.window_weight if cfg.window_weight is None else cfg.window_weight,
        seek_words=own.seek_words if cfg.seek_words is None else cfg.seek_words,
        standout=own.standout,
    )
