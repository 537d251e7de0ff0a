"""The `coursedex` command: every engine job from a terminal, for scripts and tests.

This is an entry point: it alone reads the environment (COURSEDEX_LIBRARY, COURSEDEX_MODELS)
and configures logging.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from engine.api import (
    DEMO_COURSE,
    DEMO_DIR,
    CoursedexError,
    Embedder,
    EngineConfig,
    FileResult,
    IngestProgress,
    IngestReport,
    Library,
    MediaConfig,
    ModelRegistry,
    Outcome,
    SearchConfig,
    SearchFilters,
    SearchOutcome,
    SegmentKind,
    __version__,
    clock,
    default_library,
    default_models,
    demo_files,
    demo_queries,
    location,
    masked,
    printable,
    progress_line,
    valid_text,
)

log = logging.getLogger("coursedex")


class Context:
    """What every command needs: the parsed options, the model registry, the library."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        media = MediaConfig()
        speech = getattr(args, "speech_model", None)
        media = replace(
            media,
            speech_model=speech or media.speech_model,
            language=getattr(args, "language", None) or media.language,
            screen_text=not getattr(args, "no_screen_text", False),
        )
        self.config = EngineConfig(threads=args.threads, media=media)
        self.registry = ModelRegistry(Path(args.models))
        self._library: Library | None = None

    def embedder_name(self, library: Library | None) -> str:
        """The model asked for, else the one the library was built with, else the default."""
        asked = getattr(self.args, "model", None)
        if asked:
            return str(asked)
        recorded = library.embedder_id if library is not None else None
        if recorded:
            return recorded.split("@", 1)[0]
        return self.config.embedder

    def library(self) -> Library:
        if self._library is None:
            holder: list[Library] = []

            def load() -> Embedder:
                name = self.embedder_name(holder[0] if holder else None)
                return self.registry.load_embedder(name, self.config.threads)

            self._library = Library.open(
                Path(self.args.library), self.config, load, models=self.registry
            )
            holder.append(self._library)
        return self._library

    def close(self) -> None:
        if self._library is not None:
            self._library.close()


# --- output helpers -------------------------------------------------------------------------


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
            name = printable(Path(p.path).name)
            self.stream.write(f"[{p.index + 1}/{p.total}] {p.result.outcome.value}: {name}\n")

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def _highlight(snippet: str, spans: Sequence[tuple[int, int]], tty: bool) -> str:
    on, off = ("\033[1m", "\033[0m") if tty else ("[", "]")
    out, last = [], 0
    for a, b in spans:
        out.extend([snippet[last:a], on, snippet[a:b], off])
        last = b
    out.append(snippet[last:])
    return "".join(out)


def _print_results(query: str, outcome: SearchOutcome) -> None:
    tty = sys.stdout.isatty()
    results, took = outcome.results, outcome.took_ms.get("total", 0.0)
    if outcome.gated:
        # The early exit: nothing is close, so no nearest noise either.
        print(
            f"Nothing in your library is close to {query!r} "
            f"(best similarity {outcome.best_similarity or 0.0:.2f}, {took:.0f} ms)"
        )
        return
    print(f"{len(results)} results for {query!r} ({took:.0f} ms)")
    for i, r in enumerate(results, start=1):
        where = printable(f"{r.course} / {r.title}  {location(r)}")
        print(f"{i:2d}. [{r.kind.value}] {where}")
        print(f"    {_highlight(masked(r.snippet), r.highlights, tty)}")
        if r.context is not None:
            before, after = (
                printable(_words(text, n)) for text, n in zip(r.context, (-24, 24), strict=True)
            )
            print(f"    before: …{before}" if before else "    before: (start of file)")
            print(f"    after:  {after}…" if after else "    after:  (end of file)")
        if r.slide is not None:
            print(f"    on screen: {printable(Path(r.slide[0]).name)} page {r.slide[1]}")
        for path, ms in r.shown_in[:3]:
            print(f"    shown in {printable(Path(path).name)} at {clock(ms)}")


def _words(text: str, n: int) -> str:
    """The first ``n`` words of ``text``, or its last ``-n`` when ``n`` is negative."""
    words = text.split()
    return " ".join(words[n:] if n < 0 else words[:n])


def _print_report(report: IngestReport, stream: TextIO) -> None:
    counts = {o: report.count(o) for o in Outcome}
    parts = [f"{n} {o.value}" for o, n in counts.items() if n]
    stream.write(
        f"{len(report.files)} files in {report.seconds:.1f} s: "
        f"{', '.join(parts) or 'nothing to do'}\n"
    )
    for f in report.files:
        if f.outcome == Outcome.ERROR:
            stream.write(f"  error: {printable(f.path)}: {printable(f.detail)}\n")
        elif f.outcome == Outcome.INDEXED and f.detail:
            stream.write(f"  note: {printable(f.path)}: {printable(f.detail)}\n")


# --- commands -------------------------------------------------------------------------------


def cmd_ingest(ctx: Context) -> int:
    args = ctx.args
    missing = [p for p in args.paths if not Path(p).exists()]
    for p in missing:
        print(f"coursedex: no such file or folder: {printable(p)}", file=sys.stderr)
    bar = ProgressBar(sys.stderr)
    cancel = threading.Event()
    try:
        report = ctx.library().ingest(
            [p for p in args.paths if p not in missing],
            course=args.course,
            progress=bar,
            cancel=cancel,
        )
    except KeyboardInterrupt:
        cancel.set()
        bar.finish()
        print("coursedex: interrupted; indexed files are kept", file=sys.stderr)
        return 130
    bar.finish()
    if args.json:
        print(
            json.dumps(
                {
                    "seconds": round(report.seconds, 3),
                    "files": [_file_json(f) for f in report.files],
                }
            )
        )
    else:
        _print_report(report, sys.stdout)
    return 1 if missing or (report.errors and args.strict) else 0


def _file_json(f: FileResult) -> dict[str, object]:
    return {"path": f.path, "outcome": f.outcome.value, "detail": f.detail, "segments": f.segments}


def _search_config(args: argparse.Namespace) -> SearchConfig:
    cfg = SearchConfig(neighbours=args.context)
    if args.mode == "fulltext":
        cfg = replace(cfg, dense=False, passage_rank=False)
    elif args.mode == "dense":
        cfg = replace(cfg, fulltext=False, passage_rank=False)
    return cfg


def _positive(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def cmd_search(ctx: Context) -> int:
    args = ctx.args
    library = ctx.library()
    filters = SearchFilters(
        kinds=tuple(SegmentKind(k) for k in args.kind or ()), course=args.course
    )
    cfg = _search_config(args)
    if args.batch:
        return _search_batch(library, Path(args.batch), args.limit, filters, cfg)
    if args.query is None:
        print("coursedex search: give a QUERY or --batch FILE", file=sys.stderr)
        return 2
    # Invalid UTF-8 on the command line arrives as lone surrogates: show it as U+FFFD.
    query = valid_text(args.query)
    outcome = library.search(query, limit=args.limit, filters=filters, config=cfg)
    if args.json:
        print(
            json.dumps(
                {
                    "query": query,
                    "results": [r.to_json() for r in outcome.results],
                    "gated": outcome.gated,
                    "took_ms": round(outcome.took_ms.get("total", 0.0), 2),
                }
            )
        )
    else:
        _print_results(query, outcome)
    return 0


def _search_batch(
    library: Library, path: Path, limit: int, filters: SearchFilters, cfg: SearchConfig
) -> int:
    try:
        # Bytes that are not UTF-8 become U+FFFD instead of ending the whole batch.
        if str(path) == "-" and isinstance(sys.stdin, io.TextIOWrapper):
            sys.stdin.reconfigure(encoding="utf-8", errors="replace")
        source = sys.stdin if str(path) == "-" else path.open(encoding="utf-8", errors="replace")
    except OSError as e:
        print(f"coursedex: cannot read {path}: {e.strerror or e}", file=sys.stderr)
        return 2
    with source:
        for number, line in enumerate(source, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                qid, query = item["id"], valid_text(str(item["query"]))
            except (ValueError, KeyError, TypeError) as e:
                print(
                    f'coursedex: {path}:{number}: not a {{"id", "query"}} line ({e})',
                    file=sys.stderr,
                )
                return 2
            outcome = library.search(query, limit=limit, filters=filters, config=cfg)
            print(
                json.dumps(
                    {
                        "id": qid,
                        "results": [r.to_json() for r in outcome.results],
                        "gated": outcome.gated,
                        "took_ms": round(outcome.took_ms.get("total", 0.0), 2),
                    }
                ),
                flush=True,
            )
    return 0


def cmd_list(ctx: Context) -> int:
    library = ctx.library()
    sources = library.sources(ctx.args.course)
    if ctx.args.json:
        print(
            json.dumps(
                [
                    {
                        "course": s.course,
                        "path": s.path,
                        "kind": s.kind.value,
                        "title": s.title,
                        "status": s.status.value,
                        "error": s.error,
                        "segments": s.segments,
                    }
                    for s in sources
                ]
            )
        )
        return 0
    course = None
    for s in sources:
        if s.course != course:
            course = s.course
            print(printable(course))
        status = printable(s.status.value + (f": {s.error}" if s.error else ""))
        name = printable(Path(s.path).name)
        print(f"  {s.kind.value:9s} {name}  ({s.segments} segments, {status})")
    if not sources:
        print("the library is empty: run `coursedex ingest FOLDER`")
    return 0


def cmd_remove(ctx: Context) -> int:
    n = ctx.library().remove(ctx.args.target)
    print(f"removed {n} file{'s' if n != 1 else ''}")
    return 0


def cmd_rename(ctx: Context) -> int:
    ctx.library().rename_course(ctx.args.old, ctx.args.new)
    print(f"renamed {ctx.args.old!r} to {ctx.args.new!r}")
    return 0


def cmd_stats(ctx: Context) -> int:
    stats = ctx.library().stats()
    if ctx.args.json:
        print(json.dumps(stats))
    else:
        for key, value in stats.items():
            print(f"{key}: {value}")
    return 0


def cmd_reindex(ctx: Context) -> int:
    library = ctx.library()
    name = ctx.args.model or ctx.config.embedder
    embedder = ctx.registry.load_embedder(name, ctx.config.threads)

    def progress(done: int, total: int) -> None:
        print(f"\rre-embedding {done}/{total}", end="", file=sys.stderr, flush=True)

    n = library.reindex(embedder, progress=progress)
    print(f"\nre-indexed {n} segments with {embedder.model_id}")
    return 0


def cmd_models(ctx: Context) -> int:
    args, registry = ctx.args, ctx.registry
    if args.models_command == "list":
        infos = registry.list()
        if args.json:
            print(
                json.dumps(
                    [
                        {
                            "name": m.name,
                            "role": m.role,
                            "installed": m.installed,
                            "size_bytes": m.size_bytes,
                            "path": str(m.path) if m.path else None,
                            "description": m.description,
                        }
                        for m in infos
                    ]
                )
            )
            return 0
        for m in infos:
            size = f"{m.size_bytes / 1e6:.0f} MB" if m.size_bytes else ""
            mark = "installed" if m.installed else "-"
            print(f"{m.name:28s} {m.role:9s} {mark:10s} {size:>8s}  {m.description}")
        return 0
    if args.models_command == "verify":
        names = [args.name] if args.name else [m.name for m in registry.list() if m.installed]
        bad = 0
        for name in names:
            problems = registry.verify(name)
            print(f"{name}: {'ok' if not problems else '; '.join(problems)}")
            bad += bool(problems)
        return 1 if bad else 0
    if args.models_command == "install":
        started = time.monotonic()

        def progress(done: int, total: int | None) -> None:
            pct = f"{done / total:4.0%}" if total else ""
            print(f"\r{args.name}: {done / 1e6:7.1f} MB {pct}", end="", file=sys.stderr, flush=True)

        path = registry.install(args.name, progress=progress, mirror=args.mirror)
        print(f"\ninstalled {args.name} in {path} ({time.monotonic() - started:.1f} s)")
        return 0
    if args.models_command == "remove":
        registry.remove(args.name)
        print(f"removed {args.name}")
        return 0
    return 2


def cmd_eval(ctx: Context) -> int:
    from engine import evaluate

    args = ctx.args
    data = Path(args.data) if args.data else evaluate.default_data_dir()
    work = Path(args.work) if args.work else None
    embedder = ctx.registry.load_embedder(ctx.args.model or ctx.config.embedder, ctx.config.threads)
    reranker = None
    if args.reranker:
        from engine.models.reranker import OnnxReranker

        folder = Path(args.reranker)
        reranker = OnnxReranker(
            folder if folder.is_dir() else ctx.registry.path(args.reranker), ctx.config.threads
        )
    bar = ProgressBar(sys.stderr)
    options = {"reranker": reranker, "ablation": args.ablation}
    if args.benchmark == "tutorialvqa":
        table = evaluate.tutorialvqa(
            data, args.split, ctx.config, embedder, work, args.limit_queries, bar, **options
        )
    else:
        table = evaluate.scifact(
            data, ctx.config, embedder, work, args.limit_queries, bar, **options
        )
    bar.finish()
    if args.json:
        print(json.dumps(table))
    else:
        print(evaluate.format_table(table))
    return 0


def cmd_demo(ctx: Context) -> int:
    library = ctx.library()
    if not any(c.name == DEMO_COURSE for c in library.courses()):
        print(f"indexing the demo course from {DEMO_DIR} ...", file=sys.stderr)
        bar = ProgressBar(sys.stderr)
        report = library.ingest(demo_files(), course=DEMO_COURSE, progress=bar)
        bar.finish()
        _print_report(report, sys.stderr)
    for query in ctx.args.queries or demo_queries():
        outcome = library.search(query, limit=3, filters=SearchFilters(course=DEMO_COURSE))
        _print_results(query, outcome)
        print()
    print(f'library: {library.folder}  (try: coursedex search "your question")')
    return 0


# --- parser ---------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="coursedex",
        description="Search your own lecture videos, slides, code and notes, offline.",
    )
    p.add_argument("--version", action="version", version=f"coursedex {__version__}")
    p.add_argument(
        "--library",
        default=str(default_library(os.environ)),
        help="library folder (default: $COURSEDEX_LIBRARY or the user data folder)",
    )
    p.add_argument(
        "--models",
        default=str(default_models(os.environ)),
        help="models folder (default: $COURSEDEX_MODELS or the user data folder)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=min(4, os.cpu_count() or 2),
        help="CPU threads for models (default: up to 4)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("ingest", help="index files and folders (a folder becomes a course)")
    s.add_argument("paths", nargs="+", metavar="PATH")
    s.add_argument("--course", help="course name (default: the folder's name)")
    s.add_argument("--json", action="store_true", help="print the outcome per file as JSON")
    s.add_argument("--strict", action="store_true", help="exit 1 when any file failed")
    s.add_argument("--model", help="embedder for a new library (default: all-minilm-l6-v2-int8)")
    s.add_argument(
        "--speech-model",
        help=f"speech recognition model (default: {MediaConfig().speech_model}; "
        "see `coursedex models list`)",
    )
    s.add_argument("--language", help="spoken language code for multilingual speech models")
    s.add_argument(
        "--no-screen-text",
        action="store_true",
        help="do not read text off video frames and scanned pages",
    )
    s.set_defaults(func=cmd_ingest)

    s = sub.add_parser("search", help="search the library")
    s.add_argument("query", nargs="?", help="any text")
    s.add_argument("--limit", type=_positive, default=10, help="results to show (1 or more)")
    s.add_argument(
        "--kind",
        action="append",
        choices=[k.value for k in SegmentKind],
        help="only this kind of result (repeatable)",
    )
    s.add_argument("--course", help="only this course")
    s.add_argument("--json", action="store_true", help="print results as JSON")
    s.add_argument(
        "--batch",
        metavar="FILE.jsonl",
        help='queries as {"id", "query"} lines ("-" for stdin); one JSON line each',
    )
    s.add_argument("--mode", choices=["hybrid", "fulltext", "dense"], default="hybrid")
    s.add_argument("--context", action="store_true", help="show the text before and after each hit")
    s.add_argument("--model", help=argparse.SUPPRESS)
    s.set_defaults(func=cmd_search)

    s = sub.add_parser("list", help="list courses and files with their status")
    s.add_argument("--course")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("remove", help="remove a course (by name) or a file (by path)")
    s.add_argument("target")
    s.set_defaults(func=cmd_remove)

    s = sub.add_parser("rename", help="rename a course")
    s.add_argument("old")
    s.add_argument("new")
    s.set_defaults(func=cmd_rename)

    s = sub.add_parser("stats", help="library size and contents")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_stats)

    s = sub.add_parser("reindex", help="re-embed everything (e.g. to switch embedding models)")
    s.add_argument("--model", help="embedder to switch to (default: the configured one)")
    s.set_defaults(func=cmd_reindex)

    s = sub.add_parser("models", help="list, verify, install or remove models")
    ms = s.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    m = ms.add_parser("list", help="known models and which are installed")
    m.add_argument("--json", action="store_true")
    m = ms.add_parser("verify", help="check installed model files against their checksums")
    m.add_argument("name", nargs="?")
    m = ms.add_parser("install", help="download a known model (resumes; checks sha256)")
    m.add_argument("name")
    m.add_argument("--mirror", help="base URL that replaces https://huggingface.co")
    m = ms.add_parser("remove", help="delete an installed model")
    m.add_argument("name")
    s.set_defaults(func=cmd_models)

    s = sub.add_parser("eval", help="score retrieval on a public benchmark (../shared/eval)")
    s.add_argument("benchmark", choices=["tutorialvqa", "scifact"])
    s.add_argument("--split", default="dev", choices=["dev"])
    s.add_argument("--data", help="eval data folder (default: ../shared/eval)")
    s.add_argument("--work", help="folder for the benchmark's library (default: a cache folder)")
    s.add_argument("--limit-queries", type=int, default=None, help=argparse.SUPPRESS)
    s.add_argument("--model", help="embedder (default: all-minilm-l6-v2-int8)")
    s.add_argument("--reranker", help="cross-encoder: an installed model's name or a model folder")
    s.add_argument(
        "--ablation", action="store_true", help="one row per retrieval stage added to hybrid"
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser("demo", help="index the built-in demo course and run example searches")
    s.add_argument("queries", nargs="*", help="queries to run instead of the examples")
    s.set_defaults(func=cmd_demo)
    return p


def command_names() -> frozenset[str]:
    """The CLI's commands (``ingest``, ``search``, ...)."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return frozenset(action.choices)
    return frozenset()


def main(argv: Sequence[str] | None = None) -> int:
    # A frozen build (PyInstaller) runs its speech-recognition child through this entry point.
    multiprocessing.freeze_support()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if args.command is None:
        parser.print_help()
        return 0
    ctx = Context(args)
    func: Callable[[Context], int] = args.func
    try:
        return func(ctx)
    except CoursedexError as e:
        log.debug("command failed", exc_info=True)
        print(f"coursedex: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    finally:
        ctx.close()


if __name__ == "__main__":
    sys.exit(main())
