"""The `coursedex` command: every engine job from a terminal, for scripts and tests.

This is an entry point: it alone reads the environment (COURSEDEX_LIBRARY, COURSEDEX_MODELS)
and configures logging. Its parts: ``parser`` (the grammar), ``context`` (options, models,
library), ``commands`` (the library's commands), ``models`` (model commands and ``eval``) and
``output`` (what they print).
"""

from __future__ import annotations

import logging
import multiprocessing
import shlex
import sys
from collections.abc import Callable, Sequence

from engine.api import (
    CoursedexError,
    LibraryDamagedError,
    OutputExistsError,
    end_children,
    printable,
    valid_text,
)
from engine.cli.context import Context
from engine.cli.parser import build_parser, command_names
from engine.cli.stopping import status_after_signal, stops_at_once

__all__ = ["build_parser", "command_names", "main"]

log = logging.getLogger("coursedex")


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
    for name in ("course", "old", "new"):  # course names
        value = getattr(args, name, None)
        if isinstance(value, str):
            # Invalid UTF-8 on the command line arrives as lone surrogates, which SQLite
            # refuses (a traceback): U+FFFD instead, as in a query.
            setattr(args, name, valid_text(value))
    ctx = Context(args)
    func: Callable[[Context], int] = args.func
    try:
        if args.command == "mcp":  # read-only: a signal may end it where it is
            return func(ctx)
        with stops_at_once():
            return func(ctx)
    except KeyboardInterrupt:
        print("\ncoursedex: interrupted", file=sys.stderr)
        return status_after_signal()
    except CoursedexError as e:
        log.debug("command failed", exc_info=True)
        # The message may quote a name, path or link as given: escapes keep it one line
        # that cannot move the cursor or recolour the terminal.
        message = printable(str(e))
        if isinstance(e, LibraryDamagedError):  # still one line
            folder = shlex.quote(printable(args.library))
            message += f" (to start over: coursedex --library {folder} start-over)"
        elif isinstance(e, OutputExistsError):
            message += ": add --force to replace it"
        print(f"coursedex: {message}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    finally:
        ctx.close()
        end_children()  # the recognition child and Python's resource tracker, waited for
