"""``coursedex pack export|import|locate``: a course shared without its files.

A teacher exports a course once; each student imports the pack (with ``--media`` for the
folder holding the lectures) and searches it in seconds, with no transcription. A pack is
checked whole before anything is written: a bad one is refused with one line, exit 1.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from engine.api import (
    ImportSummary,
    PackProgress,
    export_pack,
    human_size,
    import_pack,
    locate_file,
    plural,
    printable,
)
from engine.cli.context import Context

PACK_HELP = """A course pack holds everything the library knows about a course (transcripts with
word times, on-screen text, slide and code text, slide links, chapters, vectors, thumbnails,
optionally notes) but not its files. Importing one transcribes nothing. Files are found by
their content (sha256): your own copy already in the library, or one in --media DIR; a file
not found is imported as "media missing": searchable, and its hits say where it is expected
(`coursedex pack locate EXPECTED FILE`, or importing the file, links it later). What the
library indexed already is never replaced: a file of the same content keeps its index, and
a file of the pack whose place holds other content (a file of yours, or the library's
record of one) is left out and named as a conflict."""


def add_pack_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser(
        "pack",
        help="export a course as a pack (no media), or import one without transcribing",
        description=PACK_HELP,
    )
    ps = s.add_subparsers(dest="pack_command", metavar="ACTION", required=True)
    p = ps.add_parser("export", help="write a course to FILE.cdxpack")
    p.add_argument("course", metavar="COURSE")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the pack to write")
    p.add_argument("--with-notes", action="store_true", help="carry the course's notes too")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace FILE if it is there (never a file the library indexes)",
    )
    p = ps.add_parser("import", help="import a pack: searchable in seconds, nothing transcribed")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--media", metavar="DIR", help="a folder holding the course's files")
    p.add_argument("--json", action="store_true", help="print what was imported as JSON")
    p = ps.add_parser("locate", help="link a file a pack's course expected (checked by sha256)")
    p.add_argument("expected", metavar="EXPECTED", help="where the library expects the file")
    p.add_argument("file", metavar="FILE", help="the file on this computer")
    s.set_defaults(func=cmd_pack)


def cmd_pack(ctx: Context) -> int:
    action = ctx.args.pack_command
    if action == "export":
        return _export(ctx)
    if action == "import":
        return _import(ctx)
    return _locate(ctx)


def _export(ctx: Context) -> int:
    args = ctx.args
    library = ctx.library()
    done = export_pack(
        library, args.course, Path(args.output), with_notes=args.with_notes, force=args.force
    )
    print(
        f"{printable(done.course)}: {plural(done.files, 'file')}, "
        f"{plural(done.segments, 'segment')}, {plural(done.notes, 'note')} -> "
        f"{printable(str(done.path))} ({human_size(done.size)})"
    )
    return 0


class _Bar:
    """One line on stderr per stage when not a terminal; an updating one on a terminal."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.stage = ""

    def __call__(self, p: PackProgress) -> None:
        if self.tty:
            sys.stderr.write(f"\r{p.stage} {p.fraction:4.0%}".ljust(40))
            sys.stderr.flush()
        elif p.stage not in (self.stage, "checking"):  # a refused pack: its one line alone
            sys.stderr.write(f"coursedex: {p.stage}\n")
        self.stage = p.stage

    def finish(self) -> None:
        if self.tty:
            sys.stderr.write("\r" + " " * 40 + "\r")


def _import(ctx: Context) -> int:
    args = ctx.args
    library = ctx.library()
    bar = _Bar()
    media = Path(args.media) if args.media else None
    try:
        done = import_pack(library, Path(args.file), media=media, progress=bar)
    finally:
        bar.finish()
    if args.json:
        print(json.dumps(_summary_json(done)))
        return 0
    model = "embedded again for this library's model, " if done.reembedded else ""
    print(
        f"{printable(done.course)}: {plural(len(done.files), 'file')}, "
        f"{plural(done.segments, 'segment')}, {plural(done.notes, 'note')} in "
        f"{done.seconds:.1f} s ({model}nothing transcribed)"
    )
    for f in done.files:
        if f.conflict is not None:
            print(f"  conflict: {printable(f.title)}: {f.conflict}: yours is kept")
        elif f.kept_in is not None and f.here:
            print(f"  kept: {printable(f.path)} (already in {printable(f.kept_in)})")
        elif f.here:
            print(f"  here: {printable(f.path)}")
        else:
            print(f"  media missing: {printable(f.title)}: expected at {printable(f.path)}")
    for line in done.left_out:
        print(f"  left out: {printable(line)}")
    if done.missing:
        print(
            f"{plural(len(done.missing), 'file')} not found: searchable all the same; link one "
            "with `coursedex pack locate EXPECTED FILE`, or import with --media DIR"
        )
    if done.conflicts:
        print(
            f"{plural(len(done.conflicts), 'file')} of the pack left out: the library's own "
            f"{'is' if len(done.conflicts) == 1 else 'are'} kept (conflicts above)"
        )
    return 0


def _summary_json(done: ImportSummary) -> dict[str, object]:
    """What ``pack import --json`` prints."""
    return {
        "course": done.course,
        "segments": done.segments,
        "notes": done.notes,
        "reembedded": done.reembedded,
        "seconds": round(done.seconds, 3),
        "left_out": list(done.left_out),
        "files": [
            {
                "title": f.title,
                "path": f.path,
                "here": f.here,
                "kept_in": f.kept_in,
                "conflict": f.conflict,
            }
            for f in done.files
        ],
    }


def _locate(ctx: Context) -> int:
    library = ctx.library()
    linked = locate_file(library, ctx.args.expected, Path(ctx.args.file)).source
    print(f"linked: {shlex.quote(printable(linked.path))}")
    return 0
