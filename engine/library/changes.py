"""The library's change notice, :class:`~engine.changes.Changes`, by the name its calls give
it. It is defined in :mod:`engine.changes`, below the import pipeline, whose report carries
it too (an import's report says what the import changed)."""

from engine.changes import NOTHING, Changes

__all__ = ["NOTHING", "Changes"]
