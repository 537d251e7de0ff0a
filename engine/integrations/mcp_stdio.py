"""The MCP server's stdio transport, with an answer to every line a client sends.

The SDK's stdio server reads one JSON-RPC message per line and hands a line it cannot read
to the session as an exception, which the session drops: a client that sent malformed JSON,
or a request cut short by a closed pipe, waited for a reply that never came. JSON-RPC 2.0
answers such a line with an error whose id is null (the request's id cannot be read):
-32700 "Parse error" for text that is not JSON, -32600 "Invalid Request" for JSON that is
not a JSON-RPC message. Everything else passes through unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable
from typing import Protocol

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

log = logging.getLogger(__name__)


class _Sender(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


class AnsweringServer(MCPServer):
    """An MCP server whose stdio transport answers lines that are not JSON-RPC messages."""

    async def run_stdio_async(self) -> None:
        server = self._lowlevel_server
        async with stdio_server() as (inbound, outbound):
            forward, checked = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_unreadable, inbound, forward, outbound)
                await server.run(checked, outbound, server.create_initialization_options())


async def answer_unreadable(
    inbound: AsyncIterable[SessionMessage | Exception],
    forward: MemoryObjectSendStream[SessionMessage | Exception],
    outbound: _Sender,
) -> None:
    """Pass messages on to the session; answer each line that could not be read."""
    async with forward:
        async for item in inbound:
            if isinstance(item, Exception):
                log.info("unreadable MCP line: %s", item)
                await outbound.send(SessionMessage(rejection(item)))
            else:
                await forward.send(item)


def rejection(error: Exception) -> JSONRPCError:
    """The JSON-RPC error for a line the transport could not read."""
    not_json = not isinstance(error, ValidationError) or any(
        e["type"] == "json_invalid" for e in error.errors()
    )
    data = (
        ErrorData(code=PARSE_ERROR, message="Parse error")
        if not_json
        else ErrorData(code=INVALID_REQUEST, message="Invalid Request")
    )
    return JSONRPCError(jsonrpc="2.0", id=None, error=data)
