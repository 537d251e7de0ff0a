"""Turn a sentence-transformers checkpoint into Coursedex model directories (fp32 and int8).

The app never runs torch: this tool exports the checkpoint's transformer to ONNX (token
embeddings out; pooling and normalisation stay in Coursedex's embedder, as the manifest says),
copies ``tokenizer.json``, writes ``manifest.json``, then makes an int8 variant with
onnxruntime's dynamic quantization.

It runs in its own environment, because torch must be the local CPU build (uv would resolve
a CUDA one)::

    python3 -m venv .venv-export
    .venv-export/bin/pip install -r installer/export-requirements.txt
    .venv-export/bin/python tools/export_model.py CHECKPOINT_DIR OUT_DIR --name my-model

This writes ``OUT_DIR/my-model/`` (fp32) and ``OUT_DIR/my-model-int8/``; copy either into the
models folder (``coursedex models list`` shows it) to use it.
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # engine.models.manifest needs only the standard library

from engine.models.manifest import (  # noqa: E402
    ModelManifest,
    ModelRole,
    Pooling,
    file_entry,
)

logger = logging.getLogger("export_model")

OPSET = 17
_PROBE = ["Exporting a sentence encoder.", "A second, somewhat longer probe sentence for shapes."]


def _pooling(model: Any) -> tuple[Pooling, bool]:
    """Pooling mode and whether the pipeline L2-normalizes, read off the loaded modules."""
    pooling: Pooling | None = None
    normalize = False
    for module in model:
        kind = type(module).__name__
        if kind == "Normalize":
            normalize = True
        if kind != "Pooling":
            continue
        config = module.get_config_dict()
        mode = config.get("pooling_mode")
        if mode is None:  # sentence-transformers < 5: one flag per mode
            flags = [k for k, v in config.items() if k.startswith("pooling_mode_") and v]
            mode = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}.get(
                flags[0] if len(flags) == 1 else "", "+".join(flags)
            )
        if mode not in ("mean", "cls"):
            raise SystemExit(f"pooling {mode!r} is not supported (mean or cls only)")
        pooling = Pooling(mode)
    if pooling is None:
        raise SystemExit("the checkpoint has no Pooling module")
    return pooling, normalize


class _TokenStates:
    """Wraps the Hugging Face encoder so the graph has exactly our three inputs."""

    @staticmethod
    def build(encoder: Any, with_types: bool) -> Any:
        import torch  # pyright: ignore[reportMissingImports]

        class TokenStates(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.encoder = encoder

            def forward(
                self,
                input_ids: torch.Tensor,
                attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor | None = None,
            ) -> torch.Tensor:
                kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
                if with_types:
                    kwargs["token_type_ids"] = token_type_ids
                return self.encoder(**kwargs).last_hidden_state

        return TokenStates().eval()


def export_fp32(
    checkpoint: Path,
    out: Path,
    name: str,
    *,
    max_length: int | None,
    query_prefix: str | None,
    document_prefix: str | None,
) -> ModelManifest:
    import numpy as np
    import onnxruntime as ort
    import torch  # pyright: ignore[reportMissingImports]
    from sentence_transformers import (  # pyright: ignore[reportMissingImports]
        SentenceTransformer,
    )

    model = SentenceTransformer(
        str(checkpoint), device="cpu", model_kwargs={"attn_implementation": "eager"}
    )
    encoder = model[0].auto_model.eval()
    pooling, normalize = _pooling(model)
    with_types = "token_type_ids" in inspect.signature(encoder.forward).parameters
    input_names = ["input_ids", "attention_mask"] + (["token_type_ids"] if with_types else [])
    wrapper = _TokenStates.build(encoder, with_types)

    out.mkdir(parents=True, exist_ok=False)
    probe = model.tokenizer(_PROBE, padding=True, return_tensors="pt")
    args = tuple(
        probe[k] if k in probe else torch.zeros_like(probe["input_ids"]) for k in input_names
    )
    dynamic = {k: {0: "batch", 1: "sequence"} for k in input_names}
    dynamic["last_hidden_state"] = {0: "batch", 1: "sequence"}
    onnx_path = out / "model.onnx"
    with torch.no_grad():
        torch.onnx.export(
            wrapper,
            args,
            str(onnx_path),
            input_names=input_names,
            output_names=["last_hidden_state"],
            dynamic_axes=dynamic,
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,  # the TorchScript exporter: no onnxscript dependency
        )
        reference = wrapper(*args).numpy()
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    feeds = {k: v.numpy().astype(np.int64) for k, v in zip(input_names, args, strict=True)}
    states = np.asarray(session.run(["last_hidden_state"], feeds)[0])
    diff = float(np.abs(states - reference).max())
    logger.info("fp32 ONNX vs torch: max abs difference %.2e", diff)
    if diff > 1e-3:
        raise SystemExit(f"the exported graph disagrees with torch (max abs diff {diff})")

    _copy_tokenizer(checkpoint, model, out / "tokenizer.json")
    prompts = getattr(model, "prompts", None) or {}
    manifest = ModelManifest(
        name=name,
        role=ModelRole.EMBEDDER,
        files={f: file_entry(out / f) for f in ("model.onnx", "tokenizer.json")},
        dimension=int(model.get_sentence_embedding_dimension() or states.shape[-1]),
        pooling=pooling,
        normalize=normalize,
        max_length=max_length or int(model.max_seq_length),
        query_prefix=query_prefix if query_prefix is not None else prompts.get("query", ""),
        document_prefix=(
            document_prefix
            if document_prefix is not None
            else prompts.get("document", prompts.get("passage", ""))
        ),
        source=f"exported from {checkpoint.name} (fp32, opset {OPSET}) by tools/export_model.py",
    )
    manifest.write(out)
    return manifest


def _copy_tokenizer(checkpoint: Path, model: Any, dest: Path) -> None:
    shipped = checkpoint / "tokenizer.json"
    if shipped.is_file():
        shutil.copyfile(shipped, dest)
        return
    with tempfile.TemporaryDirectory() as tmp:  # older checkpoints: only vocab.txt
        model.tokenizer.save_pretrained(tmp)
        made = Path(tmp) / "tokenizer.json"
        if not made.is_file():
            raise SystemExit("the checkpoint's tokenizer cannot be saved as tokenizer.json")
        shutil.copyfile(made, dest)


def quantize_int8(fp32: Path, out: Path, name: str) -> ModelManifest:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    base = ModelManifest.load(fp32)
    out.mkdir(parents=True, exist_ok=False)
    # Per-channel scales with reduced range: on all-MiniLM-L6-v2 this keeps the cosine to
    # sentence-transformers at >= 0.98 (per-tensor int8 dropped to 0.88 on some sentences),
    # and reduce_range avoids int8 saturation on CPUs without VNNI.
    quantize_dynamic(
        str(fp32 / "model.onnx"),
        str(out / "model.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
    )
    shutil.copyfile(fp32 / "tokenizer.json", out / "tokenizer.json")
    manifest = ModelManifest(
        name=name,
        role=base.role,
        files={f: file_entry(out / f) for f in ("model.onnx", "tokenizer.json")},
        dimension=base.dimension,
        pooling=base.pooling,
        normalize=base.normalize,
        max_length=base.max_length,
        query_prefix=base.query_prefix,
        document_prefix=base.document_prefix,
        source=base.source.replace("(fp32,", "(int8 dynamic quantization,"),
    )
    manifest.write(out)
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("checkpoint", type=Path, help="sentence-transformers model folder")
    parser.add_argument("out", type=Path, help="folder to write the model directories into")
    parser.add_argument("--name", required=True, help="model name (the int8 one gets -int8)")
    parser.add_argument("--max-length", type=int, default=None, help="default: the model's")
    parser.add_argument("--query-prefix", default=None)
    parser.add_argument("--document-prefix", default=None)
    parser.add_argument("--no-int8", action="store_true", help="skip the int8 variant")
    args = parser.parse_args(argv)
    # onnxruntime's quantizer logs a line per tensor at INFO: keep only our own progress.
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logger.setLevel(logging.INFO)

    fp32_dir = args.out / args.name
    fp32 = export_fp32(
        args.checkpoint,
        fp32_dir,
        args.name,
        max_length=args.max_length,
        query_prefix=args.query_prefix,
        document_prefix=args.document_prefix,
    )
    written = {"fp32": {"path": str(fp32_dir), "model_id": fp32.model_id}}
    if not args.no_int8:
        int8_dir = args.out / f"{args.name}-int8"
        int8 = quantize_int8(fp32_dir, int8_dir, f"{args.name}-int8")
        written["int8"] = {"path": str(int8_dir), "model_id": int8.model_id}
    print(json.dumps(written, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
