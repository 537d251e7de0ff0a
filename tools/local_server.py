"""An HTTP server on 127.0.0.1 for the duration of a ``with`` block: the tests' stand-in for
the web (the network is closed), shared by tests/web_site.py and tools/hostile.

A handler class may have a ``stop`` event (a class attribute) that its slow or endless
responses watch: it is set before the server shuts down, so none of them holds it open.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def local_server(
    handler: Callable[..., BaseHTTPRequestHandler], stop: threading.Event | None = None
) -> Iterator[str]:
    """Serve ``handler`` on a free port; yields ``http://127.0.0.1:PORT``. ``stop`` is set
    before the shutdown."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        if stop is not None:
            stop.set()
        server.shutdown()
        server.server_close()


def with_stop(base: type[Any], name: str) -> type[Any]:
    """A subclass of ``base`` with a ``stop`` event of its own (one per server)."""
    return type(name, (base,), {"stop": threading.Event()})
