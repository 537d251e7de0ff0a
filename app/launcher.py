"""The ``coursedex`` command: the window with no command (or ``gui``), else the CLI."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    multiprocessing.freeze_support()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] == "gui":
        from app.main import run

        return run(args[1:])
    from engine.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
