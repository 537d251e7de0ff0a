"""The read step of an import (engine/importing/reading.py), its Reader built directly: a
file's text from its parser, its speech transcribed in a child process and kept part by
part in the library, pages without a text layer read with OCR only when screen text is on,
a video's scenes and on-screen text.

Everything is real: a Store on a temporary folder, espeak-ng speech, Whisper tiny.en in its
child process, RapidOCR.
"""

from __future__ import annotations

import hashlib
import wave
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from engine.errors import UnreadableFileError
from engine.importing.progress import Stage
from engine.importing.reading import Reader
from engine.models.ocr import RapidTextRecognizer, TextRecognizer
from engine.models.registry import ModelRegistry
from engine.store import Store
from engine.types import SegmentDraft, SegmentKind, SourceKind
from tests.english import english
from tests.heard import heard_share
from tools.factories import make_image_only_pdf
from tools.lecture_media import Clip, make_lecture_video, slide_image, speak

SPEECH = "faster-whisper-tiny.en"
FIRST = "The octopus has three hearts."
ON_SCREEN_ONLY = "marmalade"  # on the slide, never said
SECOND = "Paris is the capital city of France."


@dataclass
class Stages:
    """The stages a read reported, in order."""

    seen: list[Stage] = field(default_factory=list)

    def __call__(self, stage: Stage, stage_fraction: float | None = None, detail: str = "") -> None:
        self.seen.append(stage)


@dataclass
class Recognizers:
    """The library's text readers as the import gets them: real RapidOCR, each request kept."""

    asked: list[bool] = field(default_factory=list)  # each request's ``alongside``

    def __call__(self, threads: int, *, alongside: bool = False) -> TextRecognizer:
        self.asked.append(alongside)
        return RapidTextRecognizer(threads=threads)


@dataclass(frozen=True)
class Lecture:
    """Two spoken sentences one after the other; the second starts at ``second_ms``."""

    path: Path
    sha: str
    second_ms: int


@pytest.fixture(scope="module")
def lecture(tmp_path_factory: pytest.TempPathFactory) -> Lecture:
    folder = tmp_path_factory.mktemp("speech")
    first, second = folder / "first.wav", folder / "second.wav"
    second_ms = speak(FIRST, first)
    speak(SECOND, second)
    path = folder / "lecture.wav"
    frames = []
    for part in (first, second):
        with wave.open(str(part), "rb") as w:
            params = w.getparams()
            frames.append(w.readframes(w.getnframes()))
    with wave.open(str(path), "wb") as out:
        out.setparams(params)
        out.writeframes(b"".join(frames))
    return Lecture(path, hashlib.sha256(path.read_bytes()).hexdigest(), second_ms)


@pytest.fixture(scope="module")
def speech_models(models_dir: Path) -> ModelRegistry:
    registry = ModelRegistry(models_dir)
    registry.path(SPEECH)  # installed once for the module
    return registry


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(tmp_path / "library.db")
    yield store
    store.close()


def _reader(
    store: Store,
    models: ModelRegistry,
    folder: Path,
    recognizer: Recognizers | None = None,
    *,
    screen_text: bool = True,
) -> Reader:
    config = english()
    config = replace(config, media=replace(config.media, screen_text=screen_text))
    return Reader(store, config, models, folder / "thumbs", recognizer or Recognizers())


def _text(segments: tuple[SegmentDraft, ...]) -> str:
    return " ".join(s.text for s in segments).lower()


def test_a_notes_file_is_parsed_into_segments_without_speech(
    store: Store, models_dir: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "week1.md"
    notes.write_text("# Week one\n\nThe axolotl regenerates its limbs.\n", encoding="utf-8")
    stages = Stages()
    reader = _reader(store, ModelRegistry(models_dir), tmp_path)
    try:
        parsed = reader.read(notes, "notes-sha", transcribe=False, stage=stages, cancel=None)
    finally:
        reader.close()
    assert parsed.kind is SourceKind.NOTES and parsed.speech_model is None
    assert [s.kind for s in parsed.segments] == [SegmentKind.NOTE]
    assert "axolotl regenerates" in parsed.segments[0].text
    assert parsed.segments[0].heading == "Week one"
    assert Stage.TRANSCRIBING not in stages.seen
    assert store.conn.execute("SELECT count(*) FROM transcript_parts").fetchone()[0] == 0


def test_speech_is_kept_part_by_part_and_a_second_read_does_not_hear_it_again(
    store: Store, speech_models: ModelRegistry, lecture: Lecture, tmp_path: Path
) -> None:
    first = Stages()
    reader = _reader(store, speech_models, tmp_path)
    try:
        parsed = reader.read(lecture.path, lecture.sha, transcribe=True, stage=first, cancel=None)
    finally:
        reader.close()
    assert parsed.kind is SourceKind.AUDIO and parsed.speech_model == SPEECH
    assert heard_share(_text(parsed.segments), f"{FIRST} {SECOND}") >= 0.5, parsed.segments
    assert Stage.TRANSCRIBING in first.seen
    kept = store.recordings.transcript_parts(lecture.sha, SPEECH, "en")
    assert kept and heard_share(" ".join(p.text for p in kept), FIRST) >= 0.6, kept
    finished = store.recordings.transcript_finished(lecture.sha, SPEECH, "en")
    assert finished is not None and finished.language == "en"

    # A new run (a new Reader, as after a restart) finds the finished transcript.
    again = Stages()
    reader = _reader(store, speech_models, tmp_path)
    try:
        reread = reader.read(lecture.path, lecture.sha, transcribe=True, stage=again, cancel=None)
    finally:
        reader.close()
    assert Stage.TRANSCRIBING not in again.seen
    assert store.recordings.transcript_parts(lecture.sha, SPEECH, "en") == kept
    assert reread.segments == parsed.segments and reread.speech_model == SPEECH


def test_a_transcript_kept_in_part_resumes_where_it_stopped(
    store: Store, speech_models: ModelRegistry, lecture: Lecture, tmp_path: Path
) -> None:
    # What a killed import left: its first sentence heard (here as other words, so the
    # text shows where each part came from), the transcript not finished.
    planted = "The zebra has stripes."
    store.recordings.add_transcript_part(
        lecture.sha, SPEECH, 0, lecture.second_ms, planted, [], asked="en"
    )
    reader = _reader(store, speech_models, tmp_path)
    try:
        parsed = reader.read(
            lecture.path, lecture.sha, transcribe=True, stage=Stages(), cancel=None
        )
    finally:
        reader.close()
    text = _text(parsed.segments)
    assert "zebra" in text and heard_share(text, SECOND) >= 0.5, text
    assert heard_share(text, FIRST) == 0, text  # the part kept was not recognised again
    kept = store.recordings.transcript_parts(lecture.sha, SPEECH, "en")
    assert kept[0].text == planted and len(kept) > 1
    assert all(p.start_ms >= lecture.second_ms for p in kept[1:])
    assert store.recordings.transcript_finished(lecture.sha, SPEECH, "en") is not None


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PDF of one page with no text layer."""
    return make_image_only_pdf(tmp_path_factory.mktemp("scan") / "scan.pdf", ["Photosynthesis"])


@pytest.mark.parametrize("screen_text", [False, True])
def test_pages_without_text_are_read_only_when_screen_text_is_on(
    store: Store, models_dir: Path, scanned: Path, tmp_path: Path, screen_text: bool
) -> None:
    recognizers, stages = Recognizers(), Stages()
    reader = _reader(
        store, ModelRegistry(models_dir), tmp_path, recognizers, screen_text=screen_text
    )
    try:
        parsed = reader.read(scanned, "scan-sha", transcribe=False, stage=stages, cancel=None)
    finally:
        reader.close()
    (page,) = parsed.segments
    assert page.page == 1
    if screen_text:
        assert page.text.lower() == "photosynthesis" and not page.needs_ocr
        assert recognizers.asked and Stage.READING_PAGES in stages.seen
    else:
        assert page.needs_ocr and not page.text.strip()
        assert not recognizers.asked and Stage.READING_PAGES not in stages.seen


def test_a_video_without_an_audio_track_is_unreadable_with_a_one_line_reason(
    store: Store, speech_models: ModelRegistry, tmp_path: Path
) -> None:
    picture = slide_image(["Title", "body"], tmp_path / "slide.png", size=(320, 180))
    silent = tmp_path / "silent.mp4"
    make_lecture_video(silent, [Clip(picture, seconds=1.0)], audio=False, fps=5)
    reader = _reader(store, speech_models, tmp_path)
    try:
        with pytest.raises(UnreadableFileError) as caught:
            reader.read(silent, "silent-sha", transcribe=True, stage=Stages(), cancel=None)
    finally:
        reader.close()
    reason = str(caught.value)
    assert "no audio track" in reason and "\n" not in reason
    for table in ("transcript_parts", "transcripts"):  # in no model and no language
        assert store.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0


@pytest.fixture(scope="module")
def narrated_slide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A video of one slide whose last line is only on screen, with a spoken sentence."""
    folder = tmp_path_factory.mktemp("video")
    picture = slide_image(
        ["Marine biology", f"Example: {ON_SCREEN_ONLY}"], folder / "slide.png", size=(640, 360)
    )
    video = folder / "octopus.mp4"
    make_lecture_video(video, [Clip(picture, FIRST, seconds=2.0)], fps=5)
    return video


@pytest.mark.parametrize("screen_text", [True, False])
def test_a_videos_frames_are_read_alongside_its_speech_when_screen_text_is_on(
    store: Store,
    speech_models: ModelRegistry,
    narrated_slide: Path,
    tmp_path: Path,
    screen_text: bool,
) -> None:
    recognizers, stages = Recognizers(), Stages()
    reader = _reader(store, speech_models, tmp_path, recognizers, screen_text=screen_text)
    try:
        parsed = reader.read(
            narrated_slide, "video-sha", transcribe=True, stage=stages, cancel=None
        )
        scenes = reader.scan_frames(narrated_slide, "video-sha", stages, None)
    finally:
        reader.close()
    assert parsed.kind is SourceKind.VIDEO and heard_share(_text(parsed.segments), FIRST) >= 0.6
    assert ON_SCREEN_ONLY not in _text(parsed.segments)  # the speech never says it
    assert scenes and scenes[0].scene.start_ms == 0
    on_screen = " ".join(s.text for s in scenes).lower()
    if screen_text:
        assert recognizers.asked == [True]  # one reader, for the frames alongside the speech
        assert ON_SCREEN_ONLY in on_screen
        assert Stage.READING_SCREEN in stages.seen
    else:
        assert recognizers.asked == [] and not on_screen.strip()
