"""What a failed fetch means, in a student's words: the engine's reason (yt-dlp's, e.g.
"Unable to download API page: [Errno -2] Name or service not known") is for a bug report,
one click away in the dialog; the dialog says "Could not reach youtube.com: are you
online?"."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from engine.api import capital

# The network's errors as the operating system words them (Linux, macOS, Windows).
_OFFLINE = (
    "name or service not known",
    "temporary failure in name resolution",
    "nodename nor servname",
    "getaddrinfo failed",
    "no address associated",
    "network is unreachable",
    "no route to host",
    "timed out",
)
_REFUSED = ("connection refused", "actively refused")
_HTTP = re.compile(r"HTTP Error (\d{3})")


def plain_fetch_error(url: str, message: str) -> str:
    """The failure of fetching ``url`` (``message``: the engine's words) as plain words."""
    parts = urlsplit(url)
    host = (parts.hostname or url).removeprefix("www.")  # "youtube.com", as people say it
    said = message.lower()
    if any(words in said for words in _OFFLINE):
        return f"Could not reach {host}: are you online?"
    if any(words in said for words in _REFUSED):
        port = f" at port {parts.port}" if parts.port else ""
        return f"Could not reach {host}: nothing answers{port}. Is the address right?"
    if "certificate" in said or "ssl" in said:
        return f"Could not open a secure connection to {host}."
    if status := _HTTP.search(message):
        code = int(status.group(1))
        if code == 404:
            return f"{host} has no page at that address (error 404). Is the address right?"
        if code in (401, 403):
            return f"{host} would not give the page (error {code}): it may need a login."
        return f"{host} answered with an error (HTTP {code}). Try again later."
    # The engine's own reasons are already plain ("no video or audio found on that page").
    reason = message.removeprefix(f"cannot import {url}: ")
    return capital(reason) + ("" if reason.endswith(".") else ".")
