"""The models a library loads on first use: the embedder (checked against the model its
vectors came from), the reranker (optional) and the on-screen text reader. Loading has no
other effect; the library repairs missing vectors itself, once it has the embedder."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from engine.config import EngineConfig
from engine.errors import ModelError, ModelMismatchError
from engine.models import Embedder, Reranker
from engine.models.registry import ModelRegistry

if TYPE_CHECKING:
    from engine.models.ocr import TextRecognizer

log = logging.getLogger(__name__)

# Path, size and modification time of each file in the models folders.
ModelFiles: TypeAlias = frozenset[tuple[str, int, int]]


class LibraryModels:
    """Loads each model once, on first use, whichever thread asks first.

    ``config`` gives the library's settings of the moment: a model they name or size (the
    reranker, its threads; the text reader's threads) is loaded again when they change.
    ``recorded`` gives the id of the model the library's vectors came from (None: no
    vectors yet); ``reranker`` replaces the installed one.
    """

    def __init__(
        self,
        config: Callable[[], EngineConfig],
        registry: ModelRegistry,
        embedder: Callable[[], Embedder],
        recorded: Callable[[], str | None],
        reranker: Callable[[], Reranker | None] | None = None,
    ) -> None:
        self._config = config
        self.registry = registry
        self._load_embedder = embedder
        self._recorded = recorded
        self._embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()  # held while loading only, nothing inside
        # The last failure to load, with the models' files and the recorded model it met.
        self._failed: tuple[ModelError, tuple[ModelFiles, str | None]] | None = None
        self._load_reranker = reranker or self._installed_reranker
        # The reranker (None: none, or it failed) and the settings it was tried with.
        self._reranker: tuple[tuple[str | None, int], Reranker | None] | None = None
        self._reranker_lock = threading.Lock()
        self._recognizers: dict[tuple[int, bool], TextRecognizer] = {}
        self._recognizers_lock = threading.Lock()

    def embedder(self) -> Embedder:
        """The embedder, loaded on first use.

        A model that failed (it cannot load, or is not the library's) is not loaded again,
        and the same error is raised, until a file in the models folders changes (it was
        reinstalled) or the library records another model: else every search, which falls
        back to keywords, would read the whole damaged file again to check it.

        Raises:
            ModelError: the model cannot load.
            ModelMismatchError: the library's vectors come from a different model.
        """
        with self._embedder_lock:
            if self._embedder is None:
                state = (self._model_files(), self._recorded())
                if self._failed is not None and self._failed[1] == state:
                    raise self._failed[0].with_traceback(None)
                try:
                    self._embedder = self._checked(self._load_embedder(), state[1])
                except ModelError as e:
                    self._failed = (e, state)
                    raise
            return self._embedder

    @staticmethod
    def _checked(model: Embedder, recorded: str | None) -> Embedder:
        if recorded is not None and recorded != model.model_id:
            raise ModelMismatchError(
                f"this library was indexed with {recorded}, not {model.model_id}; "
                f"run `coursedex reindex` to switch models"
            )
        return model

    def _model_files(self) -> ModelFiles:
        """Path, size and modification time of every file in a model's folder (not the
        registry's own record beside them, which each load may rewrite)."""
        files: set[tuple[str, int, int]] = set()
        for folder in (self.registry.root, self.registry.bundled):
            for path in folder.glob("*/**/*") if folder is not None else ():
                try:
                    st = path.stat()
                except OSError:
                    continue
                files.add((str(path), st.st_size, st.st_mtime_ns))
        return frozenset(files)

    def use_embedder(self, model: Embedder) -> None:
        """Switch to ``model`` (a re-index has just made the library's vectors with it)."""
        with self._embedder_lock:
            self._embedder = model

    def reranker(self) -> Reranker | None:
        """The cross-encoder, loaded on first use (and again when the settings name another
        or change its threads); None when none is installed (or it cannot be loaded: search
        then ranks without it, and says why once in the log)."""
        config = self._config()
        settings = (config.reranker, config.threads)
        with self._reranker_lock:
            if self._reranker is None or self._reranker[0] != settings:
                model = None
                try:
                    model = self._load_reranker()
                except ModelError as e:
                    log.warning("searching without a reranker: %s", e)
                self._reranker = (settings, model)
            return self._reranker[1]

    def _installed_reranker(self) -> Reranker | None:
        config = self._config()
        name = config.reranker
        if name is None or not any(m.installed for m in self.registry.list() if m.name == name):
            return None
        from engine.models.reranker import OnnxReranker

        return OnnxReranker(self.registry.path(name), config.threads)

    def recognizer(self, threads: int, *, alongside: bool = False) -> TextRecognizer:
        """The on-screen text reader on ``threads``, loaded on first use. The one that reads
        frames ``alongside`` speech recognition is its own: its threads start on the frames
        worker, at that worker's lower priority."""
        from engine.models.ocr import RapidTextRecognizer

        with self._recognizers_lock:
            key = (threads, alongside)
            if key not in self._recognizers:
                self._recognizers[key] = RapidTextRecognizer(threads=threads)
            return self._recognizers[key]
