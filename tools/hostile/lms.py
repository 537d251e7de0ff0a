"""Hostile course downloads: zips of course material (opened member by member, see
engine/importing/unpacking.py) that carry a bomb, a path escape, a lie or a trap in a member
or in a zip inside them. Each holds a good deck (``Week 1/slides.pdf``, the word "entropy")
beside the hostile part, so a test sees the rest imported and the hostile part named, or
the whole zip refused when what it declares is already a bomb.

Used by tests/engine/importing/test_hostile_course_zips.py; built in about a second:

    python tools/hostile/lms.py OUT     # writes the cases and lists them
"""

from __future__ import annotations

import io
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.factories import make_pdf

GOOD_PLACE = "Week 1/slides.pdf"
GOOD_WORD = "entropy"
WHOLE = None  # a case whose zip is refused whole: nothing of it is taken out


@dataclass(frozen=True, slots=True)
class LmsCase:
    path: Path
    what: str
    named: str | None  # the place named as not imported; WHOLE: the zip itself is refused
    reason: str  # words its reason holds


def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _zeros_zip(members: dict[str, bytes], name: str, megabytes: int) -> bytes:
    """A zip of ``members`` and ``name``: ``megabytes`` MB of zeros (~1000x compression)."""
    buffer = io.BytesIO()
    chunk = b"\0" * 1024**2
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for member, data in members.items():
            zf.writestr(member, data)
        with zf.open(name, "w") as f:
            for _ in range(megabytes):
                f.write(chunk)
    return buffer.getvalue()


def _lie(data: bytes, name: str, declared: int) -> bytes:
    """``data`` (a zip) with ``name``'s uncompressed size said to be ``declared`` in both
    its local header and the central directory, so only a capped reader notices."""
    out = bytearray(data)
    encoded = name.encode()
    for signature, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        at = out.find(signature)
        while at >= 0:
            if out[at + name_at : at + name_at + len(encoded)] == encoded:
                out[at + size_at : at + size_at + 4] = declared.to_bytes(4, "little")
            at = out.find(signature, at + 4)
    return bytes(out)


def _course(path: Path, extra: dict[str, bytes], slides: bytes) -> Path:
    path.write_bytes(_zip({GOOD_PLACE: slides, **extra}))
    return path


def hostile_course_zips(folder: Path) -> list[LmsCase]:
    """Write the cases into ``folder``; one LmsCase each."""
    folder.mkdir(parents=True, exist_ok=True)
    slides = make_pdf(folder / "s.pdf", ["Information\nbits", "Entropy\nexpected surprise"])
    deck = slides.read_bytes()
    slides.unlink()
    cases: list[LmsCase] = []

    bomb = _zeros_zip({"Week 9/handout.pdf": deck}, "Week 9/lecture.mp4", 60)
    cases.append(
        LmsCase(
            _course(folder / "nested_bomb.zip", {"Week 2/extra.zip": bomb}, deck),
            "a zip bomb (60 MB of zeros as a video) in a zip in the course zip",
            "Week 2/extra.zip",
            "zip bomb",
        )
    )
    cases.append(
        LmsCase(
            _course(folder / "outer_bomb.zip", {"Week 2/lecture.mp4": b"\0" * 60 * 1024**2}, deck),
            "a member video of 60 MB of zeros in the course zip itself",
            WHOLE,
            "zip bomb",
        )
    )
    escape = _zip({"handout.pdf": deck, "../../../../evil.pdf": deck, "notes.md": b"# n\n"})
    cases.append(
        LmsCase(
            _course(folder / "nested_slip.zip", {"Week 2/labs.zip": escape}, deck),
            "a path escape (../../../../evil.pdf) in a zip in the course zip",
            "Week 2/labs.zip",
            "escapes its folder",
        )
    )
    video = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 4096  # 1 MB said to be 100 bytes
    lying = _lie(_zip({GOOD_PLACE: deck, "Week 2/lecture.mp4": video}), "Week 2/lecture.mp4", 100)
    (folder / "lying_video.zip").write_bytes(lying)
    cases.append(
        LmsCase(
            folder / "lying_video.zip",
            "a member video that says it is 100 bytes and holds 1 MB",
            "Week 2/lecture.mp4",
            "corrupt",  # zipfile reads no further than the size said: its checksum fails
        )
    )
    deepest = _zip({"slides.pdf": deck, "notes.md": b"# deepest\n"})
    for level in (4, 3, 2):
        deepest = _zip({f"level{level}.pdf": deck, f"level{level + 1}.zip": deepest})
    cases.append(
        LmsCase(
            _course(folder / "too_deep.zip", {"Week 2/level2.zip": deepest}, deck),
            "zips nested five deep",
            "Week 2/level2.zip/level3.zip/level4.zip",
            "deeper than 3",
        )
    )
    return cases + _traps(folder, deck)


def _traps(folder: Path, deck: bytes) -> list[LmsCase]:
    """Members that are not files to read: a link, a locked member."""
    path = folder / "link_member.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(GOOD_PLACE, deck)
        link = zipfile.ZipInfo("Week 2/passwd.pdf")
        link.external_attr = (0o120777 << 16) | 0x20  # S_IFLNK: the member is a link
        zf.writestr(link, "/etc/passwd")
    locked = bytearray(_zip({GOOD_PLACE: deck, "Week 2/secret.pdf": deck}))
    name = b"Week 2/secret.pdf"
    for signature, flag_at, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        at = locked.find(signature)
        while at >= 0:
            if locked[at + name_at : at + name_at + len(name)] == name:
                locked[at + flag_at] |= 0x1  # the "encrypted" flag a password sets
            at = locked.find(signature, at + 4)
    (folder / "locked_member.zip").write_bytes(bytes(locked))
    return [
        LmsCase(path, "a member that is a symbolic link", "Week 2/passwd.pdf", "symbolic link"),
        LmsCase(
            folder / "locked_member.zip",
            "a password-protected member",
            "Week 2/secret.pdf",
            "password-protected",
        ),
    ]


def main(argv: list[str]) -> int:
    """``python tools/hostile/lms.py OUT``: write the cases and list them."""
    if len(argv) != 1:
        print("usage: python tools/hostile/lms.py OUT", file=sys.stderr)
        return 2
    for case in hostile_course_zips(Path(argv[0])):
        named = "the whole zip" if case.named is WHOLE else case.named
        print(f"{case.path.name}: {case.what} (refused: {named})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
