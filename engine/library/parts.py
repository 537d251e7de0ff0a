"""The named parts a :class:`~engine.library.facade.Library` is composed of, built in one
place from what the library opened (its folder, store, indexer and write access): each part
takes what it needs in its constructor, and the facade hands each call to one of them.

    records    Records: what the library holds, read back and kept
    notes      NoteTaking: a user's notes on moments
    keeping    ModelKeeping: its models in use, the vectors repaired, a re-index
    content    Content: imports (through the pipeline), removals, renames
    searching  Searching: a search, following other processes' commits
    pack_port  PackPort: what course packs may do to the library
    lectures   Lectures: what integrations read of lectures and decks
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.config import EngineConfig
from engine.importing.pipeline import Pipeline
from engine.importing.session import ImportSession
from engine.index.indexer import Indexer
from engine.library.content import Content
from engine.library.keeping import ModelKeeping
from engine.library.lectures import Lectures
from engine.library.meaning import EmbedderFit
from engine.library.models import LibraryModels
from engine.library.notes import NoteTaking
from engine.library.pack_port import PackPort
from engine.library.records import Records
from engine.library.searching import Searching
from engine.library.write_access import WriteAccess
from engine.models import Embedder, Reranker
from engine.models.registry import ModelRegistry
from engine.store import Store


@dataclass(frozen=True, slots=True)
class Parts:
    records: Records
    notes: NoteTaking
    keeping: ModelKeeping
    content: Content
    searching: Searching
    pack_port: PackPort
    lectures: Lectures


@dataclass(frozen=True, slots=True)
class Opened:
    """What a library opened, that its parts share."""

    folder: Path
    store: Store
    indexer: Indexer
    access: WriteAccess
    models: ModelRegistry
    importing: ImportSession  # the import running here, and what it stops
    settings: Callable[[], EngineConfig]  # the library's settings of the moment

    @property
    def thumbs(self) -> Path:
        return self.folder / "thumbs"


def build_parts(
    opened: Opened,
    embedder: Callable[[], Embedder],
    embedder_id: Callable[[], str | None],
    reranker: Callable[[], Reranker | None] | None,
    own_embedder: bool,
) -> Parts:
    """The library's parts. ``embedder`` loads its embedder, ``embedder_id`` says which one
    its vectors come from; ``own_embedder``: it may switch for a file in another language."""
    o, settings = opened, opened.settings
    in_use = LibraryModels(settings, o.models, embedder, embedder_id, reranker)
    keeping = ModelKeeping(o.indexer, o.access, in_use, settings)
    records = Records(o.store, o.access, settings)
    # Before a file in another language is embedded, the library's embedder may switch.
    # (A library given its embedder keeps it.)
    fit = EmbedderFit(settings, o.models, keeping.embedder_name, keeping.rebuild, own_embedder)
    pipeline = Pipeline(
        o.store,
        o.indexer,
        keeping.embedder,
        o.models,
        o.thumbs,
        in_use.recognizer,
        fit,
        o.importing.removals,
    )
    content = Content(
        o.folder, records, o.indexer, pipeline, fit, settings, keeping.embedding, o.importing
    )
    searching = Searching(
        o.indexer, o.access, settings, keeping.embedder_if_any, o.thumbs, in_use.reranker
    )
    return Parts(
        records=records,
        notes=NoteTaking(records, o.indexer, keeping.embedder, settings),
        keeping=keeping,
        content=content,
        searching=searching,
        pack_port=PackPort(o.indexer, o.access, fit),
        lectures=Lectures(o.store),
    )
