"""A FastMCP server for langacp-mcp's tests and benchmark; runs as its own process.

python mcp_server.py stdio [--pid-file PATH] [--slow-start SECONDS] [--linger SECONDS]
python mcp_server.py http|sse --port PORT [--pid-file PATH]
"""

from __future__ import annotations

import argparse
import base64
import os
import time
from pathlib import Path

from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.types import EmbeddedResource, TextResourceContents
from pydantic import BaseModel, Field

# A 1×1 red PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

server = FastMCP("langacp-test", instructions="Call add for arithmetic.", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def pid() -> int:
    """This server process's id."""
    return os.getpid()


@server.tool()
def env_keys() -> str:
    """The names of the environment variables this server process sees, comma-separated."""
    return ",".join(sorted(os.environ))


@server.tool()
def env_value(name: str) -> str:
    """The value of one environment variable ('' if unset)."""
    return os.environ.get(name, "")


@server.tool()
def cwd() -> str:
    """This server process's working directory."""
    return os.getcwd()


@server.tool(structured_output=False)
def picture() -> list[object]:
    """A caption and a 1×1 PNG image."""
    return ["a red pixel", Image(data=PNG, format="png")]


@server.tool()
def document() -> EmbeddedResource:
    """An embedded text resource."""
    return EmbeddedResource(
        type="resource",
        resource=TextResourceContents(uri="file:///notes/todo.md", mimeType="text/markdown", text="# TODO\n- ship"),
    )


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then say so."""
    import anyio

    await anyio.sleep(seconds)
    return f"slept {seconds}s"


@server.tool()
def crash() -> str:
    """The server process dies."""
    os._exit(1)


@server.tool()
def fail(message: str = "it broke") -> str:
    """Always fails (an MCP tool error, isError=true)."""
    raise ValueError(message)


class Pick(BaseModel):
    color: str = Field(description="A color")
    shade: int = 1


@server.tool()
async def ask_color(ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the user for a color (MCP elicitation); returns what they answered."""
    result = await ctx.elicit("Which color?", schema=Pick)
    if result.action == "accept":
        return f"accept {result.data.color} {result.data.shade}"
    return result.action


@server.tool()
async def ask_login(ctx: Context, url: str) -> str:  # type: ignore[type-arg]
    """Ask the user to open ``url`` (MCP url-mode elicitation); returns the action."""
    result = await ctx.elicit_url("Sign in", url, "login-1")
    return str(result.action)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http", "sse"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--pid-file")
    parser.add_argument("--slow-start", type=float, default=0.0)
    parser.add_argument("--linger", type=float, default=0.0, help="keep running this long after stdin closes")
    args = parser.parse_args()
    if args.pid_file:
        Path(args.pid_file).write_text(str(os.getpid()))
    if args.slow_start:
        time.sleep(args.slow_start)
    if args.transport == "stdio":
        server.run("stdio")
        time.sleep(args.linger)  # a server that ignores EOF: only a signal stops it
        return
    server.settings.port = args.port
    server.settings.log_level = "WARNING"
    server.run("streamable-http" if args.transport == "http" else "sse")


if __name__ == "__main__":
    main()
