"""`coursedex notes add|list|remove`: a user's notes on moments (engine/notes) from a terminal."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.api import (
    Note,
    NotFoundError,
    NumberError,
    note_json,
    note_link,
    place_text,
    printable,
    seconds_ms,
    valid_text,
)
from engine.cli.context import Context


def at_time(text: str) -> int:
    """argparse type: a time in a lecture as a person types it (``12:34``, ``1:02:03``,
    ``83``, ``83.5s``), in milliseconds."""
    try:
        return seconds_ms(text, "the time")
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("the time ")) from None


def cmd_notes(ctx: Context) -> int:
    args = ctx.args
    if args.notes_command == "add":
        return _add(ctx)
    if args.notes_command == "list":
        return _list(ctx)
    if not ctx.library().remove_note(args.id):
        raise NotFoundError(f"there is no note {args.id} (see `coursedex notes list`)")
    print(f"removed note {args.id}")
    return 0


def _add(ctx: Context) -> int:
    args = ctx.args
    note = ctx.library().add_note(
        valid_text(args.source),
        valid_text(" ".join(args.text)),
        at_ms=args.at,
        page=args.page,
        line=args.line,
        path_in_archive=valid_text(args.member) if args.member else None,
    )
    if args.json:
        print(json.dumps(with_link(note)))
    else:
        name = printable(Path(note.source_path or note.last_path).name)
        where = place_text(note.place)
        print(f"added note {note.id} at {where} of {name} ({printable(note.course)})")
    return 0


def _list(ctx: Context) -> int:
    notes = ctx.library().notes(ctx.args.course)
    if ctx.args.json:
        print(json.dumps([with_link(n) for n in notes]))
        return 0
    course = None
    for note in notes:
        if note.course != course:
            course = note.course
            print(printable(course))
        if note.source_path is not None:
            name = printable(Path(note.source_path).name)
        else:
            name = f"{printable(Path(note.last_path).name)} (not in the library now)"
        text = printable(" ".join(note.text.split()))
        print(f"  {note.id:>4}  {name}  {place_text(note.place)}  {text}")
    if not notes:
        print("no notes yet: add one with `coursedex notes add FILE --at MM:SS TEXT`")
    return 0


def with_link(note: Note) -> dict[str, object]:
    """A note's JSON with the ``coursedex://`` link that opens its place (null when no file
    in the library has its content now)."""
    return {**note_json(note), "link": note_link(note)}
