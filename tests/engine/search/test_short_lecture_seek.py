"""Where a short lecture plays from (issue 36, item 11): a 22-s lecture of six narrated slides
(espeak-ng speaks, tiny.en hears, the frames are read), with no deck beside it, so the text
on its slides is on-screen text of the lecture itself.

"backpropagation chain rule gradient" played from 00:19, the last 3 s, where the slide
titled with those words comes up; the answer ("It computes the gradient ... with the chain
rule") is said from 00:15. The window opens a lecture's row at its first hit: what the
lecture says of it comes first. Its first and last sentences play from their own start.
Times are checked with margins against the clips' starts, never on one decoded word.
"""

from __future__ import annotations

from pathlib import Path

from engine.library import Library
from engine.search import SearchResult
from engine.search.results import moment_ms
from engine.types import SegmentKind
from tests.places import at_moment
from tools.lecture_media import Clip, make_lecture_video, slide_image

SLIDES = (
    (["Neural networks", "week three"], "Welcome back to the neural networks course."),
    (
        ["Last week", "two hidden layers"],
        "Last week we built a network with two hidden layers and a softmax output.",
    ),
    (["Today", "training"], "Today we train it with backpropagation."),
    (["Learning from mistakes"], "Backpropagation is how the network learns from its mistakes."),
    (
        ["How it works"],
        "It computes the gradient of the loss for every weight with the chain rule.",
    ),
    (
        ["Backpropagation", "chain rule", "gradient"],
        "Then gradient descent moves each weight downhill.",
    ),
)
ANSWER, LAST = 4, 5


def _first_on(results: list[SearchResult], video: Path) -> SearchResult:
    """The lecture's first hit: where its row in the window plays from."""
    return next(r for r in results if r.source == str(video))


def test_a_short_lecture_plays_its_answer_and_its_first_and_last_sentences_from_their_start(
    library: Library, tmp_path: Path
) -> None:
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    clips = [
        Clip(slide_image(lines, pictures / f"{i}.png", size=(640, 360)), said, pad_s=0.3)
        for i, (lines, said) in enumerate(SLIDES)
    ]
    video = tmp_path / "Deep learning" / "training.mp4"
    video.parent.mkdir()
    starts = make_lecture_video(video, clips, fps=5)
    assert 20_000 <= starts[-1] + 3_000 <= 24_000  # a 22-s lecture, its last clip 3 s long
    library.ingest([video.parent])
    on_screen = library.search("backpropagation chain rule gradient", limit=10).results
    # Its last slide's title is the question: read off the frames, it is found.
    assert any(
        r.kind == SegmentKind.SCREEN and moment_ms(r.place) == starts[LAST] for r in on_screen
    )

    answer = _first_on(on_screen, video)
    assert answer.kind == SegmentKind.TRANSCRIPT, answer
    assert starts[ANSWER] - 1_000 <= at_moment(answer).start_ms < starts[LAST] - 1_000, (
        answer,
        starts,
    )

    first = _first_on(library.search("welcome back neural networks course").results, video)
    assert first.kind == SegmentKind.TRANSCRIPT
    assert at_moment(first).start_ms < starts[1] - 1_000, (first, starts)

    last = _first_on(library.search("gradient descent moves each weight downhill").results, video)
    assert last.kind == SegmentKind.TRANSCRIPT
    assert starts[LAST] - 1_000 <= at_moment(last).start_ms < starts[LAST] + 1_500, (last, starts)
