"""The ``coursedex`` command: the window with no command (or ``gui``), ``--self-test``,
else the CLI. Files or folders alone (a file manager's "Open with Coursedex", a drop on the
launcher: the desktop entry's ``%F``) open the window and import them."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    # First: in a frozen build the speech-recognition child starts through this entry point.
    multiprocessing.freeze_support()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] == "gui":
        from app.main import run

        return run(args[1:])
    if _are_paths(args):
        from app.main import run

        return run(args)
    if args[0] == "--self-test":
        from app.selftest import run as self_test

        return self_test(args[1:])
    from engine.api import run_cli

    return run_cli(args)


def _are_paths(args: Sequence[str]) -> bool:
    """Every argument names an existing file or folder (and none is a command or option).
    A command's name shadows a file of the same name in the current folder, as it should."""
    from engine.api import cli_commands

    return args[0] not in cli_commands() and all(
        not a.startswith("-") and Path(a).exists() for a in args
    )


if __name__ == "__main__":
    raise SystemExit(main())
