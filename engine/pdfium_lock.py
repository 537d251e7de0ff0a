"""pdfium is not thread-safe: every call into pypdfium2, from the engine's slide reader and
OCR or from the window's page viewer, holds this one process-wide lock."""

from __future__ import annotations

import threading

PDFIUM_LOCK = threading.Lock()
