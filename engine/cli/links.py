"""``coursedex open LINK`` without a window: where a ``coursedex://`` link leads.

The ``coursedex`` launcher gives ``open`` to the window (app/launcher.py); this is what
``python -m engine.cli open`` and scripts get: the file the link resolves to in this library
(by content when it moved) and the moment, as text or JSON.
"""

from __future__ import annotations

import json
import os

from engine.api import Library, clock, parse_link, resolve_link
from engine.cli.context import Context


def cmd_open(ctx: Context) -> int:
    library: Library = ctx.library()
    asked = parse_link(ctx.args.link)
    found = resolve_link(library, asked)
    if ctx.args.json:
        print(
            json.dumps(
                {
                    "source": found.source,
                    # "/c1/../c1/lec.mp4" names the file at "/c1/lec.mp4": not moved
                    "moved": os.path.normpath(found.source) != os.path.normpath(asked.source),
                    "start": None if found.start_ms is None else found.start_ms / 1000,
                    "page": found.page,
                    "member": found.member,
                    "line": found.line,
                }
            )
        )
        return 0
    where = [found.source]
    if found.start_ms is not None:
        where.append(f"at {clock(found.start_ms)}")
    if found.page is not None:
        where.append(f"page {found.page}")
    if found.line is not None:
        where.append(f"{found.member + ' ' if found.member else ''}line {found.line}")
    print(" ".join(where))
    return 0
