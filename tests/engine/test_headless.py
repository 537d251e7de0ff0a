"""engine/ works without a GUI or torch: it imports with PySide6, vlc, torch and
sentence_transformers made unimportable, and no source under engine/ imports them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENGINE = REPO / "engine"
FORBIDDEN = ("PySide6", "vlc", "torch", "sentence_transformers")

# Runs in a fresh interpreter: a finder placed first on sys.meta_path refuses the forbidden
# packages, then every module of the engine package is imported by walking it.
_IMPORT_ALL = """
import importlib, importlib.abc, json, pkgutil, sys

FORBIDDEN = {forbidden!r}

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in FORBIDDEN:
            raise ImportError(f"{{name}} is not available in a headless engine")
        return None

sys.meta_path.insert(0, Refuse())
import engine

names = ["engine"]
for info in pkgutil.walk_packages(engine.__path__, "engine."):
    importlib.import_module(info.name)
    names.append(info.name)
leaked = sorted(m for m in sys.modules if m.split(".")[0] in FORBIDDEN)
print(json.dumps({{"modules": names, "leaked": leaked}}))
"""

_NAMES = "|".join(FORBIDDEN)
_IMPORT_LINE = re.compile(
    rf"^[ \t]*from[ \t]+(?:{_NAMES})(?:\.[\w.]+)?[ \t]+import\b"  # from torch.x import y
    rf"|^[ \t]*import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*(?:{_NAMES})\b"  # import os, torch
    rf"|(?:import_module|__import__|find_spec)\(\s*[\"'](?:{_NAMES})\b",  # dynamic imports
    re.MULTILINE,
)


def _module_names() -> set[str]:
    names = set()
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_engine_imports_without_gui_or_torch() -> None:
    code = _IMPORT_ALL.format(forbidden=FORBIDDEN)
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.splitlines()[-1])
    assert report["leaked"] == []
    assert set(report["modules"]) == _module_names()
    assert {"engine.library", "engine.cli", "engine.models.embedder"} <= set(report["modules"])


def test_the_refusing_finder_does_refuse() -> None:
    code = _IMPORT_ALL.format(forbidden=FORBIDDEN) + "\nimport vlc\n"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 1
    assert "ImportError: vlc is not available in a headless engine" in run.stderr


def test_no_engine_source_imports_gui_or_torch() -> None:
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        for match in _IMPORT_LINE.finditer(path.read_text(encoding="utf-8")):
            line = path.read_text(encoding="utf-8").count("\n", 0, match.start()) + 1
            offenders.append(f"{path.relative_to(REPO)}:{line}: {match.group(0).strip()}")
    assert offenders == []


def test_the_import_scan_catches_lazy_and_dynamic_imports() -> None:
    caught = [
        "import torch",
        "    import torch.nn as nn",
        "import os, vlc",
        "from PySide6.QtWidgets import QApplication",
        "\tfrom sentence_transformers import SentenceTransformer",
        'mod = importlib.import_module("torch")',
        "vlc = __import__('vlc')",
    ]
    ignored = [
        "# loading sentence_transformers would import torch",
        "``__init__`` may import sentence_transformers, which the app does not have.",
        "import torchaudio_free_module",
        "from engine import vlcish",
    ]
    assert [bool(_IMPORT_LINE.search(s)) for s in caught] == [True] * len(caught)
    assert [bool(_IMPORT_LINE.search(s)) for s in ignored] == [False] * len(ignored)
