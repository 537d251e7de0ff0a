"""Reading text off pictures: video keyframes and PDF pages without a text layer.

RapidOCR (PP-OCRv4 detection + recognition on onnxruntime; the models ship inside the
``rapidocr-onnxruntime`` wheel) behind a one-method interface, loaded on first use.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from engine.errors import Cancelled, ModelError, UnreadableFileError

log = logging.getLogger(__name__)

# Pictures are read at this width: scaled down when larger (speed), up when smaller, since
# PP-OCR drops the spaces between words when type is small (bench/scenes_ocr.py, 720p
# slides with 38-px body type: read at 640 px 10% of the words come out, 960 px 69%,
# 1280 px 93-96%, 1600 px 99-100% at about 1.5x the time of 1280; a small frame scaled up
# reads like a large one). Chosen again on the keyframes an import keeps from its one
# decoding pass (60 slides, 720p, crf 30): 1440 px 98.5%, 1520 px 98.9%, 1600 px 99.5%; no
# smaller width reads as many words.
READ_WIDTH = 1600
MAX_UPSCALE = 2.5
MAX_HEIGHT = 4096  # tall pictures (long pages) are scaled to fit this height instead


@dataclass(frozen=True, slots=True)
class TextLine:
    text: str
    score: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in the picture's pixels


class TextRecognizer(Protocol):
    def read(self, image: np.ndarray) -> list[TextLine]:
        """Lines of text in an RGB uint8 picture (H x W x 3), in reading order."""
        ...


class RapidTextRecognizer:
    """RapidOCR with its onnxruntime sessions limited to ``threads``. Thread-safe."""

    def __init__(
        self, threads: int = 2, min_score: float = 0.5, read_width: int = READ_WIDTH
    ) -> None:
        self.threads = max(1, threads)
        self.min_score = min_score
        self.read_width = max(32, read_width)
        self._engine: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._engine is None:
            for name in ("RapidOCR", "rapidocr_onnxruntime"):
                logging.getLogger(name).setLevel(logging.WARNING)
            try:
                from rapidocr_onnxruntime import RapidOCR

                self._engine = RapidOCR(
                    intra_op_num_threads=self.threads,
                    inter_op_num_threads=1,
                    use_cls=False,  # slides and screens are upright
                    text_score=self.min_score,
                    print_verbose=False,
                )
            except (ImportError, OSError, RuntimeError, ValueError) as e:
                raise ModelError(f"the text recognizer cannot be loaded: {e}") from e
        return self._engine

    def read(self, image: np.ndarray) -> list[TextLine]:
        if image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise UnreadableFileError("not an RGB picture")
        height, width = image.shape[:2]
        scale = min(self.read_width / width, MAX_UPSCALE, MAX_HEIGHT / height)
        if abs(scale - 1.0) < 0.05:
            scale = 1.0
        else:
            import cv2

            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
            image = cv2.resize(image, size, interpolation=interpolation)
        bgr = np.ascontiguousarray(image[:, :, ::-1])
        with self._lock:
            result, _ = self._load()(bgr, use_cls=False)
        lines: list[TextLine] = []
        for box, text, score in result or ():
            xs = [float(p[0]) / scale for p in box]
            ys = [float(p[1]) / scale for p in box]
            text = str(text).strip()
            if text and float(score) >= self.min_score:
                lines.append(TextLine(text, float(score), (min(xs), min(ys), max(xs), max(ys))))
        return reading_order(lines)


def reading_order(lines: Sequence[TextLine]) -> list[TextLine]:
    """Rows top to bottom (a line joins a row when it overlaps it vertically by half its
    height), left to right inside a row."""
    rows: list[list[TextLine]] = []
    for line in sorted(lines, key=lambda t: (t.box[1] + t.box[3]) / 2):
        middle = (line.box[1] + line.box[3]) / 2
        if rows:
            last = rows[-1][0]
            if abs(middle - (last.box[1] + last.box[3]) / 2) < (last.box[3] - last.box[1]) / 2:
                rows[-1].append(line)
                continue
        rows.append([line])
    return [t for row in rows for t in sorted(row, key=lambda t: t.box[0])]


def lines_to_text(lines: Sequence[TextLine]) -> str:
    """One text line per row of the picture, in reading order."""
    out: list[str] = []
    last_middle: float | None = None
    for line in reading_order(lines):
        middle = (line.box[1] + line.box[3]) / 2
        height = line.box[3] - line.box[1]
        if out and last_middle is not None and abs(middle - last_middle) < height / 2:
            out[-1] += " " + line.text
        else:
            out.append(line.text)
            last_middle = middle
    return "\n".join(out)


def ocr_pdf_pages(
    pdf: Path,
    pages: Sequence[int],
    recognizer: TextRecognizer,
    *,
    dpi: int = 150,
    cancel: threading.Event | None = None,
) -> dict[int, str]:
    """Text of the given 1-based pages of ``pdf``, rendered at ``dpi`` and read by OCR.

    Raises:
        UnreadableFileError: the PDF cannot be opened.
        Cancelled: ``cancel`` was set.
    """
    import pypdfium2 as pdfium

    from engine.pdfium_lock import PDFIUM_LOCK

    with PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(str(pdf))
        except pdfium.PdfiumError as e:
            raise UnreadableFileError(f"not a PDF file: {e}") from e
        count = len(document)
    out: dict[int, str] = {}
    try:
        for number in pages:
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled")
            if not 1 <= number <= count:
                continue
            with PDFIUM_LOCK:  # render under the lock, read the picture outside it
                page = document[number - 1]
                image = page.render(scale=dpi / 72).to_numpy()  # pyright: ignore[reportArgumentType]
            if image.ndim == 3 and image.shape[2] == 4:
                image = image[:, :, :3]
            # pypdfium2 renders BGR(A) by default.
            rgb = np.ascontiguousarray(image[:, :, ::-1])
            out[number] = lines_to_text(recognizer.read(rgb))
    finally:
        with PDFIUM_LOCK:
            document.close()
    return out
