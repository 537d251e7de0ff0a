"""The thresholds and weights on similarity one search uses: the embedder's own.

Each embedder spreads its cosines differently (all-MiniLM-L6-v2 over about 0.0-0.8,
multilingual-e5 over 0.7-0.9), so its manifest carries them (:class:`Calibration`); a
search config that sets one (an ablation, a benchmark) overrides the model's.
"""

from __future__ import annotations

from engine.config import SearchConfig
from engine.models.manifest import Calibration


def on_scale(cfg: SearchConfig, own: Calibration) -> Calibration:
    """``own`` (the embedder's), with every value ``cfg`` sets instead."""
    return Calibration(
        gate=own.gate if cfg.gate is None else cfg.gate,
        sentence_weight=own.sentence_weight if cfg.sentence_weight is None else cfg.sentence_weight,
        window_weight=own.window_weight if cfg.window_weight is None else cfg.window_weight,
        seek_words=own.seek_words if cfg.seek_words is None else cfg.seek_words,
    )
