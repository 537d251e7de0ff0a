"""A lecture's transcript written out for the user: SubRip subtitles (.srt) or plain text
with a time before each sentence (.txt). The user's notes on the lecture (engine/notes) go
in at their times, marked ``Note:``, in both."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CoursedexError
from engine.outputs import check_output, write_output
from engine.plain_text import clock, printable
from engine.types import Timing

if TYPE_CHECKING:
    from engine.library import Library
    from engine.notes import Note

TRANSCRIPT_FORMATS = ("srt", "txt")
NOTE_MARK = "Note: "  # what sets a note apart from what was said
NOTE_SHOWN_MS = 4000  # how long a note's subtitle stays on screen


def note_times(notes: Sequence[Note]) -> list[Timing]:
    """The notes at a time of a lecture (``Library.notes(source=path)``), as timed lines."""
    return [
        Timing(n.place.at_ms, n.place.at_ms, n.text) for n in notes if n.place.at_ms is not None
    ]


def _with_notes(lines: Sequence[Timing], notes: Sequence[Timing]) -> list[Timing]:
    """The transcript's lines and the notes, marked, in time order (a note after what was
    said from the same moment)."""
    marked = [
        Timing(n.start_ms, max(n.end_ms, n.start_ms + NOTE_SHOWN_MS), NOTE_MARK + n.text.strip())
        for n in notes
        if n.text.strip()
    ]
    return sorted([*lines, *marked], key=lambda t: t.start_ms)


def _srt_time(ms: int) -> str:
    ms = max(0, ms)
    seconds, ms = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d},{ms:03d}"


def transcript_srt(lines: Sequence[Timing], notes: Sequence[Timing] = ()) -> str:
    """SubRip: numbered cues, ``HH:MM:SS,mmm --> HH:MM:SS,mmm``, a blank line between; each
    note a cue of its own at its time (a player shows it beside what is said)."""
    cues = []
    timed = _with_notes(lines, notes)
    for number, line in enumerate((t for t in timed if t.text.strip()), start=1):
        end = max(line.end_ms, line.start_ms + 1)  # a cue must not end before it starts
        # A blank line ends a cue, so a line break inside the text must not leave one.
        text = "\n".join(part for part in line.text.strip().splitlines() if part.strip())
        cues.append(f"{number}\n{_srt_time(line.start_ms)} --> {_srt_time(end)}\n{text}\n")
    return "\n".join(cues)


def transcript_text(lines: Sequence[Timing], title: str = "", notes: Sequence[Timing] = ()) -> str:
    """Plain text: the title, then ``[mm:ss] sentence`` per line, and ``[mm:ss] Note: ...``
    for each note."""
    head = [title, ""] if title else []
    timed = _with_notes(lines, notes)
    body = [f"[{clock(t.start_ms)}] {' '.join(t.text.split())}" for t in timed if t.text.strip()]
    return "\n".join([*head, *body]) + "\n"


def write_transcript(
    lines: Sequence[Timing],
    dest: Path,
    title: str = "",
    notes: Sequence[Timing] = (),
    *,
    library: Library | None,
    force: bool = False,
) -> Path:
    """Write ``lines`` to ``dest`` as .srt or .txt (by its suffix), atomically, in UTF-8,
    with ``notes`` (:func:`note_times`) at their times, only where
    :func:`~engine.outputs.check_output` allows (``library``'s, ``force``).

    Raises:
        CoursedexError: the suffix is neither .srt nor .txt, the target is refused, or the
            file cannot be written.
    """
    given, dest = dest, check_output(dest, library, force=force)
    suffix = dest.suffix.lower().lstrip(".")
    if suffix not in TRANSCRIPT_FORMATS:
        raise CoursedexError(
            f"cannot export a transcript as .{printable(suffix)}: choose .srt or .txt"
        )
    text = transcript_srt(lines, notes) if suffix == "srt" else transcript_text(lines, title, notes)
    write_output(
        given,
        dest,
        lambda tmp: tmp.write_text(text, encoding="utf-8", newline="\n"),
        library,
        force=force,
    )
    return dest
