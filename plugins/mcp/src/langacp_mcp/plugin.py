"""The langacp hooks of langacp-mcp: MCP servers in, their tools out, closed with the session."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langacp.api import SessionContext, ToolCallInfo, hook_time_limit, hookimpl, layers_for

if TYPE_CHECKING:
    from acp.schema import AgentCapabilities

    from langacp_mcp.connections import SessionServers

log = logging.getLogger("langacp.mcp")

REPORT_MARGIN = 30.0
"""Seconds past the configured start-up timeout for stopping late servers and telling the user."""


@dataclass
class McpState:
    """This plugin's live state of a session (``session.scratch(McpState)``)."""

    servers: SessionServers | None = None
    """The session's MCP servers, once its tools were asked for."""
    unused: bool = False
    """Set while the servers wait for ``langacp_session_tools``, which a precompiled graph never calls."""


def servers_of(session: SessionContext) -> SessionServers | None:
    """The MCP servers of a session, once its tools were asked for."""
    return session.scratch(McpState).servers


@hookimpl
def langacp_config_tables() -> list[Any]:
    from langacp_mcp.config import config_tables

    return config_tables()


@hookimpl
def langacp_agent_capabilities(capabilities: AgentCapabilities) -> None:
    from acp.schema import McpCapabilities

    current = capabilities.mcp_capabilities or McpCapabilities()
    capabilities.mcp_capabilities = current.model_copy(update={"http": True, "sse": True})


@hookimpl
def langacp_session_created(session: SessionContext) -> None:
    if session.mcp_servers:
        session.scratch(McpState).unused = True


@hookimpl
def langacp_session_loaded(session: SessionContext) -> None:
    langacp_session_created(session)


@hookimpl
async def langacp_prompt_started(session: SessionContext, prompt: Any) -> None:
    state = session.scratch(McpState)
    if state.unused:
        state.unused = False
        text = (
            "The MCP servers of this session were not started: this agent is a precompiled graph, and "
            "tools cannot be added to it. Serve a per-session factory to use them."
        )
        log.warning("langacp-mcp: session %s: %s", session.session_id, text)
        await _tell(session, text)


@hookimpl
async def langacp_session_tools(session: SessionContext) -> list[Any]:
    """Connect the session's MCP servers (the client's and the configured ones); return their tools."""
    from langacp_mcp.config import load_configured, reads_project_file

    state = session.scratch(McpState)
    state.unused = False

    layers = layers_for(session)  # read once for the session, off the event loop
    if reads_project_file(layers):  # an untrusted project's [mcp] table as written: read in a thread
        configured = await asyncio.to_thread(load_configured, session.cwd, session.mcp_servers, layers)
    else:
        configured = load_configured(session.cwd, session.mcp_servers, layers)
    failures: list[str] = []
    tools: list[Any] = []
    if configured.servers:  # the MCP SDK is imported only by sessions that have servers
        from langacp_mcp.connections import SessionServers

        # The user's start-up timeout decides, not the core's limit on session tools.
        hook_time_limit(configured.timeout + REPORT_MARGIN)

        servers = state.servers
        if servers is None:
            servers = state.servers = SessionServers()
        failures = await servers.connect(
            configured.servers, session.cwd, configured.timeout, ask=lambda m, s, u: session.elicit(m, s, url=u)
        )
        tools = list(servers.tools)
    for problem in [*configured.problems, *failures]:
        log.warning("langacp-mcp: session %s: %s", session.session_id, problem)
        await _tell(session, problem)
    return tools


async def _tell(session: SessionContext, text: str) -> None:
    """A notice to a client that shows them (``session.notices``), else an agent message."""
    if await session.notify("warning", "MCP server not started", text) or session.send_update is None:
        return
    from acp import update_agent_message_text

    await session.send_update(update_agent_message_text(f"{text}\n"))


@hookimpl
async def langacp_session_closed(session: SessionContext) -> None:
    servers = servers_of(session)
    if servers is not None:
        await servers.aclose()


@hookimpl
def langacp_system_prompt(session: SessionContext) -> str | None:
    """The connected servers' instructions, so the model knows how their tools are meant to be used."""
    servers = servers_of(session)
    if servers is None:
        return None
    from langacp_mcp.connections import tool_prefix

    parts = [
        f"Instructions of the MCP server '{c.spec.name}' (tools {tool_prefix(c.spec.name)}*):\n{c.instructions}"
        for c in servers.connections
        if c.connected and c.instructions
    ]
    return "\n\n".join(parts) or None


# tryfirst: an MCP tool's kind is the user's pin or its server's annotations, never a guess from its name
# (a server naming a tool read_file does not make it a read).
@hookimpl(tryfirst=True)
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    servers = servers_of(session)
    known = servers.names.get(call.name) if servers is not None else None
    if servers is None or known is None:
        return None
    from langacp.api import KIND_RISK, layers_for, project_config_path
    from langacp_mcp.connections import annotated_kind

    layers = layers_for(session)
    project_file = str(layers.project_path or project_config_path(session.cwd))
    if not layers.trusted and servers.sources.get(call.name) == project_file:
        # A project's server named like one the user trusts (or pins) is not that server.
        return annotated_kind(servers.annotations.get(call.name, {}), trusted=False)
    pins = layers.table("tools.kinds", project=False)
    pinned = pins.get(call.name) if isinstance(pins, dict) else None
    if isinstance(pinned, str) and pinned in KIND_RISK:
        return pinned
    trusted = layers.table("mcp.trust_annotations", project=False)
    server = known[0]
    return annotated_kind(
        servers.annotations.get(call.name, {}), trusted=isinstance(trusted, list) and server in trusted
    )


# tryfirst: the title names the server, in the tool call and in the permission request.
@hookimpl(tryfirst=True)
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str | None:
    servers = servers_of(session)
    known = servers.names.get(call.name) if servers is not None else None
    if known is None:
        return None
    server, tool, title = known
    return f"{title or tool} ({server})"


@hookimpl
def langacp_tool_result_content(call: ToolCallInfo, result: Any, session: SessionContext) -> list[Any] | None:
    """The MCP result's own blocks (text, images, audio, resources) for an MCP tool's call."""
    servers = servers_of(session)
    raw = servers.results.pop(call.tool_call_id, None) if servers is not None else None
    if raw is None:
        return None  # not an MCP call, or it never reached the server (denied, failed): the default shows it
    from langacp_mcp.content import acp_tool_content

    return acp_tool_content(raw)


@hookimpl
def langacp_prompt_finished(session: SessionContext, stop_reason: Any, outcome: Any) -> None:
    servers = servers_of(session)
    if servers is not None:
        servers.results.clear()  # results of calls cut short (cancel) are never shown
