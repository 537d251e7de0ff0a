"""What a pack may write into a library that holds files already (issue 34): what the user
indexed from their own files is theirs. A pack adds a course, or adds to one only what is
not there yet; a file of the library's is never given the pack's text.

Each of the pack's files, at the place :class:`engine.packs.media.MediaFinder` chose, is

- **kept** when the library has indexed the same content (sha256): its text, vectors and
  scenes stay as they are, whatever the pack says of them, and the pack's notes on it are
  added there (a record whose file the pack found elsewhere follows it there);
- a **conflict** when the library holds other content at that path, or a file of other
  content is there: nothing of it is written, and the summary names it;
- **written** otherwise: a file new to the library, or one whose earlier record never
  finished indexing.

The decision is made by path and content alone, never by course name: "Biology" and
"biology", or two courses of any names, cannot make one file's record another's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum

from engine.packs.format import PackSource
from engine.packs.media import Place
from engine.plain_text import printable
from engine.store import Source
from engine.types import SourceStatus


class Verdict(StrEnum):
    WRITE = "write"
    KEEP = "keep"
    CONFLICT = "conflict"


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Verdict
    why: str = ""  # a conflict's: what is there instead, in one line

    @property
    def writes(self) -> bool:
        return self.verdict is Verdict.WRITE

    @property
    def keeps(self) -> bool:
        return self.verdict is Verdict.KEEP


WRITE = Decision(Verdict.WRITE)
KEEP = Decision(Verdict.KEEP)


def decide(source: PackSource, place: Place, taken: Source | None) -> Decision:
    """What becomes of ``source`` at ``place``; ``taken`` is the library's record at that
    path, if any (``place.twin`` is its record of the same content, if any)."""
    path = printable(str(place.path))
    if taken is not None and taken.sha256 != source.sha256:
        return Decision(
            Verdict.CONFLICT,
            f"the library holds other content at {path} (course {printable(taken.course)!r})",
        )
    twin = place.twin
    if twin is not None and twin.status == SourceStatus.INDEXED:
        return KEEP
    if not place.here and os.path.lexists(place.path):
        return Decision(Verdict.CONFLICT, f"{path} is a file of other content")
    return WRITE
