"""The model commands (list, verify, install, remove) and ``eval`` on public benchmarks."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from engine.cli.context import Context
from engine.cli.output import ProgressBar


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
    from engine.search import eval_metrics, evaluate

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
        print(eval_metrics.format_table(table))
    return 0
