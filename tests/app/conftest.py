"""App tests drive real Qt widgets on the offscreen platform (no display needed)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
