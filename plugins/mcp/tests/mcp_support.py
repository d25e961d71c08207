"""Helpers of langacp-mcp's tests: MCP server processes (stdio and http) and process checks."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer

SERVER = Path(__file__).resolve().with_name("mcp_server.py")
"""The FastMCP test server (``python mcp_server.py stdio|http|sse``)."""


def stdio_server(name: str, *args: str, env: dict[str, str] | None = None) -> McpServerStdio:
    """An ACP stdio server entry that runs the test server with ``args``."""
    return McpServerStdio(
        name=name,
        command=sys.executable,
        args=[str(SERVER), "stdio", *args],
        env=[EnvVariable(name=k, value=v) for k, v in (env or {}).items()],
    )


def http_entry(name: str, url: str, transport: str = "http") -> HttpMcpServer | SseMcpServer:
    header = [HttpHeader(name="X-Test", value="1")]
    if transport == "sse":
        return SseMcpServer(type="sse", name=name, url=url, headers=header)
    return HttpMcpServer(type="http", name=name, url=url, headers=header)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def http_server(transport: str = "http", *, pid_file: Path | None = None) -> AsyncIterator[str]:
    """Run the test server over streamable HTTP (or SSE) with uvicorn in a subprocess; yields its URL."""
    port = free_port()
    extra = ["--pid-file", str(pid_file)] if pid_file else []
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(SERVER), transport, "--port", str(port), *extra, stdout=asyncio.subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                if time.monotonic() > deadline or process.returncode is not None:
                    raise RuntimeError(f"the {transport} MCP test server did not start") from None
                await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}/{'mcp' if transport == 'http' else 'sse'}"
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()


async def read_pid(path: Path, timeout: float = 15.0) -> int:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text().strip():
        if time.monotonic() > deadline:
            raise AssertionError(f"no pid in {path}")
        await asyncio.sleep(0.05)
    return int(path.read_text())


def tool_updates(client: Any, session_id: str, call_id: str) -> list[Any]:
    return [u for u in client.of(session_id) if getattr(u, "tool_call_id", None) == call_id]


def last_tool_call(client: Any, session_id: str) -> tuple[str, Any, list[Any]]:
    """(title, final update, its content blocks) of the latest tool call of a session."""
    calls = [u for u in client.of(session_id, "tool_call")]
    assert calls, "no tool call was reported"
    call_id = calls[-1].tool_call_id
    updates = tool_updates(client, session_id, call_id)
    final = [u for u in updates if u.status in ("completed", "failed")][-1]
    return calls[-1].title, final, [c.content for c in final.content or []]


def texts(blocks: Sequence[Any]) -> list[str]:
    return [b.text for b in blocks if getattr(b, "type", None) == "text"]
