"""``coursedex --self-test``: prove that this build works, end to end, on this machine.

It opens a temporary library (never the user's), checks the models the app would use,
imports the demo course (its lecture video through the speech-recognition child process,
which in a frozen build relies on ``multiprocessing.freeze_support()``), runs searches whose
answers are known, and plays a lecture hit in the real player widget, with Qt Multimedia
(the player every build carries) and with libVLC where the user installed VLC. One
line per check:

    ok   import the demo course (4 files, 41.2 s)
    FAIL load the search model (0.1 s): ...model.onnx: ...

Exit status 0 when every check passed, else 1 (the failed check is named). This is an
entry point: it alone reads the environment (to pick the offscreen Qt platform).

Here are the command line and the checks on the engine, run in order; what they expect of
the demo course is app/selftest_expected.py, the player's check app/selftest_player.py.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from app.selftest_expected import (
    EXPECTED,
    LECTURE,
    CheckFailed,
    CheckSkipped,
    Expected,
    line_at,
    says,
)
from app.selftest_player import play_hit
from engine.api import (
    AUTO_SPEECH_MODEL,
    DEMO_COURSE,
    ENGLISH_SPEECH_MODEL,
    MULTILINGUAL_SPEECH_MODEL,
    AtLines,
    AtMoment,
    CoursedexError,
    EngineConfig,
    Library,
    ModelRegistry,
    OnPage,
    Outcome,
    SearchFilters,
    SearchResult,
    SegmentKind,
    WholeFile,
    __version__,
    clock,
    default_models,
    demo_files,
    location,
)

log = logging.getLogger(__name__)

BACKENDS = {"vlc": "with libVLC", "qt": "with Qt Multimedia", "auto": "in the player"}
PLAYERS = {"both": ("vlc", "qt"), "auto": ("auto",), "vlc": ("vlc",), "qt": ("qt",)}


class SelfTest:
    """The checks, in order; each returns a short detail for its line or raises."""

    def __init__(
        self, folder: Path, registry: ModelRegistry, player: str, out: TextIO = sys.stdout
    ) -> None:
        self.folder = folder
        self.registry = registry
        self.players = PLAYERS[player]
        self.out = out
        self.config = EngineConfig()
        self.library: Library | None = None
        self.hits: dict[str, SearchResult] = {}
        self.failed: str | None = None
        self.passed = 0
        self.skipped = 0

    # --- running ----------------------------------------------------------------------------

    def check(self, name: str, step: Callable[[], str]) -> bool:
        started = time.monotonic()
        try:
            detail = step()
        except CheckSkipped as e:
            self._say(f"skip {name}: {e}")
            self.skipped += 1
            return True
        except (CheckFailed, CoursedexError) as e:
            reason = str(e)
        # A self-test must report any failure of the build, not die of it: the traceback
        # goes to the log, the reason to the check's line.
        except Exception as e:
            log.error("%s crashed", name, exc_info=True)
            reason = f"{type(e).__name__}: {e}"
        else:
            took = time.monotonic() - started
            self._say(f"ok   {name} ({detail + ', ' if detail else ''}{took:.1f} s)")
            self.passed += 1
            return True
        took = time.monotonic() - started
        self._say(f"FAIL {name} ({took:.1f} s): {' '.join(reason.split())}")
        self.failed = self.failed or name
        return False

    def _say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def run(self) -> bool:
        """Every check; later ones need the earlier ones, so the first failure stops it
        (the searches are independent of each other and all run)."""
        if not (
            self.check("find the models", self.find_models)
            and self.check("open a temporary library", self.open_library)
            and self.check("load the search model", self.load_embedder)
            and self.check("import the demo course", self.import_demo)
            and self.check("recognise the lecture's speech", self.speech)
        ):
            return False
        searched = [self.check(f'search "{e.query}"', self._searcher(e)) for e in EXPECTED]
        if not all(searched):
            return False
        played = [
            self.check(f"play a lecture hit {BACKENDS[b]}", self._player(b)) for b in self.players
        ]
        return all(played)

    def close(self) -> None:
        if self.library is not None:
            self.library.close()
            self.library = None

    # --- engine checks ----------------------------------------------------------------------

    def find_models(self) -> str:
        # In a frozen build a model may come from the bundle's folder instead of the user's.
        folders: dict[Path, list[str]] = {}
        speech = self.config.media.speech_model
        names = [self.config.embedder, speech]
        if speech == AUTO_SPEECH_MODEL:  # the English model, and the one for other languages
            names[1:] = [ENGLISH_SPEECH_MODEL, MULTILINGUAL_SPEECH_MODEL]
        if self.config.multilingual_embedder is not None:  # a library's first other language
            names.append(self.config.multilingual_embedder)
        for name in names:
            # Raises when the model is missing or damaged, saying how to install or reinstall it.
            folder = self.registry.path(name).parent
            problems = self.registry.verify(name)
            if problems:
                raise CheckFailed(f"{name} in {folder}: {'; '.join(problems)}")
            folders.setdefault(folder, []).append(name)
        return "; ".join(f"{', '.join(found)} in {folder}" for folder, found in folders.items())

    def open_library(self) -> str:
        registry, config = self.registry, self.config
        self.library = Library.open_own(self.folder, config, registry)
        return str(self.folder)

    def _library(self) -> Library:
        if self.library is None:
            raise CheckFailed("the library is not open")
        return self.library

    def load_embedder(self) -> str:
        embedder = self._library().embedder()
        vectors = embedder.embed(["does the search model load?"], query=True)
        if vectors.shape != (1, embedder.dimension):
            raise CheckFailed(f"one query gave vectors of shape {vectors.shape}")
        return embedder.model_id

    def import_demo(self) -> str:
        files = demo_files()
        report = self._library().ingest(files, course=DEMO_COURSE)
        wrong = [f for f in report.files if f.outcome != Outcome.INDEXED or f.detail]
        if wrong or len(report.files) != len(files):
            found = "; ".join(
                f"{Path(f.path).name}: {f.outcome.value}{': ' + f.detail if f.detail else ''}"
                for f in wrong
            )
            raise CheckFailed(found or f"{len(report.files)} of {len(files)} files imported")
        return f"{len(files)} files"

    def _lecture(self) -> str:
        for source in self._library().sources(DEMO_COURSE):
            if Path(source.path).name == LECTURE:
                return source.path
        raise CheckFailed(f"{LECTURE} is not in the library")

    def speech(self) -> str:
        lines = self._library().transcript(self._lecture())
        if len(lines) < 20:
            raise CheckFailed(f"{len(lines)} sentences recognised in the 6-minute lecture")
        return f"{len(lines)} sentences up to {clock(lines[-1].end_ms)}"

    def _searcher(self, expected: Expected) -> Callable[[], str]:
        return lambda: self.search(expected)

    def _player(self, backend: str) -> Callable[[], str]:
        return lambda: self.play(backend)

    def search(self, expected: Expected) -> str:
        library = self._library()
        kinds = (expected.kind,) if expected.only_kind else ()
        outcome = library.search(
            expected.query, limit=5, filters=SearchFilters(kinds=kinds, course=DEMO_COURSE)
        )
        if not outcome.results:
            raise CheckFailed("no results" + (" (nothing close enough)" if outcome.gated else ""))
        hit = outcome.results[0]
        name = Path(hit.source).name
        where = f"{name} ({hit.kind.value})"
        if (name, hit.kind) != (expected.file, expected.kind):
            raise CheckFailed(
                f"the best hit is {where}, expected {expected.file} ({expected.kind.value})"
            )
        page = hit.place.page if isinstance(hit.place, OnPage) else None
        if expected.page is not None and page != expected.page:
            raise CheckFailed(f"the best hit is page {page}, expected page {expected.page}")
        member = hit.place.path_in_archive if isinstance(hit.place, AtLines | WholeFile) else None
        if expected.member is not None and member != expected.member:
            raise CheckFailed(f"the best hit is {member}, expected {expected.member}")
        shown, place = self._shown(hit)
        if not says(shown, expected.evidence):
            raise CheckFailed(f"{where} at {place} does not say {expected.evidence!r}: {shown!r}")
        self.hits[expected.query] = hit
        return f"{name} {place}"

    def _shown(self, hit: SearchResult) -> tuple[str, str]:
        """What the hit shows the user, and where in its file."""
        library = self._library()
        where = location(hit)
        match hit.place:
            case AtMoment(start_ms=at) if hit.kind == SegmentKind.TRANSCRIPT:
                line = line_at(library.transcript(hit.source), at)
                return (line.text if line else ""), f"at {where}"
            case AtMoment():
                return hit.snippet, f"at {where}"
            case AtLines(line_start=first, line_end=last, path_in_archive=member) if (
                hit.kind == SegmentKind.CODE
            ):
                text = library.source_text(hit.source, member).splitlines()
                return "\n".join(text[first - 1 : last or first]), where
            case _:
                return hit.snippet, where

    # --- the player ---------------------------------------------------------------------------

    def play(self, backend: str) -> str:
        hit = self.hits.get(EXPECTED[0].query)
        if hit is None or not isinstance(hit.place, AtMoment):
            raise CheckFailed("no lecture hit to play")
        return play_hit(
            backend, hit.source, hit.place.start_ms, self._library().transcript(hit.source)
        )


def _prepare_qt(folder: Path) -> None:
    """Qt and libVLC need no display: the player is checked offscreen, with no sound."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if sys.platform.startswith("linux") and not os.environ.get("XDG_RUNTIME_DIR"):
        runtime = folder / "runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="coursedex --self-test",
        description="Check this installation: import the demo course into a temporary "
        "library, search it and play a lecture hit. Exit 0 when all is well.",
    )
    p.add_argument(
        "--models",
        default=None,
        help="models folder (default: the app's: $COURSEDEX_MODELS or the user data folder)",
    )
    p.add_argument(
        "--keep", action="store_true", help="keep the temporary library and print its path"
    )
    p.add_argument(
        "--player",
        choices=tuple(PLAYERS),
        default="both",
        help="player backends to play with (default: both, Qt Multimedia, which every build "
        "carries, and libVLC where the user's VLC loads; auto: the one the app picks)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log details (Qt, libVLC)")
    return p


def run(argv: Sequence[str] = ()) -> int:
    args = build_parser().parse_args(list(argv))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    registry = ModelRegistry(Path(args.models) if args.models else default_models(os.environ))
    temp = Path(tempfile.mkdtemp(prefix="coursedex-selftest-"))
    _prepare_qt(temp)
    build = "frozen" if getattr(sys, "frozen", False) else "from source"
    print(
        f"coursedex {__version__} self-test ({build}, Python {platform.python_version()})",
        flush=True,
    )
    started = time.monotonic()
    test = SelfTest(temp / "library", registry, args.player)
    try:
        ok = test.run()
    except KeyboardInterrupt:
        print("self-test interrupted", flush=True)
        return 130
    finally:
        test.close()
        if args.keep:
            print(f"library kept in {temp / 'library'}", flush=True)
        else:
            shutil.rmtree(temp, ignore_errors=True)
    took = time.monotonic() - started
    if ok:
        skipped = f", {test.skipped} skipped" if test.skipped else ""
        print(f"self-test passed: {test.passed} checks{skipped} in {took:.1f} s", flush=True)
        return 0
    print(f"self-test FAILED: {test.failed}", flush=True)
    return 1


__all__ = ["EXPECTED", "Expected", "SelfTest", "build_parser", "run"]
