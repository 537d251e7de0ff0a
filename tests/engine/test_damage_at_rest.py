"""Damage at rest (issue 15, item 4): a library's files damaged while nothing runs, each
detected with one clear line, repaired where the library holds what it takes, and never
silently wrong. The user's side is the real command line in a child process."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from engine.errors import LibraryError
from engine.vectors import VectorIndex
from tests.engine.test_data_safety import _tmpfs

# --- a full disk while the vector index is saved ------------------------------------------


def _fill(disk: Path, leave: int) -> None:
    """Fill the file system at ``disk`` up to ``leave`` bytes free."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    written = 0
    try:
        while True:
            written += os.write(fd, b"x" * 4096)
    except OSError:
        pass
    os.ftruncate(fd, max(0, written - leave))
    os.close(fd)


def test_an_index_saved_to_a_full_disk_keeps_the_last_good_one(tmp_path: Path) -> None:
    """hnswlib's save_index said nothing when the disk filled: the good index was replaced
    by one cut short, with a sidecar that vouched for it."""
    rng = np.random.default_rng(7)
    with _tmpfs(tmp_path / "disk", "1m") as disk:
        folder = disk / "vectors"
        index = VectorIndex.open(folder, "text", dimension=384, model_id="m")
        first = rng.standard_normal((10, 384)).astype(np.float32)
        index.add(np.arange(10), first)
        index.save()
        saved = {p.name: p.read_bytes() for p in folder.iterdir()}
        _fill(disk, leave=8192)
        index.add(np.arange(10, 400), rng.standard_normal((390, 384)).astype(np.float32))
        with pytest.raises(LibraryError, match=r"cannot save vector index .*disk full"):
            index.save()
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == saved  # no temp file left
        again = VectorIndex.open(folder, "text", dimension=384, model_id="m")
        assert not again.needs_rebuild and again.ids() == set(range(10))
        assert again.search(first[3], 1)[0].tolist() == [3]
