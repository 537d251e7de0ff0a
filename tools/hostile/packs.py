"""Hostile course packs (issue 27, item 4), made from a good one: truncated, tampered,
traversing, linking, oversized, bombs, too new, pickled, lying about their parts. Each must
be refused by ``coursedex pack import`` with one line (``reason``, a regular expression)
and leave the library exactly as it was (tests/engine/packs/test_hostile_packs.py).

    python tools/hostile/packs.py GOOD.cdxpack OUTDIR     # writes them and lists them

``generate(good, out)`` returns one :class:`HostilePack` per file. A variant that lies
about a part keeps the manifest as it was (the sha256 or size must give it away); one whose
lie is inside a part that the manifest must cover has its manifest rewritten to match (the
reader must find it by the part's content).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import struct
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

Parts = dict[str, bytes]


@dataclass(frozen=True, slots=True)
class HostilePack:
    path: Path
    what: str
    reason: str  # a regular expression the one-line refusal matches


def _parts(good: Path) -> Parts:
    with zipfile.ZipFile(good) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _manifest(parts: Parts) -> dict[str, object]:
    return json.loads(parts["manifest.json"])


def _write(path: Path, parts: Parts, *, rehash: bool) -> Path:
    """A zip of ``parts`` (manifest first); ``rehash``: the manifest made to match them."""
    if rehash:
        manifest = _manifest(parts)
        manifest["parts"] = {
            n: {"sha256": hashlib.sha256(b).hexdigest(), "size": len(b)}
            for n, b in sorted(parts.items())
            if n != "manifest.json"
        }
        parts = {**parts, "manifest.json": json.dumps(manifest).encode()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", parts["manifest.json"])
        for name, body in parts.items():
            if name != "manifest.json":
                zf.writestr(name, body)
    return path


def _course(parts: Parts, change: Callable[[dict[str, object]], None]) -> Parts:
    course = json.loads(parts["course.json"])
    change(course)
    return {**parts, "course.json": json.dumps(course).encode()}


def _npy(array: np.ndarray, *, pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=pickle)
    return buffer.getvalue()


def _first_source(course: dict[str, object]) -> dict[str, object]:
    sources = course["sources"]
    assert isinstance(sources, list)
    return sources[0]


def _with_member(path: Path, good: Path, info: zipfile.ZipInfo, body: bytes) -> Path:
    """The good pack with one more member, ``info`` (its name or mode is the hostile part)."""
    parts = _parts(good)
    _write(path, parts, rehash=False)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr(info, body)
    return path


def _symlink_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the mode below is read
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _lying(path: Path, parts: Parts) -> None:
    """notes.json of 4 MB whose manifest, local header and central directory all say 100
    bytes: only a reader that caps what it inflates notices."""
    body = b"# x\n" * 1024**2
    manifest = _manifest(parts)
    listed = manifest["parts"]
    assert isinstance(listed, dict)
    listed["notes.json"] = {"sha256": hashlib.sha256(body).hexdigest(), "size": 100}
    _write(
        path,
        {**parts, "notes.json": body, "manifest.json": json.dumps(manifest).encode()},
        rehash=False,
    )
    data = bytearray(path.read_bytes())
    lie = struct.pack("<I", 100)
    with zipfile.ZipFile(path) as zf:
        local = zf.getinfo("notes.json").header_offset
    data[local + 22 : local + 26] = lie
    at = data.find(b"PK\x01\x02")
    while at != -1:
        length = struct.unpack("<H", data[at + 28 : at + 30])[0]
        if data[at + 46 : at + 46 + length] == b"notes.json":
            data[at + 24 : at + 28] = lie
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))


def generate(good: Path, out: Path) -> list[HostilePack]:
    """Write the hostile packs made from ``good`` into ``out``; one case each."""
    out.mkdir(parents=True, exist_ok=True)
    data = good.read_bytes()
    parts = _parts(good)
    cases: list[HostilePack] = []

    def case(name: str, what: str, reason: str, make: Callable[[Path], object]) -> None:
        path = out / name
        make(path)
        cases.append(HostilePack(path, what, reason))

    zip_error = r"not a course pack: not a zip file \(corrupt or truncated\)"
    case(
        "half.cdxpack",
        "truncated to half",
        zip_error,
        lambda p: p.write_bytes(data[: len(data) // 2]),
    )
    case(
        "tail-cut.cdxpack", "its last 10 bytes cut", zip_error, lambda p: p.write_bytes(data[:-10])
    )
    case("empty.cdxpack", "0 bytes", zip_error, lambda p: p.write_bytes(b""))

    body = parts["course.json"]
    at = body.index(b'"title":"') + len(b'"title":"')  # a letter of a title, case flipped:
    tampered = {**parts, "course.json": body[:at] + bytes([body[at] ^ 0x20]) + body[at + 1 :]}
    case(
        "tampered.cdxpack",
        "course.json changed, manifest kept",
        r"part course\.json is not what the manifest says \(its sha256 differs\): tampered",
        lambda p: _write(p, tampered, rehash=False),
    )
    grown = {**parts, "course.json": parts["course.json"] + b" "}
    case(
        "size-lie.cdxpack",
        "course.json one byte longer than the manifest says",
        r"part course\.json is .* in the zip but .* in the manifest: tampered or damaged",
        lambda p: _write(p, grown, rehash=False),
    )
    for name, member, what in (
        ("dotdot.cdxpack", "../evil.json", "a member ../evil.json"),
        ("absolute.cdxpack", "/etc/evil.json", "a member with an absolute path"),
        ("drive.cdxpack", "C:/evil.json", "a member on drive C:"),
        ("backslash.cdxpack", "thumbs\\..\\..\\evil.json", "a member climbing out by backslashes"),
    ):
        case(
            name,
            what,
            r"zip member escapes its folder",
            lambda p, m=member: _with_member(p, good, zipfile.ZipInfo(m), b"{}"),
        )
    case(
        "symlink.cdxpack",
        "a member that is a symbolic link to /etc/passwd",
        r"a part is a symbolic link: thumbs/link\.jpg",
        lambda p: _with_member(p, good, _symlink_info("thumbs/link.jpg"), b"/etc/passwd"),
    )
    huge = _manifest(parts)
    huge_parts = huge["parts"]
    assert isinstance(huge_parts, dict)
    huge_parts["course.json"]["size"] = 10 * 1024**3
    declared_huge = {**parts, "manifest.json": json.dumps(huge).encode()}
    case(
        "declares-10GB.cdxpack",
        "a part the manifest says is 10 GB",
        r"part course\.json is 10 GB, more than the limit of 512 MB",
        lambda p: _write(p, declared_huge, rehash=False),
    )

    zeros = {**parts, "notes.json": b"\0" * 50 * 1024**2}
    case(
        "bomb.cdxpack",
        "a part of 50 MB of zeros deflated 1000:1",
        r"zip bomb: notes\.json expands 50 MB from",
        lambda p: _write(p, zeros, rehash=True),
    )
    case(
        "lying-size.cdxpack",
        "a part whose zip headers and manifest say 100 bytes; it inflates to 4 MB",
        # zipfile stops at the declared size and finds the CRC wrong; either way, refused.
        r"(zip bomb: notes\.json expands beyond 100 bytes|corrupt zip member: notes\.json)",
        lambda p: _lying(p, parts),
    )

    def sparse(path: Path) -> None:
        with path.open("wb") as f:
            f.truncate(3 * 1024**3)  # sparse: no disk used

    case(
        "dev-zero.cdxpack",
        "a link to /dev/zero (endless bytes: read whole, it takes all memory)",
        r"dev-zero\.cdxpack is not a regular file \(a device\)",
        lambda p: os.symlink("/dev/zero", p),
    )
    case(
        "fifo.cdxpack",
        "a named pipe nothing writes to (opened to read, it waits forever)",
        r"fifo\.cdxpack is not a regular file \(a named pipe\)",
        os.mkfifo,
    )
    case(
        "folder.cdxpack",
        "a folder named like a pack",
        r"folder\.cdxpack is a folder, not a file",
        lambda p: p.mkdir(),
    )
    case("3GB.cdxpack", "a pack of 3 GB", r"the pack is 3 GB, more than the limit of 2 GB", sparse)
    newer = {**_manifest(parts), "version": 99}
    case(
        "newer.cdxpack",
        "pack version 99",
        r"this pack was made by a newer Coursedex \(pack version 99; this one reads version 1\)",
        lambda p: _write(p, {**parts, "manifest.json": json.dumps(newer).encode()}, rehash=False),
    )
    other = {**_manifest(parts), "format": "something-else"}
    case(
        "other-format.cdxpack",
        "a manifest of another format",
        r"not a Coursedex course pack \(its manifest names another format\)",
        lambda p: _write(p, {**parts, "manifest.json": json.dumps(other).encode()}, rehash=False),
    )
    no_manifest = {n: b for n, b in parts.items() if n != "manifest.json"}

    def plain_zip(path: Path) -> None:
        with zipfile.ZipFile(path, "w") as zf:
            for name, body in no_manifest.items():
                zf.writestr(name, body)

    case(
        "no-manifest.cdxpack", "a zip without manifest.json", r"it has no manifest\.json", plain_zip
    )
    case(
        "unlisted.cdxpack",
        "a part the manifest does not list",
        r"the manifest does not list the part extra\.json",
        lambda p: _write(p, {**parts, "extra.json": b"{}"}, rehash=False),
    )
    lost = {n: b for n, b in parts.items() if n != "vectors.npy"}
    case(
        "lost-part.cdxpack",
        "vectors.npy listed but gone",
        r"the pack is incomplete: vectors\.npy is missing",
        lambda p: _write(p, lost, rehash=False),
    )
    vectors_header = io.BytesIO()
    dimension = np.load(io.BytesIO(parts["vectors.npy"])).shape[1]
    np.lib.format.write_array_header_1_0(
        vectors_header, {"descr": "<f4", "fortran_order": False, "shape": (10**12, dimension)}
    )
    claims_rows = {**parts, "vectors.npy": vectors_header.getvalue() + b"\0" * 4 * dimension}
    case(
        "npy-10-12-rows.cdxpack",
        "vectors.npy whose header claims 10^12 rows (a few bytes follow)",
        r"vectors\.npy holds 1000000000000 x \d+ numbers; the course needs \d+ x \d+",
        lambda p: _write(p, claims_rows, rehash=True),
    )
    pickled = {**parts, "vectors.npy": _npy(np.array([{"x": 1}], dtype=object), pickle=True)}
    case(
        "pickle.cdxpack",
        "vectors.npy a pickle (object array), manifest matching",
        r"vectors\.npy is not a plain NPY array",
        lambda p: _write(p, pickled, rehash=True),
    )
    vectors = np.load(io.BytesIO(parts["vectors.npy"]))
    short = {**parts, "vectors.npy": _npy(vectors[:-1])}
    case(
        "short-vectors.cdxpack",
        "one vector fewer than the course's segments",
        r"vectors\.npy holds \d+ x \d+ numbers; the course needs \d+ x \d+",
        lambda p: _write(p, short, rehash=True),
    )
    nan = vectors.copy()
    nan[0, 0] = np.nan
    case(
        "nan.cdxpack",
        "a vector holding NaN",
        r"vectors\.npy holds numbers that are not finite",
        lambda p: _write(p, {**parts, "vectors.npy": _npy(nan)}, rehash=True),
    )
    climbing = _course(parts, lambda c: _first_source(c).update(path="../../.bashrc"))
    case(
        "source-path.cdxpack",
        "a file whose place in the course is ../../.bashrc",
        r"course\.json: file 1: path is not a place inside the course: \.\./\.\./\.bashrc",
        lambda p: _write(p, climbing, rehash=True),
    )
    rooted = _course(parts, lambda c: _first_source(c).update(path="/home/user/.bashrc"))
    case(
        "source-absolute.cdxpack",
        "a file whose place in the course is an absolute path",
        r"course\.json: file 1: path is not a place inside the course",
        lambda p: _write(p, rooted, rehash=True),
    )
    bad_scene = _course(
        parts, lambda c: _first_source(c).update(scenes=[[0, 1000, 500, "../../x.jpg"]])
    )
    case(
        "thumbnail-name.cdxpack",
        "a scene whose thumbnail is ../../x.jpg",
        r"thumbnail '\.\./\.\./x\.jpg' is not a thumbnail's name",
        lambda p: _write(p, bad_scene, rehash=True),
    )
    wrong_kind = _course(parts, lambda c: _first_source(c).update(kind="executable"))
    case(
        "kind.cdxpack",
        "a file of a kind Coursedex does not know",
        r"kind is not a kind of file Coursedex knows",
        lambda p: _write(p, wrong_kind, rehash=True),
    )
    case(
        "not-json.cdxpack",
        "course.json that is not JSON",
        r"course\.json is not JSON",
        lambda p: _write(p, {**parts, "course.json": b"\xff\xfe{"}, rehash=True),
    )
    deep = b"[" * 100_000 + b"]" * 100_000
    case(
        "deep-json.cdxpack",
        "course.json nested 100,000 deep",
        r"course\.json is not JSON \(RecursionError\)",
        lambda p: _write(p, {**parts, "course.json": deep}, rehash=True),
    )
    two_places = json.dumps([{"source": 0, "text": "here", "at_ms": 1000, "page": 2}]).encode()
    case(
        "note-two-places.cdxpack",
        "a note at a time and on a page at once",
        r"notes\.json: note 1: more than one place",
        lambda p: _write(p, {**parts, "notes.json": two_places}, rehash=True),
    )
    elsewhere = json.dumps([{"source": 99, "text": "on no file of the pack"}]).encode()
    case(
        "note-source.cdxpack",
        "a note on file 99 of a pack of three",
        r"notes\.json: note 1: source is not a file of the pack",
        lambda p: _write(p, {**parts, "notes.json": elsewhere}, rehash=True),
    )
    return cases


if __name__ == "__main__":
    for made in generate(Path(sys.argv[1]), Path(sys.argv[2])):
        print(f"{made.path.name:28} {made.what}")
