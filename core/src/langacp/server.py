"""``langacp serve``: run the agent over stdio until the client goes away."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import stat
import sys
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langacp.target import DriverTarget

__all__ = ["serve"]

log = logging.getLogger("langacp.server")


def configure_logging(level: str) -> None:
    """Logs go to stderr: stdout belongs to the protocol."""
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def reserve_stdout() -> int:
    """Keep the real stdout for the protocol; from now on fd 1 and ``sys.stdout`` are stderr.

    Called before any plugin or target is imported, so for the whole life of the process a
    stray ``print`` (a plugin at import, the served agent, a C extension or a child process
    writing to fd 1) lands on stderr instead of corrupting the protocol. Returns the private
    duplicate of the real stdout the protocol writes to.
    """
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    protocol_fd = os.dup(1)  # not inheritable: commands the agent runs never get it
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_fd


def _is_pipe_like(fd: int) -> bool:
    """Whether asyncio's pipe transports (epoll) can watch ``fd``: pipes, sockets, terminals.

    Regular files and devices such as ``/dev/null`` cannot be polled; they are read in a
    thread and written directly instead.
    """
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


class _FileWriter:
    """Writes to a regular file (``serve > out.jsonl``) or ``/dev/null``: asyncio's pipe transport refuses them."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:  # a regular file takes every byte at once, barring a full disk
            view = view[os.write(self._fd, view) :]

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


class _WriteProtocol(asyncio.BaseProtocol):
    """Flow control for the stdout pipe: what ``StreamWriter.drain`` waits on.

    While the pipe is full every writer waits on the same future, resolved when the client has
    read enough; a waiter that is cancelled leaves the others waiting (the future is shielded).
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._resumed: asyncio.Future[None] | None = None

    def pause_writing(self) -> None:
        if self._resumed is None:
            self._resumed = self._loop.create_future()

    def resume_writing(self) -> None:
        resumed, self._resumed = self._resumed, None
        if resumed is not None and not resumed.done():
            resumed.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self.resume_writing()

    async def _drain_helper(self) -> None:
        if self._resumed is not None:
            await asyncio.shield(self._resumed)


def _feed_from_thread(loop: asyncio.AbstractEventLoop, fd: int, reader: asyncio.StreamReader) -> None:
    """Feed ``reader`` from ``fd`` in a daemon thread (stdin redirected from a regular file)."""

    def pump() -> None:
        try:
            while data := os.read(fd, 1 << 16):
                loop.call_soon_threadsafe(reader.feed_data, data)
        except OSError as exc:
            log.warning("cannot read stdin: %s", exc)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="langacp.stdin", daemon=True).start()


async def _stdio_streams(protocol_fd: int) -> tuple[asyncio.StreamReader, Any]:
    """A reader on stdin and a writer on ``protocol_fd`` (pipes, sockets, terminals or regular files)."""
    from langacp.transport import max_message_bytes

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=max_message_bytes() + 1)
    stdin_fd = sys.stdin.fileno()
    if _is_pipe_like(stdin_fd):
        protocol = asyncio.StreamReaderProtocol(reader)
        await loop.connect_read_pipe(lambda: protocol, os.fdopen(stdin_fd, "rb", buffering=0, closefd=False))
    else:
        _feed_from_thread(loop, stdin_fd, reader)
    if not _is_pipe_like(protocol_fd):
        return reader, _FileWriter(protocol_fd)
    write_protocol = _WriteProtocol()
    transport, _ = await loop.connect_write_pipe(lambda: write_protocol, os.fdopen(protocol_fd, "wb", buffering=0))
    return reader, asyncio.StreamWriter(transport, write_protocol, None, loop)  # type: ignore[arg-type]


def agent_connection(agent: Any, transport: Any) -> Any:
    """The SDK's agent-side connection over ``transport`` with the routes the SDK lacks (``langacp.protocol.routes``).

    What ``langacp serve`` runs; ``langacp.testing.harness`` serves its in-process agents through it too.
    """
    from acp.core import AgentSideConnection

    from langacp.protocol import routes

    conn = AgentSideConnection(agent, transport, listening=False, use_unstable_protocol=True)
    routes.install(conn, agent)
    return conn


async def _run(agent: Any, protocol_fd: int) -> int:
    """Serve until stdin closes or a signal; the exit status (2 if the target fails to load)."""
    from langacp.startup import EXIT_BAD_SETUP
    from langacp.transport import GuardedTransport

    reader, writer = await _stdio_streams(protocol_fd)
    conn = agent_connection(agent, GuardedTransport(reader, writer))
    listen = asyncio.ensure_future(conn.listen())
    code = 0

    def fatal(message: str) -> None:
        nonlocal code
        print(f"langacp: {message}", file=sys.stderr, flush=True)
        code = EXIT_BAD_SETUP
        listen.cancel()

    agent.loader.on_fatal = fatal
    agent.warm_up()  # the target loads beside the handshake: a broken one ends serve whether or not a client came
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, listen.cancel)
    try:
        await listen
    except asyncio.CancelledError:
        log.info("stopping")
    finally:
        await agent.shutdown()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.close(), timeout=1.0)
    return code


def _chat_command(target: str | DriverTarget | None) -> str:
    """The ``langacp chat`` command that serves the same TARGET in a terminal."""
    import shlex

    from langacp.default_agent import DEFAULT_TARGET

    words = ["langacp", "chat"]
    if isinstance(target, str) and target != DEFAULT_TARGET:
        words.append(target)
    elif target is not None and not isinstance(target, str):  # a driver's target: --remote URL GRAPH
        words += [target.spec, "--remote", str(target.options.get("url", ""))]
    if os.environ.get("LANGACP_MODEL") and (target is None or target == DEFAULT_TARGET):
        words += ["--model", os.environ["LANGACP_MODEL"]]
    return shlex.join(words)


def serve(
    target: str | DriverTarget | None,
    *,
    store: str | None = None,
    blocked: Iterable[str] = (),
    enabled: Iterable[str] = (),
    log_level: str = "warning",
    recursion_limit: int = 1000,
) -> int:
    """Serve TARGET over stdin/stdout; returns the exit code. ``store=None``: :func:`default_store_url`.

    Before anything is answered the setup is checked (:mod:`langacp.startup`): a TARGET that
    cannot be found, a store URL no installed driver takes, a number out of range are each
    one line on stderr and exit status 2. A TARGET that fails while loading (in the background,
    from the start, beside ``initialize``) also ends the process with status 2.
    """
    from langacp import startup_gc, startup_imports

    startup_gc.pause()  # until the target is loaded (the loader resumes it)
    startup_imports.block()  # httpx's command-line client, until then (the loader lifts it)
    protocol_fd = reserve_stdout()
    configure_logging(log_level)
    if sys.stdin.isatty():
        print(
            "langacp serve speaks the Agent Client Protocol on stdin/stdout: an editor (Zed, …) or an "
            f"ACP client starts it. Press Ctrl-D to quit. To talk to it in a terminal: {_chat_command(target)}",
            file=sys.stderr,
        )
    from langacp.startup import EXIT_BAD_SETUP, check_numbers, check_store, check_target, format_problems
    from langacp.stores import default_store_url

    store_url = store or default_store_url()
    problems = check_numbers(recursion_limit=recursion_limit) + check_store(store_url)
    if isinstance(target, str) and target:
        problems += check_target(target)[0]
    if problems:
        print(format_problems(problems), file=sys.stderr)
        return EXIT_BAD_SETUP

    from langacp.agent import LangacpAgent
    from langacp.plugins import load_plugins

    plugins = load_plugins(blocked=blocked, enabled=enabled)
    agent = LangacpAgent(target, plugins, store_url=store_url, recursion_limit=recursion_limit)
    # Not asyncio.run(): it would wait for the default executor, i.e. for a synchronous tool
    # still sleeping in a worker thread, which cannot be stopped.
    loop = asyncio.new_event_loop()
    code = 0
    try:
        code = loop.run_until_complete(_run(agent, protocol_fd))
    except KeyboardInterrupt:
        pass
    from langacp import tracing

    tracing.flush()  # os._exit skips LangSmith's own clean-up
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)
