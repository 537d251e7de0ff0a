"""The part of :class:`~engine.library.facade.Library` that keeps its models: the embedder
its vectors come from (loaded on first use, checked, and the vectors found missing at open
embedded with it), the reranker, and a re-index with another embedder (a user's switch, or
engine.library.meaning's when a file in another language arrives)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from engine.config import EngineConfig
from engine.errors import LibraryDamagedError, ModelError
from engine.importing.embedding import Embedding
from engine.index.indexer import Indexer
from engine.library.models import LibraryModels
from engine.library.write_access import WriteAccess
from engine.models import Embedder, Reranker

log = logging.getLogger(__name__)


class ModelKeeping:
    """The library's models and its vectors kept whole with them; ``config`` gives the
    library's settings of the moment."""

    def __init__(
        self,
        indexer: Indexer,
        access: WriteAccess,
        models: LibraryModels,
        config: Callable[[], EngineConfig],
    ) -> None:
        self.store = indexer.store
        self.indexer = indexer
        self.access = access
        self._models = models
        self._config = config
        self._repaired = False  # missing vectors found at open are embedded at its end
        self._repair_lock = threading.Lock()  # then the indexer's, never the other way

    @property
    def embedder_id(self) -> str | None:
        return self.store.meta.get("embedder_id")

    def embedder_name(self) -> str:
        """The embedder the library's vectors come from, else the one it will load first
        (what :meth:`~engine.library.facade.Library.open_own` loads)."""
        recorded = self.embedder_id
        return recorded.split("@", 1)[0] if recorded else self._config().embedder

    def embedding(self) -> Embedding:
        """How segments are embedded under the current settings."""
        config = self._config()
        return Embedding(config.embed_batch_size, config.embed_context)

    def embedder(self) -> Embedder:
        """The library's embedder, loaded on first use and checked against the library.

        Raises:
            ModelMismatchError: the library's vectors come from a different model.
        """
        model = self._models.embedder()
        self._repair(model)
        return model

    def repair_vectors(self) -> None:
        """Embed what the check at open found without vectors, now (Library.open does, and
        the window on its task pool): a search never writes (it loads the embedder only).
        Only when there is something to embed, since it loads the model. A model that
        cannot load leaves it to the embedder's first use by an import, as does another
        process importing (or a library this one cannot write)."""
        if self.access.read_only is not None or self.indexer.index is None:
            return
        if not self.indexer.needs_repair():
            self._repaired = True
            return
        try:
            model = self._models.embedder()
        except ModelError as e:
            log.warning("the vectors this library lacks are embedded later: %s", e)
            return
        self._repair(model)

    def _repair(self, model: Embedder) -> None:
        """Embed what the check at open found without vectors: at open, else on the
        embedder's first use by an import (it needs the model; loading it repairs nothing).
        Once. A damaged database is not repaired, and says so once: what it holds is still
        read."""
        if not self._repaired:
            with self._repair_lock:
                # While another process imports, the repair waits for a later use.
                try:
                    if not self._repaired and self.access.try_locked(
                        lambda: self.indexer.repair(
                            model, self.embedding(), self.access.refuse_if_damaged
                        )
                    ):
                        self._repaired = True
                except LibraryDamagedError as e:
                    log.warning("%s; the vectors it lacks are not embedded again", e)
                    self._repaired = True

    def embedder_if_any(self) -> Embedder | None:
        """The search's embedder: loaded and checked, and never a repair (a search writes
        nothing)."""
        return self._models.embedder() if self.indexer.index is not None else None

    def reranker(self) -> Reranker | None:
        """The cross-encoder, loaded on first use; None when none is installed or loads."""
        return self._models.reranker()

    def reindex(
        self,
        embedder: Embedder,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        """Re-embed every segment with ``embedder`` and rebuild the vector index.

        The old vectors stay until the new ones are complete, so a cancelled re-index
        leaves the library as it was.
        """

        with self.access.writing("re-index"):
            return self.rebuild(embedder, progress, cancel)

    def rebuild(
        self,
        embedder: Embedder,
        progress: Callable[[int, int], None] | None,
        cancel: threading.Event | None,
    ) -> int:
        """:meth:`reindex` for a caller that holds the write access."""

        def switch() -> None:  # as the new vectors take over, under the indexer's lock
            self._models.use_embedder(embedder)
            self._repaired = True  # everything was just embedded

        return self.indexer.rebuild(embedder, self.embedding(), switch, progress, cancel)
