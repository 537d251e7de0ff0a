"""One loaded embedder per model folder in a process (engine.models.embedder.shared_embedder):
a second library or command of the same model shares the one in memory while it is held,
and a folder whose files changed is loaded anew."""

from __future__ import annotations

import gc
import shutil
import weakref
from pathlib import Path

import numpy as np
import pytest

from engine.errors import ModelError
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry


@pytest.fixture
def models(tmp_path: Path, models_dir: Path) -> Path:
    """A private copy of the default embedder's folder, free to change."""
    root = tmp_path / "models"
    shutil.copytree(models_dir / DEFAULT_EMBEDDER, root / DEFAULT_EMBEDDER)
    return root


def test_a_second_load_of_the_same_files_shares_the_held_embedder(models: Path) -> None:
    first = ModelRegistry(models).load_embedder(DEFAULT_EMBEDDER, 2)
    again = ModelRegistry(models).load_embedder(DEFAULT_EMBEDDER, 2)  # another registry
    assert again is first
    other_threads = ModelRegistry(models).load_embedder(DEFAULT_EMBEDDER, 1)
    assert other_threads is not first
    vectors = first.embed(["the axolotl regenerates its limbs"])
    assert np.allclose(other_threads.embed(["the axolotl regenerates its limbs"]), vectors)


def test_a_changed_file_is_loaded_anew(models: Path) -> None:
    first = ModelRegistry(models).load_embedder(DEFAULT_EMBEDDER, 2)
    tokenizer = models / DEFAULT_EMBEDDER / "tokenizer.json"
    tokenizer.write_bytes(tokenizer.read_bytes())  # the same bytes, written again
    again = ModelRegistry(models).load_embedder(DEFAULT_EMBEDDER, 2)
    assert again is not first
    onnx = models / DEFAULT_EMBEDDER / "model.onnx"
    with onnx.open("r+b") as f:  # damaged while the first is still held
        f.truncate(onnx.stat().st_size // 2)
    with pytest.raises(ModelError, match="damaged"):
        ModelRegistry(models).load_embedder(DEFAULT_EMBEDDER, 2)


def test_an_embedder_no_one_holds_is_not_kept(models: Path) -> None:
    first = ModelRegistry(models).load_embedder(DEFAULT_EMBEDDER, 2)
    held = weakref.ref(first)
    del first
    gc.collect()
    assert held() is None
