"""The library's embedder follows its languages.

all-MiniLM-L6-v2 is the best embedder we have on English (TutorialVQA dev default NDCG@10
0.556 against multilingual-e5-small's 0.536, SciFact 0.835 against 0.811) but reads English
only: on XQuAD its dense side scores Chinese 0.42 and English questions on Spanish passages
0.48, where multilingual-e5-small scores 0.88-0.97 in every language. So a library keeps
MiniLM while everything in it is English (or has no language: code), and the first file in
another language switches it, once, to the multilingual embedder
(``EngineConfig.multilingual_embedder``): everything already there is embedded again (one
vector space, so a question in either language finds text in both), and the file goes on.
A library whose embedder already reads many languages, or is not one the registry knows (a
user's own choice), is left as it is.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from engine.config import EngineConfig
from engine.errors import ModelError
from engine.importing.progress import Stage, StageReport
from engine.languages import language_name
from engine.models import Embedder
from engine.models.registry import ModelRegistry

log = logging.getLogger(__name__)

# Re-embeds the library with the given embedder (progress: done, total); returns the count.
Rebuild = Callable[[Embedder, Callable[[int, int], None], "threading.Event | None"], int]


def other_language(language: str | None) -> bool:
    """Text in ``language`` needs an embedder that reads more than English."""
    return language is not None and language != "en"


class EmbedderFit:
    """Switches the library to the multilingual embedder when a file needs it (see the
    module's docstring). Called by the import before it embeds a file, and by a course
    pack's import before it embeds the pack's files."""

    def __init__(
        self,
        config: Callable[[], EngineConfig],
        registry: ModelRegistry,
        current: Callable[[], str],
        rebuild: Rebuild,
        enabled: bool = True,
    ) -> None:
        self._config, self._registry = config, registry
        self._current, self._rebuild = current, rebuild
        self._missing_said = False  # a missing multilingual model is said once per session
        self.enabled = enabled  # False: the library keeps its embedder whatever comes

    def __call__(
        self,
        language: str | None,
        stage: StageReport | None = None,
        cancel: threading.Event | None = None,
    ) -> str:
        """Fit the library's embedder to a file in ``language``; what the file's result
        should say of it ("" when nothing changed).

        Raises:
            Cancelled: ``cancel`` was set while the library was embedded again (it is
                unchanged).
        """
        target = self._config().multilingual_embedder
        if not self.enabled or target is None or not other_language(language):
            return ""
        if not self._english_only():
            return ""
        try:
            model = self._registry.load_embedder(target, self._config().threads)
        except ModelError as e:
            if self._missing_said:
                return ""
            self._missing_said = True
            log.warning("text in %s searched by its words only: %s", language_name(language), e)
            return (
                f"{language_name(language)} text is found by its words only: meaning search "
                f"in any language needs `coursedex models install {target}`"
            )
        name = language_name(language)

        def progress(done: int, total: int) -> None:
            if stage is not None:
                detail = f"the library again, to search {name} by meaning: {done:,}/{total:,}"
                stage(Stage.EMBEDDING, done / total if total else None, detail)

        again = self._rebuild(model, progress, cancel)
        log.info("library switched to %s for %s text (%d segments again)", target, name, again)
        said = f"; {again:,} passages embedded again" if again else ""
        return f"meaning search now reads any language ({target}{said})"

    def languages(
        self, languages: Iterable[str | None], cancel: threading.Event | None = None
    ) -> str:
        """Fit to the first of ``languages`` that needs it (a course pack's files)."""
        needs = next((lang for lang in languages if other_language(lang)), None)
        return self(needs, cancel=cancel) if needs is not None else ""

    def _english_only(self) -> bool:
        """The library's embedder (by name: nothing is loaded to ask) is one the registry
        knows to read English only."""
        try:
            return not self._registry.spec(self._current()).multilingual
        except ModelError:  # not one it knows: the user's own, kept
            return False
