"""``coursedex export``: what a student takes away from a lecture or a course, a handout
(.html or .md) or flashcards (an Anki .apkg)."""

from __future__ import annotations

from pathlib import Path

from engine.api import (
    build_handout,
    check_output,
    course_cards,
    find_lecture,
    human_size,
    plural,
    printable,
    write_deck,
    write_handout,
)
from engine.cli.context import Context


def cmd_export_handout(ctx: Context) -> int:
    library = ctx.library()
    lecture = find_lecture(library, ctx.args.lecture)
    # Refused before its pages are drawn (write_handout checks again, as every export does).
    check_output(Path(ctx.args.output), library, force=ctx.args.force)
    handout = build_handout(library, lecture.path)
    dest = write_handout(handout, Path(ctx.args.output), library=library, force=ctx.args.force)
    print(
        f"handout of {printable(lecture.title)} written to {printable(str(dest))} "
        f"({human_size(dest.stat().st_size)})"
    )
    return 0


def cmd_export_anki(ctx: Context) -> int:
    library = ctx.library()
    course = library.course(ctx.args.course).name
    check_output(Path(ctx.args.output), library, force=ctx.args.force)  # before the cards
    cards = course_cards(library, course, slides=ctx.args.slides)
    written = write_deck(
        course, cards, Path(ctx.args.output), library=library, force=ctx.args.force
    )
    notes = sum(c.kind == "note" for c in cards)
    what = plural(notes, "note") + ", " if notes else ""
    print(
        f"{plural(written.cards, 'card')} ({what}{plural(written.cards - notes, 'slide')}) "
        f"of {printable(course)} written to {printable(str(written.path))} "
        f"({human_size(written.path.stat().st_size)})"
    )
    return 0
