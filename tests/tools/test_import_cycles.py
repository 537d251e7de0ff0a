"""engine/ and app/ have no import cycle (counted as tools/import_graph.py counts: lazy and
TYPE_CHECKING imports too, a package's __init__ for its submodules). The API sits above the
CLI, the plain text helpers below search, and the window above the helpers it hands what
they use, so a layer can be read, tested and moved on its own. The graph is read from the
source text: nothing of app/ (Qt) is imported here."""

from __future__ import annotations

from tools.import_graph import cycles, graph


def _package(top: str) -> dict[str, set[str]]:
    return {
        name: {t for t in targets if t.split(".")[0] == top}
        for name, targets in graph().items()
        if name.split(".")[0] == top
    }


def test_engine_modules_import_each_other_without_a_cycle() -> None:
    engine = _package("engine")
    assert len(engine) > 50
    assert cycles(engine) == []


def test_app_modules_import_each_other_without_a_cycle() -> None:
    """The window's helpers (library actions, URL import, followed folders) took the whole
    window and reached into its attributes: app/window.py and they imported each other."""
    app = _package("app")
    assert len(app) > 30
    assert "app.window" in app and "app.library.actions" in app
    assert cycles(app) == []


def test_a_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
