"""Drives pushkit-free's agent tools through the official MCP Python SDK (`mcp` on PyPI), a client
nobody here wrote, over standard input and output or over streamable HTTP.

Usage: python3 mcp_client.py stdio PROGRAM CALLS_JSON     (the environment is passed on to PROGRAM)
       python3 mcp_client.py http URL SECRET CALLS_JSON

CALLS_JSON is a list of {"tool": NAME, "arguments": {...}}; an argument written "${id}" is the "id"
of the latest structured result that had one (a question's id from ask, for wait_for_answer). Prints JSON lines: first
{"server": ..., "protocol": ..., "tools": [...]} (what tools/list gave, as an agent sees it), then
one {"tool", "is_error", "text", "structured"} per call, in order. The client checks every
structured result against the tool's output schema itself (ClientSession.call_tool).
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def exercise(read, write, calls):
    async with ClientSession(read, write) as session:
        initialized = await session.initialize()
        listed = await session.list_tools()
        print(json.dumps({
            "server": initialized.serverInfo.model_dump(exclude_none=True),
            "protocol": initialized.protocolVersion,
            "instructions": initialized.instructions,
            "tools": [tool.model_dump(exclude_none=True, by_alias=True) for tool in listed.tools],
        }), flush=True)
        latest_id = None
        for call in calls:
            arguments = {name: (latest_id if value == "${id}" else value)
                         for name, value in call.get("arguments", {}).items()}
            result = await session.call_tool(call["tool"], arguments)
            if isinstance(result.structuredContent, dict) and "id" in result.structuredContent:
                latest_id = result.structuredContent["id"]
            print(json.dumps({
                "tool": call["tool"],
                "is_error": result.isError,
                "text": " ".join(item.text for item in result.content if item.type == "text"),
                "structured": result.structuredContent,
            }), flush=True)


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        program, calls = sys.argv[2], json.loads(sys.argv[3])
        server = StdioServerParameters(command=program, args=[], env=dict(os.environ))
        async with stdio_client(server) as (read, write):
            await exercise(read, write, calls)
    elif mode == "http":
        url, secret, calls = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"})
        async with client, streamable_http_client(url, http_client=client) as (read, write, _):
            await exercise(read, write, calls)
    else:
        sys.exit(f"unknown mode {mode!r}: stdio or http")


asyncio.run(main())
