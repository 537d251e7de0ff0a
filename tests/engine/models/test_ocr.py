"""Reading text off real pictures and image-only PDF pages with RapidOCR."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from engine.errors import Cancelled, UnreadableFileError
from engine.models.ocr import RapidTextRecognizer, TextLine, lines_to_text, ocr_pdf_pages
from tools.factories import make_image_only_pdf


@pytest.fixture(scope="module")
def recognizer() -> RapidTextRecognizer:
    return RapidTextRecognizer(threads=2)


def _picture(
    words: list[tuple[tuple[int, int], str]], size: tuple[int, int] = (900, 300)
) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(picture)
    font = ImageFont.load_default(size=40)
    for xy, text in words:
        draw.text(xy, text, fill="black", font=font)
    return np.asarray(picture)


def test_ocr_reads_pdf_pages_without_a_text_layer(
    tmp_path: Path, recognizer: RapidTextRecognizer
) -> None:
    pdf = make_image_only_pdf(
        tmp_path / "scan.pdf", ["Photosynthesis in leaves", "Mitosis\nCells divide"]
    )
    texts = ocr_pdf_pages(pdf, [2, 1, 9], recognizer)
    assert texts[1].lower() == "photosynthesis in leaves"
    assert texts[2].lower().split("\n") == ["mitosis", "cells divide"]
    assert 9 not in texts


def test_ocr_pdf_pages_cancel_and_broken_pdf(
    tmp_path: Path, recognizer: RapidTextRecognizer
) -> None:
    pdf = make_image_only_pdf(tmp_path / "scan.pdf", ["Photosynthesis"])
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        ocr_pdf_pages(pdf, [1], recognizer, cancel=cancel)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 this is not really a pdf")
    with pytest.raises(UnreadableFileError):
        ocr_pdf_pages(broken, [1], recognizer)


def test_reading_order_is_rows_then_columns(recognizer: RapidTextRecognizer) -> None:
    image = _picture([((500, 40), "second"), ((40, 40), "first"), ((40, 180), "third line")])
    lines = recognizer.read(image)
    assert [t.text for t in lines] == ["first", "second", "third line"]
    assert lines_to_text(lines).split("\n") == ["first second", "third line"]
    assert all(0.5 <= t.score <= 1.0 for t in lines)


def test_boxes_are_in_the_callers_pixels_even_when_scaled_down(
    recognizer: RapidTextRecognizer,
) -> None:
    # 2560 px wide: read at 1280, boxes mapped back to the full-size picture.
    image = _picture([((1800, 400), "Window")], size=(2560, 1000))
    lines = recognizer.read(image)
    assert [t.text.lower() for t in lines] == ["window"]
    x0, y0, x1, y1 = lines[0].box
    assert 1700 < x0 < 1900 and 350 < y0 < 450 and x1 > x0 and y1 > y0


def test_small_type_keeps_its_spaces(recognizer: RapidTextRecognizer) -> None:
    # Body text of a 720p slide shown in a 640-px video: about 19 px high.
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("RGB", (640, 360), "white")
    ImageDraw.Draw(picture).text(
        (35, 100),
        "node iteration insert linear matrix",
        fill="black",
        font=ImageFont.load_default(size=19),
    )
    text = lines_to_text(recognizer.read(np.asarray(picture)))
    assert text.lower() == "node iteration insert linear matrix"


def test_blank_picture_reads_nothing_and_bad_shapes_are_refused(
    recognizer: RapidTextRecognizer,
) -> None:
    assert recognizer.read(np.full((200, 300, 3), 255, dtype=np.uint8)) == []
    with pytest.raises(UnreadableFileError):
        recognizer.read(np.zeros((200, 300), dtype=np.uint8))


def test_lines_to_text_groups_rows_from_boxes_alone() -> None:
    lines = [
        TextLine("world", 0.9, (220, 12, 320, 48)),  # same row as "hello", slightly lower
        TextLine("below", 0.9, (10, 80, 120, 116)),
        TextLine("hello", 0.9, (10, 10, 110, 46)),
    ]
    assert lines_to_text(lines) == "hello world\nbelow"
    assert lines_to_text([]) == ""
