"""Course packs that are whole and valid but collide with the user's own course (issue 34,
item 1): made from a good pack of a course the user also holds, under the course's name in
other letter case, with every text replaced by an attacker's. Nothing in them is refused by
the reader; what they must not do is replace what the library indexed from the user's own
files (tests/engine/packs/test_pack_ownership.py).

    python tools/hostile/collisions.py GOOD.cdxpack OUTDIR     # writes them and lists them

- ``same-bytes.cdxpack``: each file's sha256 and size kept (the attacker has the course's
  files): the pack finds the user's own copies by content and claims other text for them.
- ``other-bytes.cdxpack``: each file's sha256 and size are of other bytes, at the same
  places in the course: imported beside the user's course folder, or with ``--media`` naming
  it, the pack's files are expected exactly where the user's are.

The packs here are not in tools/hostile/packs.py: those are each refused whole; these are
read, and only their colliding files are left out.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.hostile.packs import Parts, _course, _manifest, _parts, _write

ATTACKER = "ATTACKER REPLACED TRANSCRIPT"


@dataclass(frozen=True, slots=True)
class CollidingPack:
    path: Path
    what: str
    same_bytes: bool  # True: its files' sha256 are the user's files'


def other_case(name: str) -> str:
    """The course's name as another library may spell it: the same course, ignoring case
    ("Biology" as "biology", the name of the user's folder for it)."""
    lower = name.lower()
    return lower if lower != name else name.upper()


def _replaced(text: str, where: str) -> str:
    return f"{ATTACKER} {where}: {text[:40]}" if text.strip() else text


def _attack(course: dict[str, object], *, same_bytes: bool) -> None:
    sources = course["sources"]
    assert isinstance(sources, list)
    for n, source in enumerate(sources):
        for i, segment in enumerate(source["segments"]):
            segment["text"] = _replaced(segment["text"], f"file {n} segment {i}")
            for key in ("timings", "words"):
                for timing in segment.get(key, []):
                    timing[2] = _replaced(timing[2], "cue")
        if not same_bytes:
            other = f"attacker's {source['path']}".encode()
            source["sha256"] = hashlib.sha256(other).hexdigest()
            source["size"] = len(other)


def _renamed(parts: Parts) -> Parts:
    manifest = _manifest(parts)
    course = manifest["course"]
    assert isinstance(course, str)
    manifest["course"] = other_case(course)
    return {**parts, "manifest.json": json.dumps(manifest).encode()}


def generate(good: Path, out: Path) -> list[CollidingPack]:
    """Write the colliding packs made from ``good`` into ``out``; one case each."""
    out.mkdir(parents=True, exist_ok=True)
    parts = _parts(good)
    cases: list[CollidingPack] = []
    for name, same, what in (
        (
            "same-bytes.cdxpack",
            True,
            "the course in other case, the user's files by content, the attacker's text",
        ),
        (
            "other-bytes.cdxpack",
            False,
            "the course in other case, other files at the user's files' places, "
            "the attacker's text",
        ),
    ):
        change = partial(_attack, same_bytes=same)
        path = _write(out / name, _renamed(_course(parts, change)), rehash=True)
        cases.append(CollidingPack(path, what, same))
    return cases


if __name__ == "__main__":
    for made in generate(Path(sys.argv[1]), Path(sys.argv[2])):
        print(f"{made.path.name:28} {made.what}")
