"""``coursedex start-over``: a damaged library's files kept aside, what it held imported again."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.api import IngestReport, plural, printable, start_over
from engine.cli.context import Context
from engine.cli.output import ProgressBar, interrupted, print_report
from engine.cli.stopping import stopping


def cmd_start_over(ctx: Context) -> int:
    aside = start_over(Path(ctx.args.library))
    print(f"the damaged library's files are kept in {printable(str(aside.folder))}")
    if not aside.complete:
        print("coursedex: the damaged database could not be read to its end", file=sys.stderr)
    courses = aside.by_course()
    found = sum(len(paths) for paths in courses.values())
    gone = aside.missing
    print(
        f"it held {plural(len(aside.held), 'file')}: importing {found} again"
        + (f" ({len(gone)} no longer there)" if gone else "")
    )
    for path in gone[:5]:
        print(f"  gone: {printable(path)}")
    library = ctx.library()  # a new database
    aside.prepare(library)
    bar = ProgressBar(sys.stderr)
    report = IngestReport([])
    with stopping("stopping; `coursedex ingest` of the same folders goes on later") as stop:
        try:
            for course, paths in courses.items():
                done = library.ingest(paths, course=course, progress=bar, cancel=stop.cancel)
                report.files.extend(done.files)
                report.seconds += done.seconds
        except KeyboardInterrupt:  # a second signal
            return interrupted(bar, stop.cancel)
    bar.finish()
    print_report(report, sys.stdout)
    return stop.exit_status if stop.signum is not None else 0
