"""What the commands print: the progress line, search results and an import's summary."""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from engine.api import (
    AtMoment,
    IngestProgress,
    IngestReport,
    LibraryStats,
    OnPage,
    Outcome,
    SearchOutcome,
    SlideOnScreen,
    Stage,
    clock,
    copies_line,
    human_size,
    left_out,
    location,
    masked,
    member_place,
    not_imported_line,
    outcome_counts,
    plural,
    printable,
    progress_line,
    shown_name,
    shown_path,
    shown_title,
)
from engine.cli.stopping import status_after_signal


class ProgressBar:
    """One updating line on a terminal; one line per finished file when not a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()

    def __call__(self, p: IngestProgress) -> None:
        if self.tty:
            filled = int(p.fraction * 24)
            bar = "#" * filled + "." * (24 - filled)
            line = f"\r[{bar}] {p.fraction:4.0%} {progress_line(p)}"
            self.stream.write(line.ljust(100)[:100])
            self.stream.flush()
        elif p.result is not None:
            name = printable(shown_name(p.path))
            self.stream.write(f"[{p.index + 1}/{p.total}] {p.result.outcome.value}: {name}\n")
        elif p.stage is Stage.WAITING:  # else a script would see nothing until it starts
            self.stream.write(f"coursedex: {p.stage}\n")

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def interrupted(bar: ProgressBar, cancel: threading.Event) -> int:
    """A second Ctrl+C (or SIGTERM) during an import: stop now; say so; the exit status
    (130 or 143, engine/cli/stopping.py)."""
    cancel.set()
    bar.finish()
    print("coursedex: interrupted; indexed files are kept", file=sys.stderr)
    return status_after_signal()


def _highlight(snippet: str, spans: Sequence[tuple[int, int]], tty: bool) -> str:
    on, off = ("\033[1m", "\033[0m") if tty else ("[", "]")
    out, last = [], 0
    for a, b in spans:
        out.extend([snippet[last:a], on, snippet[a:b], off])
        last = b
    out.append(snippet[last:])
    return "".join(out)


def print_results(query: str, outcome: SearchOutcome) -> None:
    tty = sys.stdout.isatty()
    results, took = outcome.results, outcome.took_ms.get("total", 0.0)
    if outcome.gated:
        # The early exit: nothing is close, so no nearest noise either.
        print(
            f"Nothing in your library is close to {query!r} "
            f"(best similarity {outcome.best_similarity or 0.0:.2f}, {took:.0f} ms)"
        )
        return
    print(f"{plural(len(results), 'result')} for {query!r} ({took:.0f} ms)")
    for i, r in enumerate(results, start=1):
        where = printable(f"{r.course} / {shown_title(r)}  {location(r)}")
        print(f"{i:2d}. [{r.kind.value}] {where}")
        if not Path(r.source).exists():  # a course pack's file not found here, or moved since
            print(f"    media missing: the file is not here (expected at {printable(r.source)})")
        print(f"    {_highlight(masked(r.snippet), r.highlights, tty)}")
        if r.context is not None:
            before, after = (
                printable(_words(text, n)) for text, n in zip(r.context, (-24, 24), strict=True)
            )
            print(f"    before: …{before}" if before else "    before: (start of file)")
            print(f"    after:  {after}…" if after else "    after:  (end of file)")
        match r.place:
            case AtMoment(slide=SlideOnScreen(source=deck, page=page)):
                print(f"    on screen: {printable(Path(deck).name)} page {page}")
            case OnPage(shown_in=shown_in):
                for shown in shown_in[:3]:
                    name = printable(Path(shown.source).name)
                    print(f"    shown in {name} at {clock(shown.start_ms)}")


def _words(text: str, n: int) -> str:
    """The first ``n`` words of ``text``, or its last ``-n`` when ``n`` is negative."""
    words = text.split()
    return " ".join(words[n:] if n < 0 else words[:n])


def print_report(report: IngestReport, stream: TextIO) -> None:
    stream.write(
        f"{plural(len(report.files), 'file')} in {report.seconds:.1f} s: "
        f"{', '.join(outcome_counts(report)) or 'nothing to do'}\n"
    )
    if copies := copies_line(report):
        stream.write(f"  {copies}\n")
    members = left_out(report.files)
    for f in report.files:
        if f.outcome == Outcome.ERROR and member_place(f.path) is None:
            stream.write(f"  error: {printable(f.path)}: {printable(f.detail)}\n")
        elif f.outcome == Outcome.INDEXED and f.detail:
            stream.write(f"  note: {printable(shown_path(f.path))}: {printable(f.detail)}\n")
    for archive, files in members.items():  # named zip by zip, each with its reason
        stream.write(f"  {not_imported_line(archive, files)}\n")
        for f in files:
            stream.write(f"    {printable(shown_name(f.path))}: {printable(f.detail)}\n")


def _counts(counts: dict[str, int]) -> str:
    """``{"indexed": 6, "error": 5}`` -> ``"6 indexed, 5 error"``, largest first."""
    if not counts:
        return ""
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return " (" + ", ".join(f"{n} {name}" for name, n in ordered) + ")"


def print_stats(stats: LibraryStats, out: TextIO) -> None:
    """What ``coursedex stats`` prints: a line per fact, in words (``--json`` has the keys)."""
    lines = [
        f"library: {printable(stats['library'])}",
        f"courses: {stats['courses']}",
        f"files: {stats['sources']}{_counts(stats['sources_by_status'])}",
        f"segments: {stats['segments']}{_counts(stats['segments_by_kind'])}",
        f"lectures: {stats['media_hours']} hours",
    ]
    if stats["pages_waiting_for_ocr"]:
        lines.append(f"pages whose text is still to be read: {stats['pages_waiting_for_ocr']}")
    model = stats["embedder"] or "none yet"
    lines.append(f"search model: {model} ({plural(stats['vectors'], 'vector')})")
    lines.append(f"database: {human_size(stats['database_bytes'])}")
    out.write("\n".join(lines) + "\n")
