"""engine/ has no import cycle (counted as tools/import_graph.py counts: lazy and
TYPE_CHECKING imports too, a package's __init__ for its submodules). The API sits above the
CLI, and the plain text helpers below search, so a layer can be read, tested and moved on its
own."""

from __future__ import annotations

from tools.import_graph import cycles, graph


def test_engine_modules_import_each_other_without_a_cycle() -> None:
    edges = graph()
    engine = {
        name: {t for t in targets if t.split(".")[0] == "engine"}
        for name, targets in edges.items()
        if name.split(".")[0] == "engine"
    }
    assert len(engine) > 50
    assert cycles(engine) == []


def test_a_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
