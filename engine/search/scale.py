"""The thresholds and weights on similarity one search uses: the embedder's own.

Each embedder spreads its cosines differently (all-MiniLM-L6-v2 over about 0.0-0.8,
multilingual-e5 over 0.7-0.9), so its manifest carries them (:class:`Calibration`); a
search config that sets one (an ablation, a benchmark) overrides the model's.

multilingual-e5's cosines also shift with the languages of the question and the text: the
answer to an English question is about 0.82 from the Spanish passage that holds it, and
0.86 from the English one; a cooking question 0.77 from Spanish passages, 0.80 from English
(XQuAD dev, medians). No one fixed gate fits both, so a question also passes when its
nearest segment stands out from the query's run of segments (:func:`background`) by
``Calibration.standout``. Not that alone: in a library of one subject (a course; TutorialVQA's
Photoshop, SciFact's biomedicine) the answer rarely stands out so far from its neighbours,
and the fixed gate is what lets it through.
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
    """``own`` (the embedder's), with every value ``cfg`` sets instead. With a ``standout``,
    the gate is the lower of its fixed one and ``run`` (:func:`background`) + standout: a
    question passes on either (without a run, on the fixed gate alone)."""
    gate = own.gate
    if own.standout > 0 and run is not None:  # whichever lets the query through first
        gate = min(gate, run + own.standout)
    return Calibration(
        gate=gate if cfg.gate is None else cfg.gate,
        sentence_weight=own.sentence_weight if cfg.sentence_weight is None else cfg.sentence_weight,
        window_weight=own.window_weight if cfg.window_weight is None else cfg.window_weight,
        seek_words=own.seek_words if cfg.seek_words is None else cfg.seek_words,
        standout=own.standout,
    )
