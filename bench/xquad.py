"""Passage retrieval in many languages: XQuAD dev (../shared/eval/xquad), per language.

Each language's 120 passages are ingested as text documents (one file per passage, its
article title on the first line) into a fresh library, then its questions are searched;
results are collapsed to unique passages in rank order and scored against the one passage
that answers (NDCG@10 = 1/log2(r+1), Hit@1), as ../shared/eval/README.md defines.

    uv run python bench/xquad.py [--langs en,es,zh] [--modes full-text,default] [--work DIR]
    uv run python bench/xquad.py --cross en:es   # English questions on Spanish passages
    uv run python bench/xquad.py --mixed es,de,zh  # one library of all their passages, each
                                                   # language's questions against it
    uv run python bench/xquad.py --model all-minilm-l6-v2-int8  # every library on that
                                                   # embedder (default: the app's choice,
                                                   # multilingual-e5 for text not in English)

The data is read at run time and never copied into the repository. A fresh library per
run (a temporary folder unless ``--work``): a library kept from an older program would be
searched as it was indexed then. Never passes or fails.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.paths import default_models_dir  # noqa: E402
from engine.search.evaluate import MODES, default_data_dir  # noqa: E402

LANGS = ("en", "es", "de", "el", "ru", "tr", "ar", "vi", "th", "zh", "hi", "ro")


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _write_passages(data: Path, lang: str, folder: Path, prefix: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for p in _read(data / "xquad" / f"{lang}.dev.passages.jsonl"):
        name = prefix + p["id"].replace("#", "-")
        (folder / f"{name}.txt").write_text(f"{p['title']}\n\n{p['text']}\n", encoding="utf-8")


def _score(
    library: Library, queries: list[dict[str, str]], mode: str, prefix: str = ""
) -> dict[str, float]:
    cfg = MODES[mode](library.config.search)
    ndcg = hit1 = empty = 0.0
    took: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        results = library.search(q["query"], limit=40, config=cfg).results
        took.append((time.perf_counter() - t0) * 1000)
        empty += not results  # the early exit's (or nothing matched)
        ranked = list(dict.fromkeys(Path(r.source).stem for r in results))[:10]
        gold = prefix + q["passage"].replace("#", "-")
        rank = ranked.index(gold) + 1 if gold in ranked else None
        ndcg += 1 / math.log2(rank + 1) if rank else 0.0
        hit1 += rank == 1
    took.sort()
    n = max(len(queries), 1)
    p50 = took[len(took) // 2]
    return {"ndcg@10": ndcg / n, "hit@1": hit1 / n, "p50_ms": p50, "empty": empty / n}


def main() -> None:
    parser = argparse.ArgumentParser(description="XQuAD passage retrieval per language")
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--cross", default="", help="Q:P pairs, e.g. en:es,en:de")
    parser.add_argument("--modes", default="full-text,default")
    parser.add_argument("--mixed", default="", help="languages for one mixed library")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--model", default=None, help="one embedder for every library")
    args = parser.parse_args()
    pairs = [(lang, lang) for lang in args.langs.split(",") if lang and not args.mixed]
    pairs += [tuple(p.split(":", 1)) for p in args.cross.split(",") if p]  # type: ignore[misc]
    modes = [m for m in args.modes.split(",") if m]
    config = EngineConfig(threads=2)
    registry = ModelRegistry(default_models_dir())

    def opened(folder: Path) -> Library:
        """As the app opens a library: its embedder follows its languages, unless named."""
        return Library.open_own(folder, config, registry, embedder=args.model)

    work = args.work or Path(tempfile.mkdtemp(prefix="xquad-"))
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for asked, passages in pairs:
        folder = work / passages / "docs"
        _write_passages(args.data, passages, folder)
        queries = _read(args.data / "xquad" / f"{asked}.dev.queries.jsonl")
        with opened(work / passages / "library") as library:
            library.ingest([folder], course=f"xquad-{passages}")
            name = asked if asked == passages else f"{asked}->{passages}"
            rows[name] = {mode: _score(library, queries, mode) for mode in modes}
            used = (library.embedder_id or "none").split("@")[0]
        line = "  ".join(
            f"{m} {v['ndcg@10']:.3f}/{v['hit@1']:.3f} "
            f"({v['p50_ms']:.0f} ms, {v['empty']:.0%} empty)"
            for m, v in rows[name].items()
        )
        print(f"{name:8} NDCG@10/Hit@1  {line}  [{used}]", flush=True)
    if args.mixed:
        langs = args.mixed.split(",")
        rows.update(_mixed(args.data, langs, modes, work / "mixed", opened))
    if args.json:
        print(json.dumps(rows))


def _mixed(
    data: Path,
    langs: list[str],
    modes: list[str],
    work: Path,
    opened: Callable[[Path], Library],
) -> dict[str, dict[str, dict[str, float]]]:
    """Every language's passages in one library (a question is read in each of them)."""
    for lang in langs:
        _write_passages(data, lang, work / "docs" / lang, prefix=f"{lang}-")
    rows: dict[str, dict[str, dict[str, float]]] = {}
    with opened(work / "library") as library:
        library.ingest([work / "docs"], course="xquad-mixed")
        for lang in langs:
            queries = _read(data / "xquad" / f"{lang}.dev.queries.jsonl")
            rows[f"mixed {lang}"] = {m: _score(library, queries, m, f"{lang}-") for m in modes}
            line = "  ".join(
                f"{m} {v['ndcg@10']:.3f}/{v['hit@1']:.3f} ({v['p50_ms']:.0f} ms)"
                for m, v in rows[f"mixed {lang}"].items()
            )
            print(f"mixed {lang:3} NDCG@10/Hit@1  {line}", flush=True)
    return rows


if __name__ == "__main__":
    main()
