"""Library sessions: the langacp session state of an ACP agent you wrote yourself on the SDK.

:func:`open_session` gives a session what ``langacp serve`` gives one: a
:class:`~langacp.types.SessionContext` the installed plugins see, an ordered update outbox
to the client, and what the plugins contribute (middleware, tools, system prompt). The
middleware and the callback handler find it again from the connection and the session id.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langacp import protocol
from langacp.types import SessionContext

if TYPE_CHECKING:
    from langacp.bridge.outbox import UpdateSink
    from langacp.bridge.turn import TurnReporter
    from langacp.plugins import Plugins

__all__ = [
    "LibrarySession",
    "close_session",
    "current_turn",
    "default_plugins",
    "get_session",
    "open_session",
    "session_id_from",
    "start_turn",
]


@dataclass
class LibrarySession:
    """One session of your agent as langacp holds it."""

    context: SessionContext
    sink: UpdateSink
    plugins: Plugins
    middleware: list[Any] = field(default_factory=list)
    """LangChain middleware the installed plugins contribute (``langacp_session_middleware``)."""
    tools: list[Any] = field(default_factory=list)
    """LangChain tools the installed plugins contribute (``langacp_session_tools``: MCP, ``switch_mode``, …)."""
    turn: TurnReporter | None = None
    """The reporter of the running turn (:func:`start_turn` starts one, :func:`~langacp.lib.finish_turn` ends it)."""

    @property
    def session_id(self) -> str:
        return self.context.session_id

    def tools_with(self, tools: Sequence[Any]) -> list[Any]:
        """Your ``tools`` first, then the plugins' tools whose names yours do not take (one warning per clash)."""
        from langacp.tool_names import merge_tools

        return merge_tools(tools, self.tools, self.context)

    def system_prompt(self, base: str | None = None) -> str | None:
        """``base`` followed by the plugins' additions (``langacp_system_prompt``), as the server builds it."""
        parts = [p for p in (base, *self.plugins.system_prompt_additions(self.context)) if p]
        return "\n\n".join(parts) if parts else None

    async def flush(self) -> None:
        """Wait until every update queued for the client has been sent."""
        await self.sink.flush()


_SESSIONS: weakref.WeakKeyDictionary[Any, dict[str, LibrarySession]] = weakref.WeakKeyDictionary()
_PLUGINS: list[Plugins] = []


def default_plugins() -> Plugins:
    """The installed plugins (``langacp.plugins.load_plugins()``), loaded once per process."""
    if not _PLUGINS:
        from langacp.plugins import load_plugins

        _PLUGINS.append(load_plugins())
    return _PLUGINS[0]


async def open_session(
    conn: Any,
    session_id: str,
    cwd: str,
    *,
    mcp_servers: Sequence[Any] | None = None,
    additional_directories: Sequence[str] | None = None,
    client_capabilities: Any = None,
    client_info: Any = None,
    mode_id: str | None = None,
    plugins: Plugins | None = None,
    loaded: bool = False,
) -> LibrarySession:
    """Open session ``session_id`` of the client behind ``conn`` (the SDK's ``AgentSideConnection``).

    Calls ``langacp_session_created`` (``langacp_session_loaded`` if ``loaded``) and collects the
    plugins' middleware and tools. Updates a plugin sends meanwhile, and the slash commands on
    offer, are sent once the caller's response has gone out (a client cannot place an update
    for a session id it has not been given yet).
    """
    from langacp.operations import open_outbox

    chosen = plugins if plugins is not None else default_plugins()
    context = SessionContext(
        session_id=session_id,
        cwd=cwd,
        additional_directories=list(additional_directories or []),
        mcp_servers=list(mcp_servers or []),
        client_capabilities=client_capabilities,
        client_info=client_info,
        mode_id=mode_id,
        client=conn,
        plugins=chosen,
    )

    async def send(update: Any) -> None:
        await protocol.send_update(conn, session_id, update)

    sink, release = open_outbox(chosen, context, send)
    session = LibrarySession(context, sink, chosen)
    try:
        if loaded:
            await chosen.session_loaded(context)
        else:
            await chosen.session_created(context)
        session.middleware = await chosen.session_middleware(context)
        session.tools = await chosen.session_tools(context)
    except BaseException:
        await chosen.session_closed(context)
        raise
    _SESSIONS.setdefault(conn, {})[session_id] = session
    release(None)  # the modes and config options are asked for the commands here
    return session


def get_session(conn: Any, session_id: str) -> LibrarySession:
    """The open session ``session_id`` of ``conn``; -32002 (resource not found) if there is none."""
    from acp import RequestError

    session = _SESSIONS.get(conn, {}).get(session_id)
    if session is None:
        raise RequestError.resource_not_found(session_id)
    return session


async def close_session(conn: Any, session_id: str) -> None:
    """Close a session: ``langacp_session_closed`` (plugins free servers, processes), updates flushed."""
    session = _SESSIONS.get(conn, {}).pop(session_id, None)
    if session is None:
        return
    await session.plugins.session_closed(session.context)
    await session.sink.flush()
    await session.sink.aclose()


def current_turn(session: LibrarySession) -> TurnReporter:
    """The reporter of the session's running turn; one is started if none runs."""
    from langacp.bridge.turn import TurnReporter

    if session.turn is None:
        session.turn = TurnReporter(session.plugins, session.context, session.sink)
    return session.turn


async def start_turn(conn: Any, session_id: str, prompt: Sequence[Any]) -> str | list[str | dict[str, Any]]:
    """Start a prompt turn: ``langacp_prompt_started``, a fresh turn reporter; returns the prompt as LangChain content.

    The content comes from ``langacp_prompt_block`` (-32602 for a block no plugin maps).
    """
    from langacp.bridge.turn import TurnReporter
    from langacp.operations import prompt_content
    from langacp.running import enter_turn

    session = get_session(conn, session_id)
    if not prompt:
        from acp import RequestError

        raise RequestError.invalid_params({"details": "the prompt is empty"})
    content = prompt_content(session.plugins, session.context, prompt)
    session.turn = TurnReporter(session.plugins, session.context, session.sink)
    enter_turn(session.turn)  # for the graph run the caller starts next, in this task
    await session.plugins.prompt_started(session.context, prompt)
    return content


def session_id_from(config: Mapping[str, Any] | None = None, context: Any = None) -> str | None:
    """The ACP session id of a graph run.

    From ``config["configurable"]["session_id"]``, then the run's context (a ``session_id``
    key or attribute), then ``config["configurable"]["thread_id"]`` (langacp uses the session
    id as the LangGraph thread id). Without ``config``, the running graph's config is used.
    """
    if config is None:
        try:
            from langgraph.config import get_config

            config = get_config()
        except RuntimeError:  # not inside a graph run
            config = {}
    configurable = config.get("configurable") or {}
    found = configurable.get("session_id")
    if found is None and context is not None:
        found = context.get("session_id") if isinstance(context, Mapping) else getattr(context, "session_id", None)
    if found is None:
        found = configurable.get("thread_id")
    return str(found) if found is not None else None
