"""Settings changed on an open library (``Library.configure``, the call the window's Settings
dialog makes) reach the next import, search and re-index, without opening it again.

Everything is real: espeak-ng speaks over a slide, ffmpeg muxes, Whisper transcribes in a
child process, the embedder embeds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.api import (
    AUTO_SPEECH_MODEL,
    EngineConfig,
    IngestProgress,
    Library,
    ModelRegistry,
    Outcome,
    SegmentKind,
)
from engine.models.embedder import OnnxEmbedder
from tools.lecture_media import Clip, make_lecture_video, slide_image

SPEECH = "faster-whisper-tiny.en"
COPY = "tiny-en-under-another-name"  # the same files installed as a second speech model
SPOKEN = "Plants turn sunlight into sugar in their leaves."
ON_SCREEN_ONLY = "marmalade"  # on the slide, never said


@pytest.fixture(scope="module")
def narrated_slide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A video of one slide whose last line is only on screen, with a spoken sentence."""
    folder = tmp_path_factory.mktemp("botany")
    picture = slide_image(
        ["Photosynthesis", "Chlorophyll absorbs light", f"Example: {ON_SCREEN_ONLY}"],
        folder / "slide.png",
    )
    video = folder / "photosynthesis.mp4"
    make_lecture_video(video, [Clip(picture, SPOKEN, seconds=4.0)])
    return video


@pytest.fixture(scope="module")
def two_speech_models(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> ModelRegistry:
    """A models folder where tiny.en is installed twice: as itself and as ``COPY``."""
    root = tmp_path_factory.mktemp("speech-models")
    installed = ModelRegistry(models_dir).path(SPEECH)
    shutil.copytree(installed, root / SPEECH)
    shutil.copytree(installed, root / COPY)
    manifest = json.loads((root / COPY / "manifest.json").read_text())
    manifest["name"] = COPY
    (root / COPY / "manifest.json").write_text(json.dumps(manifest))
    return ModelRegistry(root)


@pytest.fixture
def opened(
    tmp_path: Path, two_speech_models: ModelRegistry, embedder: OnnxEmbedder
) -> Iterator[Library]:
    """A library opened with the defaults: screen text read, the speech model by language."""
    library = Library.open(
        tmp_path / "lib", EngineConfig(), lambda: embedder, models=two_speech_models
    )
    yield library
    library.close()


def test_screen_text_and_speech_model_changed_reach_the_next_import(
    opened: Library, narrated_slide: Path
) -> None:
    before = opened.config
    assert before.media.screen_text and before.media.speech_model == AUTO_SPEECH_MODEL
    opened.configure(
        replace(before, media=replace(before.media, screen_text=False, speech_model=COPY))
    )
    assert opened.config.media == replace(before.media, screen_text=False, speech_model=COPY)
    sha = hashlib.sha256(narrated_slide.read_bytes()).hexdigest()
    transcribed_by: list[tuple[str, bool]] = []  # (model, finished) once the speech is read

    def progress(p: IngestProgress) -> None:
        if p.stage == "embedding" and not transcribed_by:
            for model in (SPEECH, COPY):
                finished = opened.store.recordings.transcript_finished(sha, model) is not None
                transcribed_by.append((model, finished))

    report = opened.ingest([narrated_slide], progress=progress)
    assert [f.outcome for f in report.files] == [Outcome.INDEXED], report
    assert transcribed_by == [(SPEECH, False), (COPY, True)]
    source = opened.source(str(narrated_slide))
    assert source is not None and source.speech_model == COPY  # the new model's id, kept
    kinds = opened.stats()["segments_by_kind"]
    assert isinstance(kinds, dict) and SegmentKind.TRANSCRIPT.value in kinds
    assert SegmentKind.SCREEN.value not in kinds, kinds
    assert opened.search("sunlight sugar leaves").results  # the speech was read
    hits = opened.search(ON_SCREEN_ONLY).results
    assert not [r for r in hits if r.kind is SegmentKind.SCREEN]


def _notes(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    note = folder / "zoology.md"
    note.write_text(
        "# Giraffes\n\nThe giraffe has a long neck and eats acacia leaves.\n\n"
        "# Penguins\n\nThe penguin swims in cold water and cannot fly.\n\n"
        "# Camels\n\nThe camel stores fat in its hump for long walks.\n"
    )
    return note


def test_a_search_setting_changed_reaches_the_next_search(opened: Library, tmp_path: Path) -> None:
    opened.ingest([_notes(tmp_path / "Zoology")])
    assert opened.search("penguin cold water").results[0].context is None  # neighbours off
    config = opened.config
    opened.configure(replace(config, search=replace(config.search, neighbours=True)))
    hit = opened.search("penguin cold water").results[0]
    assert hit.context is not None and "giraffe" in hit.context[0].lower()


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float32), b.astype(np.float32)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_reindex_embeds_with_the_settings_of_the_moment(
    opened: Library, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """With embed_context turned off, a re-index embeds each segment's text alone."""
    opened.ingest([_notes(tmp_path / "Zoology")])
    hit = opened.search("camel hump").results[0]
    assert hit.heading == "Camels"
    text = "The camel stores fat in its hump for long walks."
    alone, headed = embedder.embed([text, f"Camels\n{text}"])

    def stored() -> np.ndarray:
        ids, vectors = opened.store.embeddings.vectors([hit.segment_id], embedder.dimension)
        assert list(ids) == [hit.segment_id]
        return vectors[0]

    assert _cosine(stored(), headed) > 0.999  # imported with its heading
    opened.configure(replace(opened.config, embed_context=False))
    opened.reindex(embedder)
    assert _cosine(stored(), alone) > 0.999
    assert _cosine(stored(), headed) < 0.99
