"""Hostile export targets (issue 34, item 3): where a pack, a handout, flashcards or a
transcript must not be written. Each is refused with one line (``reason``, a regular
expression), exit 1, and is left as it was (tests/engine/test_hostile_outputs.py).

``output_cases(library, indexed, suffix, scratch)`` makes them for one export's file
``suffix``: inside the library's folder (its database too), links into it, a file the library
indexes and a link to one, a named pipe, a folder, a socket, a device, and a plain file that
is there already (replaced only with ``--force``). No case is a device of the system: an
export writes where a link leads, and a regression must not replace the ``/dev/null`` of the
machine running the tests. As root the device is a node of our own (``mknod``, the null
device's numbers); otherwise a link to ``/dev/null``, whose folder such a user cannot write.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

INSIDE = "inside the library's folder"
INDEXED = "the library indexes that file"
EXISTS = "already exists"


@dataclass(frozen=True, slots=True)
class OutputCase:
    path: Path
    what: str  # what makes it hostile, for the report
    reason: str  # a regular expression the one-line refusal matches


def output_cases(
    library: Path, indexed: Sequence[Path], suffix: str, scratch: Path
) -> list[OutputCase]:
    """The hostile targets for an export writing ``*suffix`` files of the library in folder
    ``library``, whose indexed files include ``indexed`` (where they are: one may be indexed
    through a link, under the link's name); links, pipes and folders go in ``scratch``.
    Where an export may write is checked before its suffix is, so every export is given
    every indexed file."""
    scratch.mkdir(parents=True, exist_ok=True)
    cases = [
        OutputCase(library / "library.db", "the library's database", INSIDE),
        OutputCase(library / f"export{suffix}", "a new file inside the library's folder", INSIDE),
        OutputCase(
            _link(scratch / f"to-db{suffix}", library / "library.db"),
            "a link to the library's database",
            INSIDE,
        ),
    ]
    for n, path in enumerate(indexed):
        cases.append(OutputCase(path, f"an indexed file ({path.name})", INDEXED))
        link = _link(scratch / f"to-indexed-{n}{suffix}", path)
        cases.append(OutputCase(link, f"a link to an indexed file ({path.name})", INDEXED))
    pipe = scratch / f"pipe{suffix}"
    os.mkfifo(pipe)
    folder = scratch / f"folder{suffix}"
    folder.mkdir()
    existing = scratch / f"existing{suffix}"
    existing.write_bytes(b"the student's own file\n")
    cases += [
        OutputCase(pipe, "a named pipe", "a named pipe, not a regular file"),
        OutputCase(folder, "a folder", "a folder, not a regular file"),
        OutputCase(
            _device(scratch / f"device{suffix}"), "a device", "a device, not a regular file"
        ),
        OutputCase(existing, "a file that is there already (no --force)", EXISTS),
    ]
    sock = _socket(scratch / f"socket{suffix}")
    if sock is not None:
        cases.append(OutputCase(sock, "a socket", "a socket, not a regular file"))
    return cases


def state(path: Path) -> tuple[int, bytes | None]:
    """What a target is, to compare before and after: its type and, for a file, its bytes
    (links followed, as the export would)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return 0, None
    kind = stat.S_IFMT(st.st_mode)
    return kind, path.read_bytes() if stat.S_ISREG(st.st_mode) else None


def _link(link: Path, target: Path) -> Path:
    link.symlink_to(target)
    return link


def _device(path: Path) -> Path:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        return path
    return _link(path, Path(os.devnull))


def _socket(path: Path) -> Path | None:
    """A bound Unix socket at ``path`` (None where there are none, or the path is longer
    than a socket's ~100 bytes)."""
    if not hasattr(socket, "AF_UNIX") or len(os.fsencode(path)) > 100:
        return None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()  # the socket file stays
    return path
