"""`coursedex export handout`: the demo lecture's handout (HTML and Markdown) has its
chapters, a picture of each slide shown, every time as a coursedex:// link and the text
escaped; errors are one line. Real library (the demo course, its video transcribed by
tiny.en), real PDFs and subtitles, the real command in-process."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from engine.cli import main
from engine.integrations.handout import build_handout
from engine.integrations.handout_render import handout_html, write_handout
from engine.integrations.links import parse_link
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.types import SourceKind
from tests.conftest import opened_copy
from tests.engine.screens import screens_lecture
from tools.factories import make_pdf, make_pptx, make_srt
from tools.hostile.exact import CONTROL_NOTE, CONTROL_TITLE, CONTROLS

PNG = b"\x89PNG\r\n\x1a\n"


class Page(HTMLParser):
    """What a reader of the HTML sees: headings, links, pictures, notes, and any script."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.times: list[tuple[str, str]] = []  # (href, text) of a.time
        self.images: list[str] = []
        self.chapters: list[str] = []  # the nav's titles
        self.notes: list[str] = []
        self.text: list[str] = []
        self._open: list[tuple[str, dict[str, str]]] = []
        self._buffer: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.tags.append(tag)
        if tag == "img":
            self.images.append(attributes["src"])
            return
        self._open.append((tag, attributes))
        self._buffer.append("")

    def handle_endtag(self, tag: str) -> None:
        if not self._open or self._open[-1][0] != tag:
            return
        _, attributes = self._open.pop()
        text = self._buffer.pop()
        if self._buffer:
            self._buffer[-1] += text
        inside = [t for t, _ in self._open]
        if tag == "a" and attributes.get("class") == "time":
            self.times.append((attributes["href"], text))
        elif tag == "a" and "nav" in inside and attributes.get("href", "").startswith("#"):
            self.chapters.append(text)
        elif tag == "div" and attributes.get("class") == "note":
            self.notes.append(text)

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._buffer:
            self._buffer[-1] += data


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory,
    demo_library_template: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
) -> Iterator[Library]:
    dest = tmp_path_factory.mktemp("handout") / "lib"
    with opened_copy(demo_library_template, dest, models_dir, embedder) as library:
        yield library


def _lecture(library: Library) -> str:
    return next(s.path for s in library.sources() if s.kind == SourceKind.VIDEO)


def _cli(library: Library, models: Path, *args: str) -> int:
    return main(["--library", str(library.folder), "--models", str(models), *args])


def test_the_demo_lecture_handout_has_chapters_slides_times_and_notes(
    demo: Library, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lecture = _lecture(demo)
    deck = next(s for s in demo.sources() if s.kind == SourceKind.SLIDES)
    pages = {p.page: p.title for p in demo.slide_pages(deck.path)}
    demo.add_note(lecture, 'Stable: equal keys keep their order <b>"why"</b> & how', at_ms=170_000)
    demo.add_note(lecture, "Binary search needs sorted input", at_ms=90_000)
    demo.add_note(deck.path, "Pivot: median of three", page=5)
    demo.add_note(lecture, "Review the whole lecture before the quiz")
    out = tmp_path / "handout.html"
    assert _cli(demo, models_dir, "export", "handout", "lecture-01-sorting", "-o", str(out)) == 0
    assert str(out) in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    page = Page(text)

    # The chapters are the slides shown, titled by the slides (not by a note on a page).
    chapters = demo.chapters(lecture)
    assert len(chapters) >= 6  # the demo shows 8 slides
    assert page.chapters == [c.title for c in chapters]
    assert [c.title for c in chapters] == [pages[c.page] for c in chapters if c.page]
    # One picture per slide page shown, each a PNG inside the file.
    links = demo.store.recordings.slide_links(demo.source(lecture).id)  # type: ignore[union-attr]
    assert len(page.images) == len({link.page for link in links}) >= 6
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(PNG)
    # Every time is a link to that moment of this lecture, and reads as that time.
    assert len(page.times) > 2 * len(chapters)
    duration = demo.source(lecture).duration_ms  # type: ignore[union-attr]
    for href, label in page.times:
        link = parse_link(href)
        if link.page is not None:  # the note on a slide's page
            assert (link.source, link.page, label) == (deck.path, 5, "slide 5")
            continue
        assert link.source == lecture and link.start_ms is not None
        assert 0 <= link.start_ms <= (duration or 0)
        minutes, seconds = divmod(link.start_ms // 1000, 60)
        assert label == f"{minutes:02d}:{seconds:02d}"
    words = " ".join(page.text).lower()
    assert "phone book" in words and "merge sort" in words
    # The notes in place: the whole lecture's first, the others where they were taken.
    assert page.notes == [
        "NoteReview the whole lecture before the quiz",
        "01:30NoteBinary search needs sorted input",
        '02:50NoteStable: equal keys keep their order <b>"why"</b> & how',
        "slide 5NotePivot: median of three",
    ]
    assert "&lt;b&gt;&quot;why&quot;&lt;/b&gt; &amp; how" in text
    times = [label for _, label in page.times]
    assert times.index("01:30") < times.index("02:50") < times.index("slide 5")
    between = [t for t in times if t != "slide 5" and "01:30" < t < "02:50"]
    assert between  # paragraphs said between the two notes stand between them
    assert "script" not in page.tags and "@media print" in text
    assert "<script" not in text.lower()


def test_the_markdown_handout_links_its_pictures_in_a_folder_beside_it(
    demo: Library, tmp_path: Path
) -> None:
    lecture = _lecture(demo)
    out = write_handout(build_handout(demo, lecture), tmp_path / "week 1.md", library=demo)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# lecture\\-01\\-sorting\n") or text.startswith("# lecture-01-sorting")
    pictures = re.findall(r"!\[[^\]]*\]\(<([^>]+)>\)", text)
    assert len(pictures) >= 6
    for name in pictures:
        assert name.startswith("week 1_files/")
        assert (tmp_path / name).read_bytes().startswith(PNG)
    times = re.findall(r"\[(\d\d:\d\d)\]\(<(coursedex://[^>]+)>\)", text)
    assert len(times) > 12
    assert all(parse_link(link).source == lecture for _, link in times)
    assert "## Chapters" in text
    # Written again (--force): the handout and its pictures are replaced, not refused.
    assert write_handout(build_handout(demo, lecture), out, library=demo, force=True) == out
    assert out.read_text(encoding="utf-8") == text


def test_every_text_is_escaped(library: Library, tmp_path: Path) -> None:
    course = tmp_path / "Escapes"
    course.mkdir()
    make_pdf(
        course / "slides.pdf",
        ["<script>alert(1)</script> & <T>\nvector<int> holds ints", "Second slide\nplain"],
        slides=True,
    )
    # A subtitle's <tags> are markup its import drops: what stays is < & > " as text.
    cues = (
        (0, 9_000, "Script tags: alert one, and T in angle brackets, vector of int."),
        (9_000, 18_000, 'When a < b && b > c, "a" comes first & c last.'),
        (18_000, 27_000, "The second slide: plain, nothing to escape here."),
        (27_000, 36_000, "The second slide is plain and has nothing to escape."),
    )
    lecture = make_srt(course / "lecture.srt", cues)
    library.ingest([course])
    handout = build_handout(library, str(lecture))
    text = handout_html(handout)
    assert "<script>" not in text and "<T>" not in text and "a < b" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;T&gt;" in text
    assert "When a &lt; b &amp;&amp; b &gt; c, &quot;a&quot; comes first &amp; c last." in text
    page = Page(text)
    assert "script" not in page.tags and "t" not in page.tags
    seen = "".join(page.text)
    assert "<script>alert(1)</script> & <T>" in seen
    assert 'When a < b && b > c, "a" comes first & c last.' in seen

    md = write_handout(handout, tmp_path / "escapes.md", library=library).read_text("utf-8")
    assert "\\<script\\>alert\\(1\\)\\</script\\> \\& \\<T\\>" in md
    assert "When a \\< b \\&\\& b \\> c" in md
    assert "<script>" not in md and "<T>" not in md


def test_control_characters_are_escaped_as_on_the_terminal(
    library: Library, tmp_path: Path
) -> None:
    """Issue 34, item 10: ESC and BEL of a title, a course name or a note went into the
    handout raw (a terminal that shows the .md runs them; HTML forbids them)."""
    course = tmp_path / "Course \x07\x1b[1m"
    course.mkdir()
    cues = [(i * 3000, i * 3000 + 2500, f"Sentence {i} of the talk.") for i in range(6)]
    lecture = make_srt(course / f"{CONTROL_TITLE}.srt", cues)
    library.ingest([course])
    library.add_note(str(lecture), CONTROL_NOTE, at_ms=4_000)
    handout = build_handout(library, str(lecture))
    assert "\x1b" in handout.title and "\x07" in handout.course  # the raw text, as imported
    html = handout_html(handout)
    md = write_handout(handout, tmp_path / "talk.md", library=library).read_text("utf-8")
    for text in (html, md):
        assert not [c for c in text if c in CONTROLS], [c for c in text if c in CONTROLS]
    seen = "".join(Page(html).text)
    assert "Lecture \\x1b[31mRED\\x1b[0m\\x07 \\x1b]0;owned\\x07 \\x9b2J end" in seen
    assert "note \\x00 bell\\x07 esc\\x1b[2J csi\\x9b1m del\\x7f back\\x08space cr\\rover" in seen
    assert "Course \\x07\\x1b[1m" in seen
    # Markdown escapes the backslash of each escape, so that it shows as written.
    assert "Lecture \\\\x1b\\[31mRED" in md and "bell\\\\x07 esc\\\\x1b\\[2J" in md


def test_a_lecture_without_slides_is_its_transcript(library: Library, tmp_path: Path) -> None:
    course = tmp_path / "Talks"
    course.mkdir()
    lecture = make_srt(
        course / "talk.srt",
        [(i * 3000, i * 3000 + 2500, f"Sentence {i} of the talk.") for i in range(40)],
    )
    library.ingest([course])
    handout = build_handout(library, "talk")
    assert [s.title for s in handout.shown] == ["Transcript"]
    assert handout.chapters == () and handout.shown[0].picture is None
    said = handout.shown[0].items
    assert len(said) >= 2  # paragraphs of about 70 words, not one wall of text
    page = Page(handout_html(handout))
    assert page.images == [] and len(page.times) == 1 + len(said)
    assert all(parse_link(href).source == str(lecture) for href, _ in page.times)


def test_cli_errors_are_one_line_and_fail(
    demo: Library, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    cases = {
        ("no-such-lecture", str(tmp_path / "a.html")): "no lecture named 'no-such-lecture'",
        ("lecture-01-sorting", str(tmp_path / "missing" / "a.html")): "cannot write",
        ("lecture-01-sorting", str(tmp_path)): "it is a folder, not a regular file",
        ("lecture-01-sorting", str(tmp_path / "a.pdf")): "choose .html or .md",
    }
    for (name, out), message in cases.items():
        assert _cli(demo, models_dir, "export", "handout", name, "-o", out) == 1, name
        err = capsys.readouterr().err
        assert err.startswith("coursedex: ") and message in err, err
        assert err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing half-written


def test_a_markdown_handout_s_pictures_never_go_through_a_link_into_the_library(
    demo: Library, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34, item 3: a .md handout writes its pictures in NAME_files/; a link there
    into the library's folder is refused as the handout itself would be."""
    (tmp_path / "week_files").symlink_to(demo.thumbs)
    before = sorted(p.name for p in demo.thumbs.iterdir())
    out = tmp_path / "week.md"
    capsys.readouterr()
    assert _cli(demo, models_dir, "export", "handout", "lecture-01-sorting", "-o", str(out)) == 1
    err = capsys.readouterr().err
    assert "inside the library's folder" in err and err.count("\n") == 1, err
    assert sorted(p.name for p in demo.thumbs.iterdir()) == before
    assert not out.exists()


def test_a_video_without_a_deck_shows_the_keyframe_of_each_screen(
    library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Screens"
    video, _ = screens_lecture(course, tmp_path)
    library.ingest([course])  # the deck is not in the course: no slides, its screens

    handout = build_handout(library, str(video))
    titles = [s.title.casefold() for s in handout.shown]
    assert len(titles) == 3 and "binary search trees" in titles[0] and "graph" in titles[2]
    for shown in handout.shown:
        assert shown.page is None and shown.picture is not None
        assert shown.picture.mime == "image/jpeg" and shown.picture.data[:2] == b"\xff\xd8"
    page = Page(handout_html(handout))
    assert len(page.images) == 3 and all(
        s.startswith("data:image/jpeg;base64,") for s in page.images
    )


def test_a_pptx_deck_is_shown_by_its_slides_text(library: Library, tmp_path: Path) -> None:
    course = tmp_path / "Algorithms"
    course.mkdir()
    make_pptx(
        course / "slides.pptx",
        [
            ("Bubble sort", "swap neighbours until nothing moves", ""),
            ("Merge sort", "split in halves and merge the sorted halves", ""),
        ],
    )
    cues = (
        (0, 9_000, "Bubble sort swaps neighbours until nothing moves in the list."),
        (9_000, 18_000, "Bubble sort is slow: it swaps neighbours again and again."),
        (18_000, 27_000, "Merge sort splits the list in halves and merges the sorted halves."),
        (27_000, 36_000, "Merging the sorted halves keeps merge sort stable."),
    )
    lecture = make_srt(course / "lecture.srt", cues)
    library.ingest([course])
    handout = build_handout(library, str(lecture))
    assert [(s.title, s.page, s.picture) for s in handout.shown] == [
        ("Bubble sort", 1, None),
        ("Merge sort", 2, None),
    ]
    assert "split in halves and merge the sorted halves" in handout.shown[1].slide_text
    assert handout_html(handout).count('<pre class="slide-text">') == 2
