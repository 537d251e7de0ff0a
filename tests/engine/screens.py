"""A lecture of three screens and no deck, as a screen recording is: the chapters and the
handout of a video read their titles off its screens."""

from __future__ import annotations

from pathlib import Path

from tools.factories import make_pdf, make_srt
from tools.lecture_media import Clip, make_lecture_video, pdf_page_images

SCREENS = (
    "Binary search trees\nsmaller keys to the left",
    "Heaps and priority queues\na parent is never larger",
    "Graph traversal\nqueues and stacks",
)
SAID = ("Search trees first.", "Then heaps.", "And then graphs.")


def screens_lecture(course: Path, scratch: Path) -> tuple[Path, list[int]]:
    """``course``/talk.mp4 showing each screen for 3 s while it is said, with the subtitles
    beside it (as a student's download has them: a transcript read, not recognised); the
    screens' deck stays in ``scratch``, out of the course. Returns the video and its cuts."""
    slides = make_pdf(scratch / "pictures.pdf", list(SCREENS), slides=True)
    frames = pdf_page_images(slides, scratch / "frames")
    course.mkdir()
    video = course / "talk.mp4"
    clips = [Clip(f, s, seconds=3) for f, s in zip(frames, SAID, strict=True)]
    cuts = make_lecture_video(video, clips)
    cues = [(cut, cut + 2_500, s) for cut, s in zip(cuts, SAID, strict=True)]
    make_srt(course / "talk.srt", cues)
    return video, cuts
