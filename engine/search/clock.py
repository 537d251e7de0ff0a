"""Milliseconds per search stage, as :attr:`SearchOutcome.took_ms` reports them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageClock:
    def __init__(self) -> None:
        self._took: dict[str, float] = {}

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        self._took[stage] = (time.perf_counter() - started) * 1000

    def took(self) -> dict[str, float]:
        """Each stage that ran, in order, then their ``total``."""
        return {**self._took, "total": sum(self._took.values())}
