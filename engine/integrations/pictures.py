"""The pictures a handout or a flashcard shows: a PDF slide page drawn to PNG, or the
keyframe thumbnail the import saved for a moment of a video.

A .pptx has no renderer here (the window draws its text on a card); its slides are shown by
the video's keyframe when there is one, and by their text always.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from engine.errors import UnreadableFileError
from engine.pdfium_lock import PDFIUM_LOCK
from engine.regular_files import open_regular

log = logging.getLogger(__name__)

PAGE_WIDTH = 800  # pixels: sharp on screen beside the text, and on paper at about 10 cm


@dataclass(frozen=True, slots=True)
class Picture:
    """An image's bytes, its type and a file name that is stable for the same picture (the
    file's content hash and page, or the thumbnail's own name): a second export writes the
    same names, so an Anki deck or a handout's folder is updated, not doubled."""

    data: bytes
    mime: str  # image/png or image/jpeg
    name: str


def page_picture(deck: Path, sha256: str, page: int, width: int = PAGE_WIDTH) -> Picture | None:
    """Page ``page`` (1-based) of a PDF as a PNG ``width`` pixels wide; None when the file
    is gone, is not a readable PDF or has no such page (the handout shows the text then)."""
    if deck.suffix.lower() != ".pdf" or not deck.is_file():
        return None
    import cv2
    import numpy as np
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(str(deck))
        except pdfium.PdfiumError as e:
            log.info("%s: page %d not drawn: %s", deck.name, page, e)
            return None
        try:
            if not 1 <= page <= len(document):
                return None
            pdf_page = document[page - 1]
            try:
                scale = width / max(1.0, pdf_page.get_width())
                bitmap = pdf_page.render(scale=scale)  # pyright: ignore[reportArgumentType]
                bgr = np.ascontiguousarray(bitmap.to_numpy()[:, :, :3])
            finally:
                pdf_page.close()
        except pdfium.PdfiumError as e:
            log.info("%s: page %d not drawn: %s", deck.name, page, e)
            return None
        finally:
            document.close()
    done, png = cv2.imencode(".png", bgr)
    if not done:
        return None
    return Picture(png.tobytes(), "image/png", f"slide-{sha256[:16]}-p{page}.png")


def thumbnail_picture(thumbs: Path, name: str | None) -> Picture | None:
    """A keyframe thumbnail the import saved (``thumbs/NAME``); None when there is none."""
    if not name:
        return None
    path = thumbs / name
    try:
        with open_regular(path) as f:  # a pipe or a device in thumbs/ is never waited on
            data = f.read()
    except (OSError, UnreadableFileError):
        return None
    mime = "image/png" if path.suffix.lower() == ".png" else "image/jpeg"
    return Picture(data, mime, f"frame-{path.name}")
