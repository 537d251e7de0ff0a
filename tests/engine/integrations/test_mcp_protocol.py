"""Issue 25, item 5: ``coursedex mcp`` over a real stdio pipe answers every line. Malformed
JSON and a request cut short got no reply at all (JSON-RPC 2.0 wants -32700 "Parse error",
id null); a path with ``..`` in it was "not in this library" although it named a file of the
library (one that leads out of it stays unknown).

Issue 34, item 10: a ``search`` limit outside the README's 1-50 (-1, 10^30) was clamped
without a word; it is a JSON-RPC error, -32602 "Invalid params", that names the range."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.conftest import MixedCourse
from tools.hostile.exact import BAD_SEARCH_LIMITS
from tools.hostile.queries import BAD_MCP_LINES

REPO = Path(__file__).resolve().parents[3]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


class Peer:
    """The server as a child process, spoken to one line at a time."""

    def __init__(self, library: Path, models: Path) -> None:
        argv = [sys.executable, "-m", "engine.cli", "--library", str(library)]
        self.process = subprocess.Popen(
            [*argv, "--models", str(models), "mcp"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        # A server that never answers must fail the test, not hang it.
        self.watchdog = threading.Timer(120, self.process.kill)
        self.watchdog.start()

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the server closed its output without a reply"
        return json.loads(line)

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(message) + "\n")
        return self.reply()

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": tool, "arguments": arguments}
        reply = self.ask(
            {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        )
        assert reply["id"] == request_id
        return reply["result"]

    def finish(self) -> tuple[int, str]:
        assert self.process.stdin is not None and self.process.stderr is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        code = self.process.wait(timeout=300)
        self.watchdog.cancel()
        return code, self.process.stderr.read()


def _parse_error(reply: dict[str, Any], code: int = -32700) -> None:
    assert reply["jsonrpc"] == "2.0" and reply["id"] is None, reply
    assert reply["error"]["code"] == code, reply


def test_every_line_gets_an_answer_and_paths_are_normalised(
    built_library_dir: Path, models_dir: Path, mixed_course: MixedCourse
) -> None:
    peer = Peer(built_library_dir, models_dir)
    try:
        for line, code in BAD_MCP_LINES:
            peer.send(line + "\n")
            _parse_error(peer.reply(), code)

        assert peer.ask(INITIALIZE)["result"]["serverInfo"]["name"] == "coursedex"
        peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

        lecture = mixed_course.lecture
        roundabout = f"{lecture.parent}/../{lecture.parent.name}/./{lecture.name}"
        found = peer.call(2, "get_transcript", {"source": roundabout})
        assert not found["isError"], found
        assert found["structuredContent"]["source"] == str(lecture)
        assert found["structuredContent"]["lines"]

        outside = f"{lecture.parent}/../../../../../../../../etc/passwd"
        refused = peer.call(3, "get_transcript", {"source": outside})
        assert refused["isError"] and "not in this library" in refused["content"][0]["text"]

        # A request cut short as the client goes away: answered, then the server ends.
        peer.send('{"jsonrpc": "2.0", "id": 8, "method": ')
        assert peer.process.stdin is not None
        peer.process.stdin.close()
        _parse_error(peer.reply())
    finally:
        code, err = peer.finish()
    assert code == 0, err
    assert "Traceback" not in err, err


def test_a_search_limit_outside_1_to_50_is_a_json_rpc_error(
    built_library_dir: Path, models_dir: Path
) -> None:
    peer = Peer(built_library_dir, models_dir)
    try:
        assert peer.ask(INITIALIZE)["result"]["serverInfo"]["name"] == "coursedex"
        peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        for n, limit in enumerate(BAD_SEARCH_LIMITS, start=2):
            params = {"name": "search", "arguments": {"query": "hippopotamus", "limit": limit}}
            reply = peer.ask({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
            assert reply["id"] == n and "result" not in reply, (limit, reply)
            assert reply["error"]["code"] == -32602, (limit, reply)
            assert "limit must be a number from 1 to 50" in reply["error"]["message"], reply
        for n, limit in ((20, 1), (21, 50)):
            found = peer.call(n, "search", {"query": "hippopotamus", "limit": limit})
            assert not found["isError"], found
            assert 1 <= len(found["structuredContent"]["results"]) <= limit, found
    finally:
        code, err = peer.finish()
    assert code == 0, err
    assert "Traceback" not in err, err
