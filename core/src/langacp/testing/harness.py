"""Serve an agent and drive it with the SDK's client side: for plugin authors' tests.

    async with serve("langacp.testing.agent:agent", plugins=["my_plugin"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        titles = [u.title for u in agent.client.of(sid, "tool_call")]

:func:`serve` runs ``langacp serve`` as a subprocess over real pipes (startup, stdio, signals,
crashes: the end-to-end path). :func:`serve_in_process` takes the same arguments and runs the
same ``LangacpAgent`` in the test's own event loop, connected to the SDK's client through an
in-memory message pair (every message goes through JSON): no process start and no imports
per test, for tests of what the agent answers.

With ``isolate=True`` (the default) plugin autoload is off and only ``plugins`` are loaded, so
whatever else is installed does not leak into the test. ``XDG_DATA_HOME`` points into a
temporary directory, so the default session store never touches the user's sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from acp import text_block
from acp.client.connection import ClientSideConnection
from acp.schema import InitializeResponse

from langacp.client import RecordingClient, spawn_agent

__all__ = [
    "DEFAULT_TARGET",
    "InProcessAgent",
    "RawPipes",
    "ServedAgent",
    "serve",
    "serve_command",
    "serve_in_process",
    "serve_raw_in_process",
    "store_thread",
    "write_project_config",
    "write_user_config",
]

DEFAULT_TARGET = "langacp.testing.agent:agent"


@dataclass
class ServedAgent:
    """A live ``langacp serve`` subprocess and the recording client connected to it."""

    conn: ClientSideConnection
    process: object
    """The ``asyncio.subprocess.Process``; with :func:`serve_in_process`, the :class:`InProcessAgent`."""
    client: RecordingClient
    stderr_path: Path
    cwd: Path

    def stderr(self) -> str:
        """What the agent logged so far."""
        if isinstance(self.process, InProcessAgent):
            self.process.flush_log()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    async def initialize(self) -> InitializeResponse:
        """``initialize``, declaring the client's ``client_capabilities`` if it has them (an ``EditorClient``)."""
        from acp.schema import ClientCapabilities

        capabilities = getattr(self.client, "client_capabilities", None) or ClientCapabilities()
        # langacp's own clients speak the unstable schema too (usage in prompt responses, fork).
        meta = {**(capabilities.field_meta or {}), "unstable": True}
        capabilities = capabilities.model_copy(update={"field_meta": meta})
        return await self.conn.initialize(protocol_version=1, client_capabilities=capabilities)

    async def new_session(self, cwd: str | None = None) -> str:
        return (await self.conn.new_session(cwd=cwd or str(self.cwd))).session_id

    async def start(self) -> str:
        """``initialize`` then ``session/new`` in this agent's working directory."""
        await self.initialize()
        return await self.new_session()

    async def prompt(self, session_id: str, text: str) -> str:
        """Send a text prompt; returns the stop reason."""
        response = await self.conn.prompt(session_id=session_id, prompt=[text_block(text)])
        return str(response.stop_reason)

    async def reply(self, session_id: str, text: str) -> str:
        """Send a text prompt that must end the turn normally; returns the agent's message text of that turn."""
        self.client.updates.clear()
        stop_reason = await self.prompt(session_id, text)
        assert stop_reason == "end_turn", stop_reason
        return self.client.text(session_id)

    async def commands(self, session_id: str) -> list[str]:
        """The names of the slash commands last offered in the session (waits for the first offer)."""
        await self.client.wait_for(lambda _: bool(self.client.of(session_id, "available_commands_update")))
        return [c.name for c in self.client.of(session_id, "available_commands_update")[-1].available_commands]


def serve_command(target: str = DEFAULT_TARGET, *args: str, plugins: Sequence[str] = ()) -> list[str]:
    """The command line that serves ``target`` with ``plugins`` enabled by name."""
    enable = [arg for name in plugins for arg in ("-p", name)]
    return [sys.executable, "-m", "langacp.cli", "serve", target, *enable, *args]


@contextlib.contextmanager
def _scratch(cwd: str | Path | None) -> Iterator[tuple[Path, Path, Path]]:
    """A temporary directory: (the data home, the working directory, the agent's stderr file)."""
    with tempfile.TemporaryDirectory(prefix="langacp-test-") as tmp:
        workdir = Path(cwd) if cwd is not None else Path(tmp) / "work"
        workdir.mkdir(parents=True, exist_ok=True)
        # The default session store (sqlite, when installed) writes under XDG_DATA_HOME: never the user's own.
        yield Path(tmp) / "data", workdir, Path(tmp) / "agent.stderr"


@asynccontextmanager
async def serve(
    target: str = DEFAULT_TARGET,
    *,
    plugins: Sequence[str] = (),
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    client: RecordingClient | None = None,
    cwd: str | Path | None = None,
    isolate: bool = True,
) -> AsyncIterator[ServedAgent]:
    """Serve ``target`` in a subprocess; its stderr goes to a file (``agent.stderr()``)."""
    child_env = {k: v for k, v in os.environ.items() if not (isolate and k.startswith("LANGACP_"))}
    if isolate:
        child_env["LANGACP_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    recorder = client or RecordingClient()
    with _scratch(cwd) as (data_home, workdir, stderr_path), stderr_path.open("w") as stderr:
        child_env["XDG_DATA_HOME"] = str(data_home)
        child_env.update(env or {})
        command = serve_command(target, *args, plugins=plugins)
        async with spawn_agent(command, recorder, env=child_env, stderr=stderr) as (conn, process):
            yield ServedAgent(conn, process, recorder, stderr_path, workdir)


@dataclass
class InProcessAgent:
    """The agent side of :func:`serve_in_process`: the ``LangacpAgent`` and the task serving it."""

    agent: Any
    """The ``langacp.agent.LangacpAgent``."""
    serving: asyncio.Task[None]
    log_stream: io.TextIOBase

    @property
    def returncode(self) -> int | None:
        """``None`` while it serves, like a running process; ``0`` once it stopped."""
        return None if not self.serving.done() else 0

    def flush_log(self) -> None:
        self.log_stream.flush()


class _JsonTransport:
    """One end of the SDK's in-memory pair; every message sent is encoded and decoded as on a pipe."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, message: dict[str, Any]) -> None:
        await self._inner.send(json.loads(json.dumps(message)))

    async def receive(self) -> dict[str, Any] | None:
        message: dict[str, Any] | None = await self._inner.receive()
        return message

    async def close(self) -> None:
        await self._inner.close()


@contextlib.contextmanager
def _environment(env: Mapping[str, str], *, isolate: bool) -> Iterator[None]:
    """``os.environ`` (and ``sys.path``, for ``PYTHONPATH``) as the subprocess would see them, restored after."""
    saved_env, saved_path = dict(os.environ), list(sys.path)
    if isolate:
        for key in [k for k in os.environ if k.startswith("LANGACP_")]:
            del os.environ[key]
    os.environ.update(env)
    extra_paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p not in sys.path]
    sys.path[:0] = extra_paths
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        sys.path[:] = saved_path


@contextlib.contextmanager
def _captured_logs(stream: io.TextIOBase, level: str) -> Iterator[None]:
    """The agent's log records, formatted as ``langacp serve`` writes them to stderr, into ``stream``."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(getattr(logging, level.upper(), logging.WARNING))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(min(old_level or logging.WARNING, handler.level))
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


@asynccontextmanager
async def serve_in_process(
    target: str = DEFAULT_TARGET,
    *,
    plugins: Sequence[str] = (),
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    client: RecordingClient | None = None,
    cwd: str | Path | None = None,
    isolate: bool = True,
) -> AsyncIterator[ServedAgent]:
    """Like :func:`serve`, with the agent in this process: the same ``LangacpAgent`` and plugins, no pipes.

    ``args`` are ``langacp serve`` options (``--store``, ``--recursion-limit``, ``--log-level``,
    ``-p``). ``env`` is set in ``os.environ`` while the agent serves (its ``PYTHONPATH`` entries
    are put on ``sys.path``), then restored. Logs of level ``--log-level`` and above go to
    ``agent.stderr()``. What a subprocess alone shows (startup, stdout discipline, signals, a
    synchronous tool that never returns) needs :func:`serve`.
    """
    recorder = client or RecordingClient()
    async with _agent_in_process(target, plugins, args, env, cwd, isolate=isolate) as (agent, workdir, log):
        async with _connected(agent, recorder) as (conn, serving):
            process = InProcessAgent(agent, serving, log)
            yield ServedAgent(conn, process, recorder, Path(log.name), workdir)


@dataclass
class RawPipes:
    """The test's ends of the pipes of :func:`serve_raw_in_process`, named like a subprocess's."""

    stdin: asyncio.StreamWriter
    """Bytes written here reach the agent's JSON-RPC reader."""
    stdout: asyncio.StreamReader
    """The agent's JSON-RPC output, one message a line."""
    serving: asyncio.Task[None]

    @property
    def returncode(self) -> int | None:
        """``None`` while the agent serves."""
        return None if not self.serving.done() else 0


@asynccontextmanager
async def serve_raw_in_process(
    target: str = DEFAULT_TARGET,
    *,
    plugins: Sequence[str] = (),
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    isolate: bool = True,
) -> AsyncIterator[RawPipes]:
    """The agent in this process behind ``langacp serve``'s own guarded transport, over real OS pipes.

    For tests that write raw bytes (malformed JSON, bad envelopes): ``pipes.stdin.write(...)``,
    ``await pipes.stdout.readline()``.
    """
    from langacp.server import agent_connection
    from langacp.transport import GuardedTransport

    async with _agent_in_process(target, plugins, args, env, None, isolate=isolate) as (agent, _workdir, _log):
        agent_in, test_out = await _pipe()
        test_in, agent_out = await _pipe()
        agent_conn = agent_connection(agent, GuardedTransport(agent_in, agent_out))  # as langacp serve does
        serving = asyncio.ensure_future(agent_conn.listen())
        try:
            yield RawPipes(test_out, test_in, serving)
        finally:
            test_out.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(serving, timeout=5.0)
            await agent.shutdown()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(agent_conn.close(), timeout=1.0)
            agent_out.close()


async def _pipe() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """An OS pipe as asyncio streams: (its reading end, its writing end)."""
    from langacp.transport import max_message_bytes

    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader(limit=max_message_bytes() + 1)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), os.fdopen(write_fd, "wb", 0)
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


@asynccontextmanager
async def _agent_in_process(
    target: str,
    plugins: Sequence[str],
    args: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | Path | None,
    *,
    isolate: bool,
) -> AsyncIterator[tuple[Any, Path, Any]]:
    """A ``LangacpAgent`` built as ``langacp serve`` builds it: (the agent, its workdir, its log file)."""
    from langacp.agent import LangacpAgent
    from langacp.cli import build_parser
    from langacp.plugins import load_plugins, parse_plugin_options
    from langacp.stores import default_store_url

    options = build_parser().parse_args(["serve", target, *args, *(a for n in plugins for a in ("-p", n))])
    if options.remote or options.model:
        raise ValueError("the in-process harness does not take --remote or --model: use serve()")
    with _scratch(cwd) as (data_home, workdir, stderr_path):
        child_env = {"XDG_DATA_HOME": str(data_home), **(env or {})}
        if isolate:
            child_env.setdefault("LANGACP_DISABLE_PLUGIN_AUTOLOAD", "1")
        with (
            stderr_path.open("w", encoding="utf-8") as log_stream,
            _environment(child_env, isolate=isolate),
            _captured_logs(log_stream, options.log_level),
        ):
            blocked, enabled = parse_plugin_options(options.plugin_options)
            agent = LangacpAgent(
                options.target,
                load_plugins(blocked=blocked, enabled=enabled),
                store_url=options.store or default_store_url(),
                recursion_limit=options.recursion_limit,
            )
            yield agent, workdir, log_stream


@asynccontextmanager
async def _connected(agent: Any, client: RecordingClient) -> AsyncIterator[tuple[ClientSideConnection, Any]]:
    """``agent`` served on one end of an in-memory pair, ``client`` on the other; closed like a pipe after."""
    from langacp.compat.sdk import memory_transport_pair
    from langacp.server import agent_connection

    agent_end, client_end = memory_transport_pair()
    agent_conn = agent_connection(agent, _JsonTransport(agent_end))  # as langacp serve does
    serving = asyncio.ensure_future(agent_conn.listen())
    client_transport: Any = _JsonTransport(client_end)
    conn = ClientSideConnection(cast(Any, client), client_transport, use_unstable_protocol=True)
    try:
        yield conn, serving
    finally:
        await conn.close()  # EOF for the agent, as when an editor closes the pipe
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(serving, timeout=5.0)
        await agent.shutdown()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(agent_conn.close(), timeout=1.0)


def write_user_config(home: Path, text: str) -> Path:
    """Write ``text`` as the user config under ``home`` (use ``XDG_CONFIG_HOME=home/"config"``)."""
    path = home / "config" / "langacp" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_project_config(home: Path, text: str) -> Path:
    """Write ``text`` as ``home/"project"/.langacp.toml``, the project config of a session in ``home/"project"``."""
    path = home / "project" / ".langacp.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def store_thread(url: str, cwd: Path, messages: Sequence[Any], *, title: str = "stored") -> str:
    """Store ``messages`` as a new session's thread (and its record, in ``cwd``) with the store at ``url``.

    The thread is written through the scripted agent's graph, as if its model had said it all;
    returns the session id, for ``session/load``.
    """
    import uuid

    from langchain.agents import create_agent

    from langacp.stores import SessionRecord, open_store
    from langacp.testing.agent import TOOLS
    from langacp.testing.model import ScriptedChatModel

    store: Any = open_store(url)
    await store.aopen()
    try:
        graph = create_agent(ScriptedChatModel(), tools=TOOLS, checkpointer=store.checkpointer)
        session_id = uuid.uuid4().hex
        config: Any = {"configurable": {"thread_id": session_id}}
        await graph.aupdate_state(config, {"messages": list(messages)}, as_node="model")
        await store.put(SessionRecord(session_id=session_id, cwd=str(cwd), title=title))
    finally:
        await store.aclose()
    return session_id
