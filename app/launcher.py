"""The ``coursedex`` command: the window with no command (or ``gui``), ``--self-test``,
else the CLI."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    # First: in a frozen build the speech-recognition child starts through this entry point.
    multiprocessing.freeze_support()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] == "gui":
        from app.main import run

        return run(args[1:])
    if args[0] == "--self-test":
        from app.selftest import run as self_test

        return self_test(args[1:])
    from engine.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
