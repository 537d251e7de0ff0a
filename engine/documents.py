"""What the window shows of an indexed file beside a hit: a lecture's transcript, or the text
of a code or notes file (or of a file inside an imported archive)."""

from __future__ import annotations

from pathlib import Path

from engine.config import IngestLimits
from engine.errors import NotFoundError
from engine.ingest.safezip import open_zip, read_member
from engine.ingest.text import decode_text, read_text
from engine.store import Source, Store
from engine.types import SegmentKind, Timing


def transcript(store: Store, source: Source) -> list[Timing]:
    """The spoken sentences (or subtitle cues) of a lecture in time order, once each.

    Transcript windows overlap by a sentence or two; the overlap is dropped here.
    """
    lines: list[Timing] = []
    for row in store.segments_of_source(source.id):
        if row.kind != SegmentKind.TRANSCRIPT:
            continue
        units = row.timings or (
            (Timing(row.start_ms or 0, row.end_ms or 0, row.text),) if row.text else ()
        )
        lines += [u for u in units if not lines or u.start_ms >= lines[-1].end_ms]
    return lines


def source_text(source: Source, limits: IngestLimits, member: str | None = None) -> str:
    """The text of a code or notes file, or of ``member`` of an imported archive, decoded
    the way the import decoded it.

    Raises:
        NotFoundError: the archive has no such member.
        UnreadableFileError: the file is gone or changed so it cannot be read as text.
    """
    if member is None:
        return read_text(Path(source.path), limits.max_file_bytes, "a text file")
    with open_zip(Path(source.path)) as zf:
        try:
            info = zf.getinfo(member)
        except KeyError:
            raise NotFoundError(f"{member} is not in {Path(source.path).name}") from None
        data = read_member(zf, info, limits.max_archive_member_bytes)
    return decode_text(data, "a text file")
