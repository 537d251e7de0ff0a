"""Documents (.docx, .odt, .rtf, saved web pages, .epub), .odp slides and photos: each read
from a real file made here, searchable at its place (heading and lines, page, chapter), and
shown at that place by the text the preview reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.api import IngestProgress, Library, Outcome, SegmentKind, SourceKind, Stage
from engine.config import EngineConfig
from engine.errors import UnreadableFileError
from engine.ingest import classify, parse_file
from engine.ingest.documents import document_text
from tests.places import at_lines, locators
from tools.document_files import (
    make_docx,
    make_epub,
    make_html,
    make_odp,
    make_odt,
    make_photo,
    make_rtf,
)
from tools.factories import damaged_copies

CONFIG = EngineConfig()
SECTIONS = [
    ("Backpropagation", ["The chain rule carries the gradient backwards through each layer."]),
    ("Regularisation", ["Dropout switches off random units while the network trains."]),
]


def _at(text: str, line: int | None) -> str:
    assert line is not None
    return text.split("\n")[line - 1]


def test_docx_headings_paragraphs_tables_and_comments(tmp_path: Path) -> None:
    path = make_docx(
        tmp_path / "handout.docx",
        SECTIONS,
        title="Week 3 handout",
        table=[["term", "meaning"], ["epoch", "one pass over the training set"], ["O(1)", "O(1)"]],
        comment=("Dr Ada", "ask about the vanishing gradient"),
    )
    parsed = parse_file(path, CONFIG)
    assert (parsed.kind, parsed.title) == (SourceKind.NOTES, "Week 3 handout")
    by_heading = {s.heading: s for s in parsed.segments}
    assert set(by_heading) == {"Backpropagation", "Regularisation"}
    first, second = by_heading["Backpropagation"], by_heading["Regularisation"]
    assert "chain rule" in first.text and "[Dr Ada] ask about the vanishing gradient" in first.text
    assert "epoch | one pass over the training set\nO(1) | O(1)" in second.text
    # The lines name the text the preview shows: the hit's first line is its first words.
    shown = document_text(path, CONFIG.limits)
    assert _at(shown, second.line_start).startswith("Dropout switches off")
    assert first.line_start is not None
    assert _at(shown, first.line_start - 2) == "# Backpropagation"


def test_docx_headings_of_styles_named_otherwise(tmp_path: Path) -> None:
    """Word in another language names its heading styles otherwise; a style based on a
    heading style is a heading of that level."""
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    doc = docx.Document()
    chapter = doc.styles.add_style("Kapitel", WD_STYLE_TYPE.PARAGRAPH)
    chapter.base_style = doc.styles["Heading 2"]  # pyright: ignore[reportAttributeAccessIssue]
    doc.add_paragraph("Einleitung", style="Kapitel")
    doc.add_paragraph("Der Gradient zeigt bergauf.")
    doc.save(str(tmp_path / "kapitel.docx"))
    parsed = parse_file(tmp_path / "kapitel.docx", CONFIG)
    assert [(s.heading, s.text) for s in parsed.segments] == [
        ("Einleitung", "Der Gradient zeigt bergauf.")
    ]
    assert "## Einleitung" in document_text(tmp_path / "kapitel.docx", CONFIG.limits)


def test_odt_and_rtf_and_epub(tmp_path: Path) -> None:
    odt = parse_file(make_odt(tmp_path / "notes.odt", SECTIONS), CONFIG)
    assert [s.heading for s in odt.segments] == ["Backpropagation", "Regularisation"]
    assert "Dropout" in odt.segments[1].text
    rtf_path = make_rtf(tmp_path / "memo.rtf", ["Café society met on Tuesday.", "Bring {braces}."])
    rtf = parse_file(rtf_path, CONFIG)
    assert rtf.title == "Café society met on Tuesday."
    assert "Bring {braces}." in rtf.segments[0].text and "\\" not in rtf.segments[0].text
    chapters = [("Chapter One: Tensors", ["A tensor generalises a matrix."]), *SECTIONS]
    book = parse_file(make_epub(tmp_path / "book.epub", "Deep Learning", chapters), CONFIG)
    assert book.title == "Deep Learning"
    assert [s.heading for s in book.segments] == [
        "Chapter One: Tensors",
        "Backpropagation",
        "Regularisation",
    ]
    assert book.segments[0].text == "A tensor generalises a matrix."


def test_saved_page_is_a_document_without_its_menus_and_scripts(tmp_path: Path) -> None:
    long_sections = [(h, [p * 4 for p in ps]) for h, ps in SECTIONS]
    page = make_html(tmp_path / "page.html", "Lecture 5", long_sections, menu=["Grades", "Inbox"])
    parsed = parse_file(page, CONFIG)
    assert (parsed.kind, parsed.title) == (SourceKind.NOTES, "Lecture 5")
    text = "\n".join(s.text for s in parsed.segments)
    assert "chain rule" in text
    for junk in ("Grades", "Inbox", "trackVisitor", "University portal", "Copyright", "float"):
        assert junk not in text
    assert [s.heading for s in parsed.segments] == [
        "Lecture 5 > Backpropagation",
        "Lecture 5 > Regularisation",
    ]


def test_a_project_template_stays_code(tmp_path: Path) -> None:
    template = tmp_path / "index.html"
    template.write_text(
        "<html><body><h1>{{ title }}</h1>{% for post in posts %}<p>{{ post.body }}</p>"
        "{% endfor %}" + "<p>" + "words of a page " * 30 + "</p></body></html>",
        encoding="utf-8",
    )
    assert classify(template) is SourceKind.CODE
    assert parse_file(template, CONFIG).kind is SourceKind.CODE
    shell = tmp_path / "app.html"
    shell.write_text("<html><body><div id='root'></div><script src='a.js'></script></body></html>")
    assert parse_file(shell, CONFIG).kind is SourceKind.CODE


def test_odp_slides_are_pages(tmp_path: Path) -> None:
    deck = make_odp(
        tmp_path / "deck.odp", [("Sorting", "Merge sort splits"), ("Heaps", "A binary heap")]
    )
    parsed = parse_file(deck, CONFIG)
    assert parsed.kind is SourceKind.SLIDES
    assert [(s.page, s.heading, s.text) for s in parsed.segments] == [
        (1, "Sorting", "Sorting\nMerge sort splits"),
        (2, "Heaps", "Heaps\nA binary heap"),
    ]


def test_a_photo_is_one_page_waiting_for_ocr(tmp_path: Path) -> None:
    from PIL import Image

    photo = parse_file(make_photo(tmp_path / "board.jpg", ["Entropy"]), CONFIG)
    assert photo.kind is SourceKind.SLIDES
    assert [(s.page, s.text, s.needs_ocr) for s in photo.segments] == [(1, "", True)]
    lying = tmp_path / "notes.png"
    lying.write_text("this is text, not a picture")
    with pytest.raises(UnreadableFileError, match="not a picture"):
        parse_file(lying, CONFIG)
    icon = tmp_path / "icon.png"
    Image.new("RGB", (64, 64), "white").save(icon)
    with pytest.raises(UnreadableFileError, match=r"too small for a photo or a scan \(64 x 64"):
        parse_file(icon, CONFIG)
    gif = tmp_path / "anim.jpg"

    Image.new("RGB", (300, 300)).save(gif, format="GIF")
    with pytest.raises(UnreadableFileError, match="not a photo: a GIF picture"):
        parse_file(gif, CONFIG)


def test_each_kind_is_searchable_at_its_place(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "Machine Learning"
    folder.mkdir()
    make_docx(folder / "handout.docx", [("Optimisers", ["Adagrad adapts the learning rate."])])
    make_odt(folder / "summary.odt", [("Kernels", ["A polynomial kernel lifts features."])])
    make_rtf(folder / "memo.rtf", ["The exam covers perceptrons."])
    make_html(
        folder / "wiki.html", "Boosting", [("AdaBoost", ["Weak learners are reweighted. " * 12])]
    )
    make_epub(folder / "book.epub", "Book", [("Chapter 7: Ensembles", ["Bagging averages."])])
    make_odp(folder / "slides.odp", [("Intro", "welcome"), ("Convolutions", "a filter slides")])
    # On its side, with the EXIF orientation a phone writes: read only if turned upright.
    make_photo(folder / "whiteboard.jpg", ["Softmax normalises logits"], rotate_exif=True)
    heard: list[IngestProgress] = []
    report = library.ingest([folder], progress=heard.append)
    # The import bar says what it reads: a photo, not "1 pages without text".
    photo = [p.detail for p in heard if p.stage == Stage.READING_PAGES]
    assert photo and set(photo) == {"a photo"}
    assert {Path(f.path).name: f.outcome for f in report.files} == {
        name: Outcome.INDEXED
        for name in (
            "handout.docx",
            "summary.odt",
            "memo.rtf",
            "wiki.html",
            "book.epub",
            "slides.odp",
            "whiteboard.jpg",
        )
    }

    def top(query: str) -> tuple[str, SegmentKind, str, int | None, int | None]:
        hit = library.search(query).results[0]
        place = locators(hit)
        return (Path(hit.source).name, hit.kind, hit.heading, place.page, place.line_start)

    assert top("adagrad learning rate")[:3] == ("handout.docx", SegmentKind.NOTE, "Optimisers")
    assert top("polynomial kernel")[:3] == ("summary.odt", SegmentKind.NOTE, "Kernels")
    assert top("perceptrons exam")[0] == "memo.rtf"
    assert top("weak learners reweighted")[:3] == (
        "wiki.html",
        SegmentKind.NOTE,
        "Boosting > AdaBoost",
    )
    assert top("bagging averages")[:3] == ("book.epub", SegmentKind.NOTE, "Chapter 7: Ensembles")
    assert top("filter slides convolutions")[:4] == (
        "slides.odp",
        SegmentKind.SLIDE,
        "Convolutions",
        2,
    )
    assert top("softmax logits")[:2] + top("softmax logits")[3:4] == (
        "whiteboard.jpg",
        SegmentKind.SLIDE,
        1,
    )
    docx_hit = library.search("adagrad").results[0]
    shown = library.source_text(docx_hit.source)
    assert _at(shown, at_lines(docx_hit).line_start).startswith("Adagrad adapts")


def test_damaged_documents_and_photos_only_raise_unreadable(tmp_path: Path) -> None:
    """Truncated and byte-flipped files of every new kind fail with our error, never
    another (a library's own exception, a recursion, a traceback)."""
    import random

    from engine.errors import CoursedexError

    rng = random.Random(35)
    long = [(h, [p * 6 for p in ps]) for h, ps in SECTIONS]
    originals = {
        "docx": make_docx(tmp_path / "g.docx", SECTIONS, table=[["a", "b"]]).read_bytes(),
        "odt": make_odt(tmp_path / "g.odt", SECTIONS).read_bytes(),
        "odp": make_odp(tmp_path / "g.odp", [("A", "b")]).read_bytes(),
        "rtf": make_rtf(tmp_path / "g.rtf", ["Café {x}", "b"]).read_bytes(),
        "html": make_html(tmp_path / "g.html", "T", long).read_bytes(),
        "epub": make_epub(tmp_path / "g.epub", "B", SECTIONS).read_bytes(),
        "png": make_photo(tmp_path / "g.png", ["A"]).read_bytes(),
        "jpg": make_photo(tmp_path / "g.jpg", ["A"]).read_bytes(),
        "webp": make_photo(tmp_path / "g.webp", ["A"]).read_bytes(),
    }
    unexpected: list[str] = []
    for ext, data in originals.items():
        for i, path in damaged_copies(data, rng, 40, tmp_path, ext):
            try:
                parse_file(path, CONFIG)
                if ext in ("png", "jpg", "webp"):
                    from engine.ingest.photos import picture_rgb

                    picture_rgb(path)
            except CoursedexError:
                pass
            except Exception as e:  # the point of the test: report any other exception
                unexpected.append(f"{ext} #{i}: {type(e).__name__}: {e}")
    assert unexpected == []
