"""The slide pages of a course's PDF decks as pictures, to tell a keyframe that shows one.

A deck imported before the video (folders are imported documents first) is rendered small
with PDFium, once per process while the file is unchanged, and a keyframe that is the same
picture as a page takes the page's text instead of being read with OCR. Pages with almost no
text (a picture, a diagram) are left out: their keyframes are still read, which finds the
words inside the picture.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.media.pictures import PictureIndex, Signature, signature
from engine.store import Store
from engine.types import SegmentKind, SourceKind, SourceStatus

log = logging.getLogger(__name__)

RENDER_WIDTH = 320  # pages are compared at the scene detector's frame width
MAX_PAGES = 1500  # at most this many pages of a course are rendered for one video
_CACHED_DECKS = 16
_WORD = re.compile(r"\w+")

_cache: OrderedDict[tuple[str, int, int], list[tuple[Signature, float]]] = OrderedDict()
_cache_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class DeckPage:
    deck: str  # the PDF's path
    page: int  # 1-based
    text: str


class DeckPictures:
    """Pages of PDF decks, rendered on first use."""

    def __init__(self, pages: Sequence[DeckPage]) -> None:
        self.pages = [p for p in pages if len(_WORD.findall(p.text)) >= 2]
        self._by_aspect: list[tuple[float, PictureIndex[DeckPage]]] | None = None

    def find(self, grey: np.ndarray) -> DeckPage | None:
        """The page a grey frame shows full screen, or None."""
        best: DeckPage | None = None
        for aspect, index in self._indexes():
            best = best or index.find(signature(grey, aspect))
        return best

    def _indexes(self) -> list[tuple[float, PictureIndex[DeckPage]]]:
        if self._by_aspect is None:
            groups: dict[float, PictureIndex[DeckPage]] = {}
            by_deck: dict[str, list[DeckPage]] = {}
            for page in self.pages:
                by_deck.setdefault(page.deck, []).append(page)
            for deck, pages in by_deck.items():
                rendered = _rendered(Path(deck))
                for page in pages:
                    if page.page <= len(rendered):
                        sig, aspect = rendered[page.page - 1]
                        groups.setdefault(round(aspect, 2), PictureIndex()).add(sig, page)
            self._by_aspect = list(groups.items())
        return self._by_aspect


def course_decks(store: Store, video: Path) -> DeckPictures | None:
    """The pages of the PDF decks indexed in the video's course (None when there are none)."""
    source = store.catalog.source_by_path(str(video))
    if source is None:
        return None
    pages: list[DeckPage] = []
    for deck in store.catalog.sources(source.course_id):
        if deck.kind is not SourceKind.SLIDES or deck.status is not SourceStatus.INDEXED:
            continue
        if not deck.path.lower().endswith(".pdf") or not Path(deck.path).is_file():
            continue
        texts: dict[int, list[str]] = {}
        for row in store.segments.of_source(deck.id):
            if row.page is not None and row.kind is SegmentKind.SLIDE:
                texts.setdefault(row.page, []).append(row.text)
        if len(pages) + len(texts) > MAX_PAGES:
            log.info("%s: more than %d slide pages in the course", video.name, MAX_PAGES)
            break
        pages += [DeckPage(deck.path, n, "\n".join(t)) for n, t in sorted(texts.items())]
    return DeckPictures(pages) if pages else None


def _rendered(pdf: Path) -> list[tuple[Signature, float]]:
    """(signature, width / height) of every page; [] when the PDF cannot be read."""
    try:
        stat = pdf.stat()
    except OSError:
        return []
    key = (str(pdf), stat.st_size, stat.st_mtime_ns)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    out = _render(pdf)
    with _cache_lock:
        _cache[key] = out
        while len(_cache) > _CACHED_DECKS:
            _cache.popitem(last=False)
    return out


def _render(pdf: Path) -> list[tuple[Signature, float]]:
    import cv2
    import pypdfium2 as pdfium

    from engine.pdfium_lock import PDFIUM_LOCK

    out: list[tuple[Signature, float]] = []
    with PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(str(pdf))
        except pdfium.PdfiumError as e:
            log.info("%s: pages not rendered: %s", pdf.name, e)
            return []
        try:
            for i in range(len(document)):
                page = document[i]
                width = page.get_size()[0]
                # Twice the size, then averaged down: thin lines keep their weight.
                bitmap = page.render(scale=2 * RENDER_WIDTH / width)
                bgr = np.ascontiguousarray(bitmap.to_numpy()[:, :, :3])  # pyright: ignore[reportArgumentType]
                grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
                size = (RENDER_WIDTH, max(1, round(grey.shape[0] / 2)))
                grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
                out.append((signature(grey), bgr.shape[1] / bgr.shape[0]))
                page.close()
        except pdfium.PdfiumError as e:
            log.info("%s: pages not rendered: %s", pdf.name, e)
        finally:
            document.close()
    return out
