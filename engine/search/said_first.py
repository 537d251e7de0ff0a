"""A lecture's answer is what it says: its strong spoken hit goes before the text read off
its frames.

Text on screen (a slide's title over a video with no deck beside it) repeats a question's
words more closely than speech does, so it ranks first; but it plays from the moment the
slide appears, which may be after the answer was said ("backpropagation chain rule
gradient" on a 22-s lecture: the title slide of its last 3 s came up at 00:19, the sentence
"It computes the gradient ... with the chain rule" starts at 00:15). The window opens a
lecture's row at its first hit, so the spoken one must come first.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.search.handoff import Candidate
from engine.types import SegmentKind


def said_first(
    hits: Sequence[Candidate], strong: Sequence[bool]
) -> tuple[list[Candidate], list[bool]]:
    """``hits`` (and their strengths) with each strong on-screen hit of a lecture preceded
    by the first strong spoken hit of the same lecture ranked below it. Strong hits stay a
    prefix: a strong hit is only moved up among strong ones."""
    moved: set[int] = set()
    order: list[int] = []
    for i, hit in enumerate(hits):
        if i in moved:
            continue
        if hit.row.kind == SegmentKind.SCREEN and strong[i]:
            spoken = next(
                (
                    j
                    for j in range(i + 1, len(hits))
                    if strong[j]
                    and j not in moved
                    and hits[j].row.kind == SegmentKind.TRANSCRIPT
                    and hits[j].row.source_id == hit.row.source_id
                ),
                None,
            )
            if spoken is not None:
                moved.add(spoken)
                order.append(spoken)
        order.append(i)
    return [hits[i] for i in order], [strong[i] for i in order]
