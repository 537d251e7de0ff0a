"""The ``coursedex`` command: the window with no command (or ``gui``), ``--self-test``,
else the CLI. Files or folders alone (a file manager's "Open with Coursedex", a drop on the
launcher: the desktop entry's ``%U``, as paths or file:// URLs) open the window and import them.
``coursedex open LINK`` or a bare ``coursedex://`` link (a click on one) shows that moment in
the library's open window, or opens one there."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    # First: in a frozen build the speech-recognition child starts through this entry point.
    multiprocessing.freeze_support()
    try:
        return _run([_local_path(a) for a in (sys.argv[1:] if argv is None else argv)])
    finally:
        # Imported here: a frozen build's recognition child runs this module before
        # freeze_support, and needs none of the engine's imports for that.
        from engine.api import end_children

        end_children()  # no recognition child or resource tracker outlives the command


def _run(args: list[str]) -> int:
    link = _link_to_open(args)
    if link is not None:
        refused = _refused(args[link])
        if refused:
            print(f"coursedex: cannot open the link: {refused}", file=sys.stderr)
            return 1
        from app.main import run

        return run(["--open", args[link], *_window_options(args)])
    if not args or args[0] == "gui":
        from app.main import run

        return run(args[1:])
    if _are_paths(args):
        from app.main import run

        return run(args)
    if args[0] == "--self-test":
        from app.selftest import run as self_test

        return self_test(args[1:])
    # The CLI is built on engine.api; the launcher, beside the app, starts it directly.
    from engine.cli import main as run_cli

    return run_cli(args)


def _link_to_open(args: Sequence[str]) -> int | None:
    """Where the link is in ``open LINK`` (after any options) or in a lone ``coursedex:...``."""
    for i, arg in enumerate(args):
        if arg.lower().startswith("coursedex:") and (i == 0 or args[i - 1] == "open"):
            return i
    return None


def _refused(link: str) -> str:
    """Why the window would refuse ``link`` whatever the library holds (not a link, a value
    that is no moment: ``t=¹²``, ``t=1:99``), one line; "" for a link it can try. Said here,
    so that the command fails rather than open a window that only says so."""
    from engine.api import CoursedexError, parse_link, printable

    try:
        parse_link(link)
    except CoursedexError as e:
        return printable(str(e))
    return ""


def _window_options(args: Sequence[str]) -> list[str]:
    """The options of ``open`` that the window takes too (which library, models, settings)."""
    kept: list[str] = []
    for i, arg in enumerate(args[:-1]):
        if arg in ("--library", "--models", "--settings"):
            kept += [arg, args[i + 1]]
    kept += [a for a in args if a.startswith(("--library=", "--models=", "--settings="))]
    return kept


def _local_path(arg: str) -> str:
    """A file manager may pass ``file:///home/me/lecture%201.mp4`` for a file (``%U``)."""
    if not arg.startswith("file://"):
        return arg
    from urllib.parse import unquote, urlsplit
    from urllib.request import url2pathname

    parts = urlsplit(arg)
    if parts.netloc not in ("", "localhost"):
        return arg
    return url2pathname(parts.path) if sys.platform == "win32" else unquote(parts.path)


def _are_paths(args: Sequence[str]) -> bool:
    """Every argument names an existing file or folder (and none is a command or option).
    A command's name shadows a file of the same name in the current folder, as it should."""
    from engine.cli import command_names

    return args[0] not in command_names() and all(
        not a.startswith("-") and Path(a).exists() for a in args
    )


if __name__ == "__main__":
    raise SystemExit(main())
