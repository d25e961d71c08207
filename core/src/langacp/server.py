"""``langacp serve``: run the agent over stdio until the client goes away."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langacp.target import DriverTarget

__all__ = ["serve"]

log = logging.getLogger("langacp.server")

STDIO_LIMIT = 50 * 1024 * 1024


def configure_logging(level: str) -> None:
    """Logs go to stderr: stdout belongs to the protocol."""
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


async def _stdio_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The SDK's stdio streams, with fd 1 then pointed at stderr.

    The protocol keeps a private duplicate of the real stdout; a stray ``print`` from the
    served agent or a C extension writing to fd 1 lands on stderr instead of corrupting it.
    """
    from acp import stdio_streams

    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    real_stdout = sys.stdout
    sys.stdout = protocol_out  # type: ignore[assignment] # stdio_streams reads sys.stdout
    try:
        reader, writer = await stdio_streams(limit=STDIO_LIMIT)
    finally:
        sys.stdout = real_stdout
    real_stdout.flush()
    os.dup2(sys.stderr.fileno(), real_stdout.fileno())
    sys.stdout = sys.stderr
    return reader, writer


async def _run(agent: object) -> None:
    from acp.core import AgentSideConnection

    from langacp.transport import GuardedTransport

    reader, writer = await _stdio_streams()
    from langacp import sdk_routes

    conn = AgentSideConnection(agent, GuardedTransport(reader, writer), listening=False, use_unstable_protocol=True)  # type: ignore[arg-type]
    sdk_routes.install(conn, agent)
    listen = asyncio.ensure_future(conn.listen())
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, listen.cancel)
    try:
        await listen
    except asyncio.CancelledError:
        log.info("stopping on a signal")
    finally:
        await agent.shutdown()  # type: ignore[attr-defined]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.close(), timeout=1.0)


def serve(
    target: str | DriverTarget | None,
    *,
    store: str | None = None,
    blocked: Iterable[str] = (),
    enabled: Iterable[str] = (),
    log_level: str = "warning",
    recursion_limit: int = 1000,
) -> int:
    """Serve TARGET over stdin/stdout; returns the exit code. ``store=None``: :func:`default_store_url`."""
    configure_logging(log_level)
    if sys.stdin.isatty():
        print(
            "langacp serve speaks the Agent Client Protocol on stdin/stdout: an editor (Zed, …) or an "
            "ACP client starts it. Press Ctrl-D to quit. To talk to it in a terminal: langacp chat",
            file=sys.stderr,
        )
    from langacp.agent import LangacpAgent
    from langacp.plugins import load_plugins
    from langacp.stores import default_store_url

    plugins = load_plugins(blocked=blocked, enabled=enabled)
    store_url = store or default_store_url()
    agent = LangacpAgent(target, plugins, store_url=store_url, recursion_limit=recursion_limit)
    # Not asyncio.run(): it would wait for the default executor, i.e. for a synchronous tool
    # still sleeping in a worker thread, which cannot be stopped.
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(_run(agent))
    except KeyboardInterrupt:
        pass
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0)
