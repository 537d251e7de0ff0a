"""What another connection changed in a library can be told cheaply (issue 24, item 2): the
database files' stamp moves on any commit, ``outside_commits`` only on another connection's,
and two reads of ``marks`` compared name the files added or changed."""

from __future__ import annotations

from pathlib import Path

from engine.config import EngineConfig
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from tools.factories import make_note


def test_another_connections_commits_are_seen_and_marked(
    library: Library, tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    walrus = make_note(tmp_path / "Oceans", "walrus", "The walrus hauls out on the ice.")
    library.ingest([walrus.parent])
    seen, stamp, before = library.outside_commits(), library.disk_stamp(), library.marks()
    assert before.courses == {"Oceans"}
    assert before.files[str(walrus)].status == "indexed"
    assert before.files[str(walrus)].course == "Oceans"
    assert library.disk_stamp() == stamp  # nothing written: nothing moves

    otter = make_note(tmp_path / "Oceans", "otter", "Sea otters hold hands while they sleep.")
    library.ingest([otter], course="Oceans")  # this connection's own commits are not outside ones
    assert library.outside_commits() == seen
    assert library.disk_stamp() != stamp

    moss = make_note(tmp_path / "Botany", "moss", "Moss grows where it is damp.")
    registry = ModelRegistry(models_dir)
    with Library.open(library.folder, EngineConfig(), lambda: embedder, models=registry) as other:
        other.ingest([moss.parent])
    assert library.outside_commits() > seen
    after = library.marks()
    assert after.courses == {"Oceans", "Botany"}
    changed = {p for p, m in after.files.items() if before.files.get(p) != m}
    assert changed == {str(otter), str(moss)}
