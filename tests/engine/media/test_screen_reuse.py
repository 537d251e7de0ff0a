"""Less OCR per video, nothing lost: a slide shown again takes the text read the first time,
a keyframe showing a page of the course's deck takes the page's text, and any other picture
is still read. Real generated videos (ffmpeg) of real pictures (Pillow, PDF pages)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.config import IngestLimits, MediaConfig
from engine.importing.progress import Outcome
from engine.ingest.slides import parse_pdf
from engine.library import Library
from engine.media.deck import DeckPage, DeckPictures
from engine.media.pictures import signature
from engine.media.scenes import TextFrom, read_counts, scan_video
from engine.models.ocr import RapidTextRecognizer
from engine.types import SegmentKind
from tools.factories import make_pdf, make_srt
from tools.lecture_media import Clip, make_lecture_video, pdf_page_images, slide_image

HASHING = ["Hash tables", "Buckets are picked by hashing"]
GRAPHS = ["Graph search", "Breadth first uses a queue"]
HEAPS = ["Binary heaps", "Sifting restores the order"]
DECK = ["Merge sort\nSplit the list in halves", "Quicksort\nPartition around a pivot"]


@pytest.fixture(scope="module")
def recognizer() -> RapidTextRecognizer:
    return RapidTextRecognizer(threads=2)


def test_a_slide_shown_again_is_read_once(tmp_path: Path, recognizer: RapidTextRecognizer) -> None:
    pictures = [
        slide_image(lines, tmp_path / f"{i}.png")
        for i, lines in enumerate([HASHING, GRAPHS, HEAPS])
    ]
    order = [0, 1, 0, 2, 1]  # back to hashing after graphs, then back to graphs after heaps
    video = tmp_path / "back.mp4"
    make_lecture_video(video, [Clip(pictures[i], seconds=3) for i in order], audio=False)
    scanned = scan_video(video, tmp_path / "thumbs", "k", MediaConfig(), recognizer)
    assert [s.text_from for s in scanned] == [
        TextFrom.OCR, TextFrom.OCR, TextFrom.EARLIER, TextFrom.OCR, TextFrom.EARLIER,
    ]  # fmt: skip
    assert scanned[2].text == scanned[0].text and "buckets" in scanned[2].text.lower()
    assert scanned[4].text == scanned[1].text and "breadth" in scanned[4].text.lower()
    assert "sifting" in scanned[3].text.lower()
    assert all((tmp_path / "thumbs" / s.scene.thumbnail).is_file() for s in scanned)
    assert read_counts(scanned) == "3 frames read, 2 known (0 slide pages)"


def test_deck_pages_give_their_text_and_a_new_slide_is_still_read(
    tmp_path: Path, recognizer: RapidTextRecognizer
) -> None:
    deck = make_pdf(tmp_path / "deck.pdf", DECK, slides=True)
    pages = pdf_page_images(deck, tmp_path / "pages")
    extra = slide_image(HEAPS, tmp_path / "extra.png")  # a slide that is not in the deck
    video = tmp_path / "lecture.mp4"
    clips = [Clip(pages[0], seconds=3), Clip(extra, seconds=3), Clip(pages[1], seconds=3)]
    make_lecture_video(video, clips, audio=False)
    parsed = parse_pdf(deck, IngestLimits())
    known = DeckPictures([DeckPage(str(deck), s.page or 0, s.text) for s in parsed.segments])

    scanned = scan_video(video, tmp_path / "thumbs", "k", MediaConfig(), recognizer, deck=known)
    assert [s.text_from for s in scanned] == [TextFrom.DECK, TextFrom.OCR, TextFrom.DECK]
    assert scanned[0].text == parsed.segments[0].text
    assert scanned[0].heading == "Merge sort"
    assert scanned[2].text == parsed.segments[1].text
    assert "sifting" in scanned[1].text.lower()
    assert read_counts(scanned) == "1 frame read, 2 known (2 slide pages)"

    # Without the deck the same video is read three times: the pages' words are all there.
    plain = scan_video(video, tmp_path / "thumbs", "p", MediaConfig(), recognizer)
    assert [s.text_from for s in plain] == [TextFrom.OCR] * 3
    for page, item in zip((0, 2), (parsed.segments[0], parsed.segments[1]), strict=True):
        assert set(item.text.lower().split()) <= set(plain[page].text.lower().split())


def test_a_page_one_line_short_of_the_frame_is_not_the_same_picture(tmp_path: Path) -> None:
    # A slide build: the frame shows one more line than the page; the page's text would
    # miss it, so the frame must not match.
    short = slide_image(HASHING, tmp_path / "short.png")
    built = slide_image([*HASHING, "Chaining handles collisions"], tmp_path / "built.png")
    from PIL import Image

    short_grey = np.asarray(Image.open(short).convert("L").resize((320, 180), Image.Resampling.BOX))
    built_grey = np.asarray(Image.open(built).convert("L").resize((320, 180), Image.Resampling.BOX))
    known = DeckPictures([DeckPage(str(tmp_path / "none.pdf"), 1, "x y")])
    assert known.find(built_grey) is None  # the deck's file is missing: nothing matches
    from engine.media.pictures import PictureIndex

    index: PictureIndex[str] = PictureIndex()
    index.add(signature(short_grey), "short")
    assert index.find(signature(short_grey)) == "short"
    assert index.find(signature(built_grey)) is None


def test_an_import_gives_a_lecture_the_text_of_its_course_deck(
    library: Library, tmp_path: Path
) -> None:
    # Page 1 carries a word in white on white: in the PDF's text, not in the picture. The
    # video's scene of page 1 holds it only if the page's text was taken, not read by OCR.
    from fpdf import FPDF

    folder = tmp_path / "Algorithms"
    folder.mkdir()
    pdf = FPDF(format=(254, 142.875))
    pdf.set_auto_page_break(False)
    for page in DECK:
        pdf.add_page()
        title, body = page.split("\n")
        pdf.set_font("Helvetica", "B", 36)
        pdf.set_xy(20, 20)
        pdf.cell(text=title)
        pdf.set_font("Helvetica", size=26)
        pdf.set_xy(20, 45)
        pdf.cell(text=body)
        if page == DECK[0]:
            pdf.set_text_color(255, 255, 255)
            pdf.set_xy(20, 100)
            pdf.cell(text="Zanzibar")
            pdf.set_text_color(0, 0, 0)
    deck = folder / "slides.pdf"
    pdf.output(str(deck))
    pages = pdf_page_images(deck, tmp_path / "pages")
    make_lecture_video(
        folder / "lecture.mp4", [Clip(pages[0], seconds=4), Clip(pages[1], seconds=4)]
    )
    make_srt(folder / "lecture.srt", [(0, 3500, "We split the list."), (4000, 7500, "Pivot.")])

    report = library.ingest([folder])
    assert [f.outcome for f in report.files] == [Outcome.INDEXED, Outcome.INDEXED]
    video = library.store.catalog.source_by_path(str(folder / "lecture.mp4"))
    assert video is not None
    screens = [
        r for r in library.store.segments.of_source(video.id) if r.kind is SegmentKind.SCREEN
    ]
    assert [r.start_ms for r in screens] == [0, 4000]
    assert "Zanzibar" in screens[0].text and "Merge sort" in screens[0].text
    assert "Partition around a pivot" in screens[1].text
