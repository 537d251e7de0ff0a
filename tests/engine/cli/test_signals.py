"""Issue 25, item 6: SIGINT (Ctrl+C) and SIGTERM stop a long command the same way, with real
signals sent to a real ``coursedex`` process once it reports progress. Before: a re-index
went on after SIGINT and exited 0 (started with SIGINT ignored, as a script's ``&`` does) or
printed a KeyboardInterrupt traceback; SIGTERM killed ``ingest`` outright and left the file
it was reading marked "indexing". Now: exit 130 or 143, the library as it was (re-index) or
resumable (ingest), nothing "indexing", and a later run completes.

Issue 34, item 10: a signal during a URL download exited 1 (the download's "stopped
fetching" reached the command as an error); it is 130 or 143 like any other stop, and
nothing of the download stays."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from tests.engine.cli_run import InProcessCli
from tests.web_site import clear_proxies, serve_site

REPO = Path(__file__).resolve().parents[3]
WORDS = ("merge", "sort", "stable", "heap", "quick", "array", "pivot", "partition", "tree")
STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _notes(path: Path, sections: int, seed: int) -> Path:
    """A notes file of ``sections`` headed sections: one segment each."""
    rng = random.Random(seed)
    path.write_text(
        "\n\n".join(
            f"## Topic {i}\n\n" + " ".join(rng.choice(WORDS) for _ in range(12))
            for i in range(sections)
        ),
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def big_library(tmp_path_factory: pytest.TempPathFactory, embedder: OnnxEmbedder) -> Path:
    """A closed library of 1,100 segments (three re-index batches): copy it, never open it."""
    notes = tmp_path_factory.mktemp("signal-notes")
    folder = tmp_path_factory.mktemp("signal-lib") / "lib"
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        report = lib.ingest([_notes(notes / "many.md", 1100, 1)], course="Sorting")
        assert not report.errors
    return folder


class Command:
    """``coursedex ...`` as a child process whose stderr is read as it comes."""

    def __init__(self, *args: str, sigint_ignored: bool = False) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine.cli", *args],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # As `coursedex reindex &` in a script starts: SIGINT ignored.
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            if sigint_ignored
            else None,
        )
        self.err = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        while chunk := os.read(self.process.stderr.fileno(), 4096):
            self.err += chunk

    def wait_for(self, text: str) -> None:
        """Until stderr shows ``text`` (a generous limit so a broken command fails the test
        instead of hanging it: not a timing assertion)."""
        deadline = time.monotonic() + 600
        while text.encode() not in self.err:
            assert self.process.poll() is None, f"ended before {text!r}: {self.err!r}"
            assert time.monotonic() < deadline, f"no {text!r} in {self.err!r}"
            time.sleep(0.05)

    def finish(self) -> tuple[int, str, str]:
        assert self.process.stdout is not None
        out = self.process.stdout.read()  # stderr is the reader thread's alone
        code = self.process.wait(timeout=600)
        self._reader.join(timeout=60)
        return code, out.decode(), self.err.decode()


def _both_cores(argv: list[str]) -> list[str]:
    """``argv`` with ``--threads 2``: the run after the signal only has to complete (one
    thread keeps the signalled run busy long enough for the signal to land mid-batch)."""
    return [*argv[: argv.index("--threads") + 1], "2", *argv[argv.index("--threads") + 2 :]]


def _stats(cli_main: InProcessCli, library: Path, models: Path) -> dict[str, object]:
    """``coursedex stats --json``, in-process: the signalled command is the child here."""
    done = cli_main(library, models, "stats", "--json")
    assert done.returncode == 0, done.lines
    return json.loads(done.stdout)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_reindex_and_leaves_the_library_as_it_was(
    tmp_path: Path,
    big_library: Path,
    models_dir: Path,
    signum: signal.Signals,
    cli_main: InProcessCli,
) -> None:
    library = Path(shutil.copytree(big_library, tmp_path / "lib"))
    before = _stats(cli_main, library, models_dir)
    argv = ["--library", str(library), "--models", str(models_dir), "--threads", "1"]
    command = Command(*argv, "reindex", sigint_ignored=signum == signal.SIGINT)
    command.wait_for("re-embedding 512/1100")
    command.process.send_signal(signum)
    code, out, err = command.finish()
    assert code == STATUS[signum], err
    assert "re-index stopped; the library is as it was" in err, err
    assert "Traceback" not in err and "re-indexed" not in out, err
    after = _stats(cli_main, library, models_dir)
    assert after == before
    assert not list(library.rglob("*.tmp")) and not list(library.rglob("*.part"))

    again = Command(*_both_cores(argv), "reindex")
    code, out, err = again.finish()
    assert code == 0, err
    assert "re-indexed 1100 segments" in out


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_ingest_and_leaves_nothing_indexing(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder, signum: signal.Signals
) -> None:
    course = tmp_path / "Sorting"
    course.mkdir()
    first = _notes(course / "a-first.md", 3, 2)
    # 600 segments, 19 model batches: ~3 s of CPU on one thread here, where the signal
    # comes within a poll (0.05 s) of the line below; 1,500 proved the same, slower.
    big = _notes(course / "b-big.md", 600, 3)
    last = _notes(course / "c-last.md", 3, 4)
    library = tmp_path / "lib"
    argv = ["--library", str(library), "--models", str(models_dir), "--threads", "1"]
    command = Command(*argv, "ingest", str(first), str(big), str(last))
    command.wait_for("indexed: a-first.md")  # then it reads b-big.md
    command.process.send_signal(signum)
    code, _out, err = command.finish()
    assert code == STATUS[signum], err
    assert "Traceback" not in err, err

    with Library.open(library, EngineConfig(), lambda: embedder) as lib:
        status = {Path(s.path).name: s.status.value for s in lib.sources()}
    assert status["a-first.md"] == "indexed"
    assert "indexing" not in status.values(), status
    assert status["b-big.md"] == "queued", status  # the next run takes it up

    again = Command(*_both_cores(argv), "ingest", str(first), str(big), str(last))
    code, _out, err = again.finish()
    assert code == 0, err
    with Library.open(library, EngineConfig(), lambda: embedder) as lib:
        assert {s.status.value for s in lib.sources()} == {"indexed"}
        assert len(lib.sources()) == 3


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_a_url_download_with_its_status(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch, signum: signal.Signals
) -> None:
    clear_proxies(monkeypatch)  # the child inherits them
    library = tmp_path / "lib"
    with serve_site(tmp_path / "site") as site:  # /endless.mp4 never ends
        argv = ["--library", str(library), "--models", str(models_dir), "ingest"]
        command = Command(*argv, f"{site}/endless.mp4", "--json")
        deadline = time.monotonic() + 600  # a limit so a broken command fails, not hangs
        while not [p for p in (library / "media").rglob("*") if p.is_file()]:
            assert command.process.poll() is None, command.err
            assert time.monotonic() < deadline, command.err
            time.sleep(0.05)
        command.process.send_signal(signum)
        code, out, err = command.finish()
    assert code == STATUS[signum], err
    assert "Traceback" not in err, err
    (fetched,) = json.loads(out)["files"]
    assert (fetched["path"], fetched["outcome"]) == (f"{site}/endless.mp4", "cancelled"), out
    assert not [p for p in (library / "media").rglob("*") if p.is_file()]
