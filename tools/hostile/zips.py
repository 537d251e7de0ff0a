"""The archives of the hostile corpus (tools/hostile/corpus.py): zip slip in every
spelling, symlink members, bombs nested and plain, 100,000 members, lying sizes, locked
members, and names or numbers of members that would make a reason many lines long."""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path

from tools.factories import make_lying_zip, make_zip_bomb
from tools.hostile.corpus import ERROR, INDEXED, Case, _rand


def _zip_with(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("ok.py", f"# {path.stem}\nprint('ok')\n")
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _locked(path: Path, members: dict[str, bytes]) -> Path:
    """A zip whose members carry the "encrypted" flag, as a password-protected one does
    (zipfile cannot write encrypted members)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at >= 0:
            data[at + offset] |= 0x1
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    return path


def hostile_zips(course: Path) -> list[Case]:
    cases: list[Case] = []
    evil = b"root:x:0:0:root:/root:/bin/bash\n"
    for name, member, what in (
        ("slip_dotdot.zip", "../../evil.py", "member path with ../"),
        ("slip_absolute.zip", "/etc/evil.py", "absolute member path"),
        ("slip_backslash.zip", "..\\..\\evil.py", "backslash ..\\ member path"),
        ("slip_drive.zip", "C:\\Windows\\evil.py", "drive-letter member path"),
        ("slip_drive_slash.zip", "c:/evil.py", "drive letter with a slash"),
        ("slip_deep.zip", "a/b/../../../evil.py", "../ that climbs out further in"),
    ):
        _zip_with(course / name, {member: evil})
        cases.append(Case(course / name, what, ERROR))

    with zipfile.ZipFile(course / "symlink_member.zip", "w") as zf:
        zf.writestr("ok.py", "def symlink_archive():\n    return 'kept'\n")
        link = zipfile.ZipInfo("passwd.py")
        link.external_attr = (0o120777 << 16) | 0x20  # S_IFLNK: the member is a link
        zf.writestr(link, "/etc/passwd")
    cases.append(Case(course / "symlink_member.zip", "a symlink member", INDEXED))

    inner = course / "inner.zip"
    make_zip_bomb(inner, megabytes=40)
    with zipfile.ZipFile(course / "nested_bomb.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("readme.md", "# A nested archive\nthe bomb is one level down\n")
        zf.write(inner, "inner.zip")
    make_zip_bomb(course / "ratio_bomb.zip", megabytes=120)
    inner.unlink()
    cases.append(Case(course / "nested_bomb.zip", "a zip bomb inside a zip", INDEXED))
    cases.append(Case(course / "ratio_bomb.zip", "120 MB of zeros in 120 KB", ERROR))
    make_lying_zip(course / "lying_sizes.zip")
    cases.append(Case(course / "lying_sizes.zip", "a member that lies about its size", ERROR))

    with zipfile.ZipFile(course / "hundred_thousand.zip", "w", zipfile.ZIP_STORED) as zf:
        for i in range(100_000):
            zf.writestr(f"m/{i}.py", "x=1\n")
    cases.append(Case(course / "hundred_thousand.zip", "100,000 tiny members", ERROR))

    (course / "empty.zip").write_bytes(b"")
    cases.append(Case(course / "empty.zip", "zero-length zip", ERROR))
    (course / "garbage.zip").write_bytes(b"PK\x03\x04" + _rand(5000, 31))
    cases.append(Case(course / "garbage.zip", "zip signature then garbage", ERROR))
    _locked(course / "encrypted_member.zip", {"secret.py": _rand(200, 32)})
    cases.append(Case(course / "encrypted_member.zip", "a password-protected member", ERROR))
    with zipfile.ZipFile(course / "odd_names.zip", "w") as zf:
        zf.writestr("nul\0name.py", "def nul_name():\n    return 1\n")
        with warnings.catch_warnings():  # zipfile warns of the duplicate: it is the point
            warnings.simplefilter("ignore")
            zf.writestr("dup.py", "def first():\n    return 1\n")
            zf.writestr("dup.py", "def second():\n    return 2\n")
        zf.writestr("binary.py", _rand(500, 33))
    cases.append(Case(course / "odd_names.zip", "NUL in a name, duplicates, binary", None))
    return cases + zip_message_cases(course)


def zip_message_cases(course: Path) -> list[Case]:
    """Archives whose member names or numbers would make a reason of many lines or pages."""
    with zipfile.ZipFile(course / "newline_names.zip", "w") as zf:
        zf.writestr("ok.py", "def newline_names():\n    return 1\n")
        link = zipfile.ZipInfo("fake\nerror: line.py")
        link.external_attr = (0o120777 << 16) | 0x20
        zf.writestr(link, "/etc/passwd")
    _zip_with(course / "newline_slip.zip", {"../\nevil.py": b"x = 1\n"})
    _zip_with(course / "long_member_name.zip", {"../" + "a" * 5000 + ".py": b"x = 1\n"})
    with zipfile.ZipFile(course / "many_skipped.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("ok.py", "def many_skipped():\n    return 1\n")
        for i in range(3000):
            zf.writestr(f"bin/{i}.py", b"\0\1\2" * 10)
    return [
        Case(course / "newline_names.zip", "a newline in a skipped member's name", INDEXED),
        Case(course / "newline_slip.zip", "a newline in an escaping member's name", ERROR),
        Case(course / "long_member_name.zip", "a 5,000-character member name", ERROR),
        Case(course / "many_skipped.zip", "3,000 members skipped", INDEXED),
    ]
