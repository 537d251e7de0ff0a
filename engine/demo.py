"""The demo course shipped in ``resources/demo/``: a first start imports it, the CLI's
``demo`` command and the self-test use it."""

from __future__ import annotations

from pathlib import Path

# Beside the engine package, in a checkout and in a frozen build alike (the installer spec
# puts the folder at ``<bundle>/resources/demo``, next to ``<bundle>/engine``).
DEMO_DIR = Path(__file__).resolve().parent.parent / "resources" / "demo"
DEMO_COURSE = "Algorithms 101 (demo)"
DEMO_QUERIES = DEMO_DIR / "queries.txt"
DEMO_EXTRAS = frozenset({"README.md", DEMO_QUERIES.name})


def demo_files() -> list[Path]:
    """The demo course's files; its folder also holds its README and the example queries."""
    return [p for p in sorted(DEMO_DIR.iterdir()) if p.name not in DEMO_EXTRAS]


def demo_queries() -> list[str]:
    """The example searches the ``demo`` command runs, one a line in ``queries.txt``."""
    lines = DEMO_QUERIES.read_text(encoding="utf-8").splitlines()
    return [q.strip() for q in lines if q.strip()]
