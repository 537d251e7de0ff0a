"""The library's commands: ingest, search, list, remove, rename, stats, reindex and demo."""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

from engine.api import (
    DEMO_COURSE,
    DEMO_DIR,
    Cancelled,
    CoursedexError,
    FileResult,
    Library,
    Outcome,
    SearchConfig,
    SearchFilters,
    SegmentKind,
    demo_files,
    demo_queries,
    is_url,
    language_name,
    moment_ms,
    parse_language,
    plural,
    printable,
    result_origin,
    shown_name,
    valid_text,
)
from engine.cli.context import Context
from engine.cli.output import (
    ProgressBar,
    interrupted,
    print_report,
    print_results,
    print_stats,
)
from engine.cli.stopping import stopping
from engine.cli.urls import ingest_all

# A file given to ``ingest`` that ends up searchable (see the exit statuses in the parser).
IN_LIBRARY = frozenset({Outcome.INDEXED, Outcome.UNCHANGED, Outcome.DUPLICATE, Outcome.MOVED})


def cmd_ingest(ctx: Context) -> int:
    args = ctx.args
    if args.language:  # an unknown one ends here in one line, before anything is read
        media = replace(ctx.config.media, language=parse_language(args.language))
        ctx.config = replace(ctx.config, media=media)
    # A link that leads nowhere (broken, or a loop) is imported: its error says which.
    missing = [
        p for p in args.paths if not is_url(p) and not (Path(p).exists() or Path(p).is_symlink())
    ]
    for p in missing:
        print(f"coursedex: no such file or folder: {printable(p)}", file=sys.stderr)
    bar = ProgressBar(sys.stderr)
    with stopping("stopping; the files indexed so far are kept") as stop:
        try:
            report = ingest_all(ctx, [p for p in args.paths if p not in missing], bar, stop.cancel)
        except KeyboardInterrupt:  # a second signal
            return interrupted(bar, stop.cancel)
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
    elif report.files or not missing:  # else the lines above said all there is
        print_report(report, sys.stdout)
    if stop.signum is not None:
        return stop.exit_status
    if report.errors and not any(f.outcome in IN_LIBRARY for f in report.files):
        print("coursedex: nothing was imported", file=sys.stderr)
        return 1
    return 1 if missing or (report.errors and args.strict) else 0


def _file_json(f: FileResult) -> dict[str, object]:
    return {
        "path": f.path,
        "outcome": f.outcome.value,
        "detail": f.detail,
        "segments": f.segments,
        "stages": dict(f.stages),
    }


def _search_config(args: argparse.Namespace) -> SearchConfig:
    cfg = SearchConfig(neighbours=args.context)
    if args.mode == "fulltext":
        cfg = replace(cfg, dense=False, passage_rank=False)
    elif args.mode == "dense":
        cfg = replace(cfg, fulltext=False, passage_rank=False)
    return cfg


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
    if outcome.notice:  # e.g. keyword matches only: the search model cannot load
        print(f"coursedex: {printable(outcome.notice)}", file=sys.stderr)
    if args.json:
        print(
            json.dumps(
                {
                    "query": query,
                    "results": [
                        {
                            **r.to_json(),
                            "origin": result_origin(library, r.source, moment_ms(r.place)),
                            "media_missing": not Path(r.source).exists(),
                        }
                        for r in outcome.results
                    ],
                    "gated": outcome.gated,
                    "took_ms": round(outcome.took_ms.get("total", 0.0), 2),
                    **({"notice": outcome.notice} if outcome.notice else {}),
                }
            )
        )
    else:
        print_results(query, outcome)
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
                qid, query = _batch_line(line)
            except ValueError as e:
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
                        **({"notice": outcome.notice} if outcome.notice else {}),
                    }
                ),
                flush=True,
            )
    return 0


def _batch_line(line: str) -> tuple[str | int | float, str]:
    """The id and query of one ``--batch`` line.

    Raises:
        ValueError: not JSON (or nested too deeply to read), not an object, a key missing,
            an id that is not a string or number, or a query that is not a string.
    """
    try:
        item = json.loads(line)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as e:
        raise ValueError(str(e).splitlines()[0]) from None
    if not isinstance(item, dict):
        raise ValueError(f"a JSON {type(item).__name__}, not an object")
    missing = [key for key in ("id", "query") if key not in item]
    if missing:
        raise ValueError(f"no {' or '.join(missing)}")
    qid, query = item["id"], item["query"]
    if (
        isinstance(qid, bool)
        or not isinstance(qid, str | int | float)
        or (isinstance(qid, float) and not math.isfinite(qid))  # NaN: not JSON to echo
    ):
        raise ValueError("the id must be a string or a number")
    if not isinstance(query, str):
        raise ValueError("the query must be a string")
    return qid, valid_text(query)


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
                        "speech_model": s.speech_model,
                        "language": s.language,
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
        name = printable(shown_name(s.path))
        language = f"{s.language:3s} " if s.language else "    "
        segments = plural(s.segments, "segment")
        print(f"  {s.kind.value:9s} {language}{name}  ({segments}, {status})")
    if not sources:
        print("the library is empty: run `coursedex ingest FOLDER`")
    return 0


def cmd_relanguage(ctx: Context) -> int:
    """Set the language of a file or course, then import it again with progress."""
    args = ctx.args
    if args.auto == bool(args.language):
        raise CoursedexError("give a language (es, Spanish) or --auto to detect it again")
    library = ctx.library()
    paths = library.set_language(args.target, None if args.auto else args.language).again
    heard = "its own language" if args.auto else language_name(parse_language(args.language))
    print(f"{plural(len(paths), 'file')} to import again in {heard}", file=sys.stderr)
    bar = ProgressBar(sys.stderr)
    with stopping("stopping; the files imported again so far are kept") as stop:
        try:
            report = library.resume(bar, stop.cancel, paths=paths)
        except KeyboardInterrupt:  # a second signal
            return interrupted(bar, stop.cancel)
    bar.finish()
    if args.json:
        files = [_file_json(f) for f in report.files]
        print(json.dumps({"seconds": round(report.seconds, 3), "files": files}))
    else:
        print_report(report, sys.stdout)
    if stop.signum is not None:
        return stop.exit_status
    return 1 if report.errors else 0


def cmd_remove(ctx: Context) -> int:
    n = ctx.library().remove(ctx.args.target).count
    print(f"removed {plural(n, 'file')}")
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
        print_stats(stats, sys.stdout)
    return 0


def cmd_reindex(ctx: Context) -> int:
    library = ctx.library()
    embedder = ctx.registry.load_embedder(ctx.embedder_name(library), ctx.config.threads)

    def progress(done: int, total: int) -> None:
        print(f"\rre-embedding {done}/{total}", end="", file=sys.stderr, flush=True)

    with stopping("stopping the re-index; the library stays as it was") as stop:
        try:
            n = library.reindex(embedder, progress=progress, cancel=stop.cancel)
        except Cancelled:
            print("coursedex: re-index stopped; the library is as it was", file=sys.stderr)
            return stop.exit_status
    print(f"\nre-indexed {n} segments with {embedder.model_id}")
    return stop.exit_status if stop.signum is not None else 0


def cmd_demo(ctx: Context) -> int:
    library = ctx.library()
    if not any(c.name == DEMO_COURSE for c in library.courses()):
        print(f"indexing the demo course from {DEMO_DIR} ...", file=sys.stderr)
        bar = ProgressBar(sys.stderr)
        with stopping("stopping; the demo course is indexed again next time") as stop:
            report = library.ingest(
                demo_files(), course=DEMO_COURSE, progress=bar, cancel=stop.cancel
            )
        bar.finish()
        print_report(report, sys.stderr)
        if stop.signum is not None:
            return stop.exit_status
    for query in ctx.args.queries or demo_queries():
        outcome = library.search(query, limit=3, filters=SearchFilters(course=DEMO_COURSE))
        print_results(query, outcome)
        print()
    print(f'library: {library.folder}  (try: coursedex search "your question")')
    return 0


# --- parser ---------------------------------------------------------------------------------
