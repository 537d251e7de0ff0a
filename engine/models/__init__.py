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


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors; ``model_id`` names the vector space."""

    @property
    def name(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(
        self, texts: Sequence[str], *, query: bool = False, batch_size: int = 32
    ) -> npt.NDArray[np.float32]: ...


__all__ = ["Embedder"]
