"""Multi-granularity: timed windows are also embedded sentence by sentence, scored by
their closest sentence, and playback seeks to it even when no word matches."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.config import EngineConfig, SearchConfig
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from tests.conftest import written
from tests.places import at_moment

CUES = (
    (0, 4000, "Welcome back to the course on kitchen chemistry."),
    (4000, 8000, "Today we look at several everyday reactions."),
    (8000, 12000, "When you bake a cake, baking soda releases carbon dioxide bubbles."),
    (12000, 16000, "Vinegar is a weak acid found in most homes."),
    (16000, 20000, "Next week we will measure acidity with red cabbage juice."),
)
# Shares no word with any cue; the third one answers it.
QUESTION = "why does a sponge mixture puff up in the oven"
NO_GATE = replace(SearchConfig(), gate=0.0)


def _clock(ms: int) -> str:
    return f"00:00:{ms // 1000:02d},{ms % 1000:03d}"


def _lecture(folder: Path) -> Path:
    folder.mkdir()
    cues = "\n".join(
        f"{i}\n{_clock(a)} --> {_clock(b)}\n{text}\n" for i, (a, b, text) in enumerate(CUES, 1)
    )
    (folder / "kitchen chemistry.srt").write_text(cues, encoding="utf-8")
    return folder


def test_each_cue_of_a_window_gets_its_own_vector(library: Library, tmp_path: Path) -> None:
    library.ingest([_lecture(tmp_path / "Chem")])
    (source,) = library.sources()
    (row,) = library.store.segments.of_source(source.id)
    assert len(row.timings) == len(CUES)
    stored = library.store.embeddings.sentence_vectors([row.id], 384)[row.id]
    assert stored.shape == (len(CUES), 384)
    cake = library.embedder().embed([CUES[2][2]])[0]
    assert abs(float(stored[2] @ cake) - 1.0) < 0.01  # float16 keeps the vector
    assert float(stored[0] @ cake) < 0.9


def test_playback_seeks_to_the_closest_sentence_without_a_shared_word(
    library: Library, tmp_path: Path
) -> None:
    library.ingest([_lecture(tmp_path / "Chem")])
    (hit, *_) = library.search(QUESTION, config=NO_GATE).results
    assert at_moment(hit).start_ms == CUES[2][0]
    assert "baking soda" in hit.snippet
    # Without sentence vectors the window can only start where it starts.
    plain = library.search(QUESTION, config=replace(NO_GATE, sentences=False)).results
    assert at_moment(plain[0]).start_ms == CUES[0][0]


def test_a_library_from_before_sentence_vectors_gets_them_on_open(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    folder = _lecture(tmp_path / "Chem")

    def open_library() -> Library:
        return Library.open(
            tmp_path / "lib", EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
        )

    with open_library() as library:
        library.ingest([folder])
        library.store.conn.execute("DELETE FROM sentence_vectors")
        assert at_moment(library.search(QUESTION, config=NO_GATE).results[0]).start_ms == CUES[0][0]
    with open_library() as library:
        assert not library.indexer.needs_repair()  # they were embedded as it opened
        before = written(tmp_path / "lib"), library.store.conn.total_changes
        (hit, *_) = library.search(QUESTION, config=NO_GATE).results
        assert (written(tmp_path / "lib"), library.store.conn.total_changes) == before
        assert at_moment(hit).start_ms == CUES[2][0]
        assert len(library.store.embeddings.sentence_vectors([hit.segment_id], 384)) == 1


def test_reindex_rebuilds_the_sentence_vectors(library: Library, tmp_path: Path) -> None:
    library.ingest([_lecture(tmp_path / "Chem")])
    library.reindex(library.embedder())
    (hit, *_) = library.search(QUESTION, config=NO_GATE).results
    assert at_moment(hit).start_ms == CUES[2][0]
    assert (
        library.store.embeddings.sentence_vectors([hit.segment_id], 384)[hit.segment_id].shape[0]
        == 5
    )
