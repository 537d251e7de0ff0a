"""A text import against its floor: ``coursedex ingest`` of the 76 TutorialVQA subtitle files
into a fresh library, beside the same texts embedded by bare onnxruntime + tokenizers.

    uv run python bench/text_floor.py [--rounds 3] [--threads 2] [--models DIR]

Both sides run in their own process (start-up and model load included), interleaved round by
round. The floor: the import's texts (windows with their heading, then every sentence), the
same model files, length-sorted batches of 32 over all of them, mean pooling, unit vectors.
Prints each run's wall and CPU seconds, the import's stage times, and the medians' ratios.
Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# --before DIR: the import side runs that checkout's engine (a child sees it in this variable).
sys.path.insert(0, os.environ.get("TEXT_FLOOR_ENGINE", str(ROOT)))


def _texts(srt: Path) -> list[str]:
    from engine import ingest
    from engine.config import EngineConfig
    from engine.importing.embedding import embed_text, with_context

    config = EngineConfig()
    out: list[str] = []
    for f in sorted(srt.glob("*.srt")):
        parsed = ingest.parse_file(f, config)
        segments = with_context(parsed)
        # Each file's texts once, as the import embeds them (windows, then sentences).
        out += dict.fromkeys(embed_text(parsed.title, s) for s in segments if s.text.strip())
        out += dict.fromkeys(t.text for s in segments for t in s.timings)
    return out


def _floor(texts_file: str, model_dir: str, threads: int) -> None:
    """The bare floor, in a child process: tokenizers + onnxruntime, nothing of ours."""
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    texts = json.loads(Path(texts_file).read_text())
    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tok.enable_truncation(max_length=256)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(Path(model_dir) / "model.onnx"), options)
    names = {i.name for i in session.get_inputs()}
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 384), np.float32)
    for start in range(0, len(order), 32):
        idx = order[start : start + 32]
        enc = tok.encode_batch([texts[i] for i in idx])
        mask = np.array([e.attention_mask for e in enc], np.int64)
        feeds = {"input_ids": np.array([e.ids for e in enc], np.int64), "attention_mask": mask}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.array([e.type_ids for e in enc], np.int64)
        states = np.asarray(session.run(None, feeds)[0], np.float32)
        w = mask[:, :, None].astype(np.float32)
        pooled = (states * w).sum(1) / np.maximum(w.sum(1), 1e-9)
        out[idx] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    print(json.dumps({"texts": len(texts)}))


def _import(srt: str, library: str, models: str) -> None:
    """``coursedex ingest`` in a child process, with stage timers around the import's parts."""
    entered = time.monotonic()
    os.environ["COURSEDEX_LIBRARY"] = library
    os.environ["COURSEDEX_MODELS"] = models
    from app.launcher import main

    stages: dict[str, float] = {}
    _time_stages(stages)
    started = time.monotonic()
    code = main(["ingest", srt, "--course", "tutorialvqa"])
    stages["start-up (imports)"] = started - entered
    stages["whole ingest command"] = time.monotonic() - started
    print(json.dumps({"code": code, "stages": stages}))


def _time_stages(stages: dict[str, float]) -> None:
    from engine.importing import pipeline, reading
    from engine.importing.embedding import Embedding
    from engine.index.indexer import Indexer
    from engine.models import embedder

    def timed(owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.monotonic()
            try:
                return inner(*args, **kwargs)
            finally:
                stages[label] = stages.get(label, 0.0) + time.monotonic() - t0

        setattr(owner, name, wrapper)

    timed(reading.Reader, "read", "read (parse + chunk)")
    timed(Embedding, "drafts", "embed windows")
    timed(Embedding, "sentences", "embed sentences")
    timed(Indexer, "write_source", "write (SQLite, FTS5, HNSW)")
    timed(pipeline.Pipeline, "_save", "save vector index")
    timed(pipeline, "link_slides", "link slides")
    timed(embedder.OnnxEmbedder, "__init__", "model load")
    try:  # the next files' texts embedded together (not in a --before checkout without it)
        from engine.importing.texts_ahead import TextsAhead

        timed(TextsAhead, "prepare", "embed the next files together")
    except ImportError:
        pass


def _child(argv: list[str], engine: str | None = None) -> tuple[float, float, dict[str, Any]]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if engine:
        env["TEXT_FLOOR_ENGINE"] = engine
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, __file__, *argv], check=True, capture_output=True, text=True, env=env
    )
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--models", default="/work/bench-cache/models")
    p.add_argument("--before", help="also import with this checkout's engine (e.g. /work/main)")
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "floor":
            _floor(rest[0], rest[1], args.threads)
        else:
            _import(*rest)
        return
    from engine.search.evaluate import default_data_dir

    srt = default_data_dir() / "tutorialvqa" / "srt"
    model_dir = str(Path(args.models) / "all-minilm-l6-v2-int8")
    runs: dict[str, list[tuple[float, float]]] = {"import": [], "floor": []}
    if args.before:
        runs["before"] = []
    with tempfile.TemporaryDirectory() as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts = _texts(srt)
        texts_file.write_text(json.dumps(texts))
        print(f"{len(texts)} texts from {srt}")
        for r in range(args.rounds):
            library = Path(tmp) / f"library{r}"
            import_argv = ["--child", "import", str(srt), str(library), args.models]
            floor_argv = ["--child", "floor", str(texts_file), model_dir]
            sides = [("import", import_argv), ("floor", floor_argv)]
            if args.before:
                sides.insert(1, ("before", [*import_argv[:3], f"{library}b", args.models]))
            for side, argv in sides if r % 2 == 0 else sides[::-1]:
                engine = args.before if side == "before" else None
                wall, cpu, out = _child([*argv, "--threads", str(args.threads)], engine)
                runs[side].append((wall, cpu))
                print(f"round {r + 1} {side}: {wall:.1f} s wall, {cpu:.1f} s CPU")
                for label, s in sorted(out.get("stages", {}).items(), key=lambda x: -x[1]):
                    print(f"    {label}: {s:.2f} s")
    med = {k: [statistics.median(x[i] for x in v) for i in (0, 1)] for k, v in runs.items()}
    (iw, ic), (fw, fc) = med["import"], med["floor"]
    print(f"median import: {iw:.1f} s wall, {ic:.1f} s CPU")
    print(f"median floor:  {fw:.1f} s wall, {fc:.1f} s CPU")
    print(f"ratio: {iw / fw:.2f}x wall, {ic / fc:.2f}x CPU")
    if args.before:
        bw, bc = med["before"]
        print(f"median before ({args.before}): {bw:.1f} s wall, {bc:.1f} s CPU")
        print(f"ratio before: {bw / fw:.2f}x wall, {bc / fc:.2f}x CPU")


if __name__ == "__main__":
    main()
