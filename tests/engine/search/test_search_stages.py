"""The optional retrieval stages on a real library: early exit, near-duplicates, MMR."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.config import SearchConfig
from engine.library import Library
from engine.search.evaluate import OFF_TOPIC_QUERIES

PLAIN = replace(SearchConfig(), gate=0.0, near_duplicates=0.0, mmr=0.0)


def test_questions_the_course_does_not_answer_return_nothing(built_library: Library) -> None:
    gated = [q for q in OFF_TOPIC_QUERIES if built_library.search(q).gated]
    assert len(gated) >= 0.8 * len(OFF_TOPIC_QUERIES), set(OFF_TOPIC_QUERIES) - set(gated)
    outcome = built_library.search(OFF_TOPIC_QUERIES[0])
    assert outcome.gated and outcome.results == [] and outcome.best_similarity is not None
    # Without the gate the same question gets the nearest noise.
    assert built_library.search(OFF_TOPIC_QUERIES[0], config=PLAIN).results


def test_real_questions_and_words_being_typed_pass_the_gate(built_library: Library) -> None:
    for query in ("hippopotamus", "where do mitochondria make energy", "Lomuto partition"):
        outcome = built_library.search(query)
        assert not outcome.gated and outcome.results, query
    typed = built_library.search("hippo", typing=True)
    assert not typed.gated and typed.results
    rows = built_library.store.segments.by_ids([typed.results[0].segment_id])
    assert "hippopotamus" in rows[typed.results[0].segment_id].text.lower()


def _notes(folder: Path) -> Path:
    folder.mkdir()
    text = "The giraffe has a very long neck and eats acacia leaves high in the trees."
    (folder / "a.md").write_text(f"# Giraffes\n\n{text}\n")
    (folder / "b.md").write_text(f"# Giraffes\n\n{text} Really.\n")  # a near copy
    (folder / "c.md").write_text("# Sleep\n\nGiraffes sleep standing up, a few minutes a night.\n")
    return folder


def test_near_duplicates_collapse_into_one_hit(library: Library, tmp_path: Path) -> None:
    library.ingest([_notes(tmp_path / "Zoo")])
    query = "giraffe neck acacia leaves"
    both = [Path(r.source).name for r in library.search(query, config=PLAIN).results]
    assert {"a.md", "b.md"} <= set(both)
    cfg = replace(PLAIN, near_duplicates=0.9)
    one = [Path(r.source).name for r in library.search(query, config=cfg).results]
    assert len({"a.md", "b.md"} & set(one)) == 1 and "c.md" in one


def test_mmr_moves_a_near_copy_below_something_new(library: Library, tmp_path: Path) -> None:
    library.ingest([_notes(tmp_path / "Zoo")])
    query = "giraffe neck acacia leaves"
    plain = [Path(r.source).name for r in library.search(query, config=PLAIN).results]
    assert plain[2] == "c.md"
    same = [
        Path(r.source).name for r in library.search(query, config=replace(PLAIN, mmr=1.0)).results
    ]
    assert same == plain  # lambda 1: relevance only
    varied = library.search(query, config=replace(PLAIN, mmr=0.05)).results
    assert [Path(r.source).name for r in varied][1] == "c.md"


def test_a_hit_can_bring_the_text_around_it(library: Library, tmp_path: Path) -> None:
    notes = tmp_path / "Zoo" / "animals.md"
    notes.parent.mkdir()
    notes.write_text(
        "# Giraffes\n\nThe giraffe has a very long neck.\n\n"
        "# Hippos\n\nThe hippopotamus spends the day in rivers.\n\n"
        "# Zebras\n\nEvery zebra has its own pattern of stripes.\n"
    )
    library.ingest([notes.parent])
    (hit, *_) = library.search("hippopotamus rivers").results
    assert hit.context is None and hit.to_json()["context"] is None  # off by default
    cfg = replace(SearchConfig(), neighbours=True)
    (hit, *_) = library.search("hippopotamus rivers", config=cfg).results
    assert hit.context is not None
    before, after = hit.context
    assert "long neck" in before and "stripes" in after
    assert hit.to_json()["context"] == {"before": before, "after": after}
    (first, *_) = library.search("giraffe long neck", config=cfg).results
    assert first.context is not None and first.context[0] == ""  # the start of the file
