"""Models behind small interfaces, each built from a complete local directory.

Nothing here downloads implicitly: :class:`engine.models.registry.ModelRegistry` installs
models on request, and constructors fail with :class:`engine.errors.ModelError` when a file is
missing. Kept import-light (no onnxruntime, no platformdirs) so that the export tool can use
:mod:`engine.models.manifest` from its own environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from engine.models.manifest import Calibration


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors; ``model_id`` names the vector space."""

    @property
    def name(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    @property
    def calibration(self) -> Calibration:
        """The search's thresholds and weights on this model's similarity scale."""
        ...

    def embed(
        self, texts: Sequence[str], *, query: bool = False, batch_size: int = 32
    ) -> npt.NDArray[np.float32]: ...


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, passage) pairs; higher is more relevant. Passages it had no time for
    (``budget_ms``) get NaN."""

    @property
    def model_id(self) -> str: ...

    def score(
        self,
        query: str,
        passages: Sequence[str],
        *,
        batch_size: int = 8,
        budget_ms: float | None = None,
    ) -> npt.NDArray[np.float32]: ...


__all__ = ["Embedder", "Reranker"]
