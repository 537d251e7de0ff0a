"""A library whose own folder is a link out of it (issue 34, item 4) is said in the window's
message box, in the same one line the command line prints, and nothing is written where the
link leads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.app.ui import refused_at_start


def test_a_library_whose_thumbs_folder_is_a_link_is_refused_in_the_window(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    built_library_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outside = tmp_path / "etc"
    outside.mkdir()
    thumbs = built_library_dir / "thumbs"
    shutil.rmtree(thumbs)
    thumbs.symlink_to(outside, target_is_directory=True)
    seen = refused_at_start(built_library_dir, models_dir, tmp_path, monkeypatch)
    assert seen == [
        (
            "Coursedex cannot open your library.",
            f"{thumbs} is a link to {outside}: Coursedex writes only in the library's own "
            "folders, never through a link out of it (replace the link with a folder).",
        )
    ]
    assert list(outside.iterdir()) == []
