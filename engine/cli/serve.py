"""``coursedex mcp``: the library for other tools (an MCP server on stdin/stdout)."""

from __future__ import annotations

from engine.cli.context import Context


def cmd_mcp(ctx: Context) -> int:
    """Serve the library read-only over MCP until the client hangs up."""
    from engine.integrations.mcp_server import serve  # lazy: only this command needs the MCP SDK

    serve(ctx.library())
    return 0
