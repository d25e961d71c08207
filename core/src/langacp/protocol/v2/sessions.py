"""v2's session methods over the agent's own: new, resume (with replay), list, close, delete, config.

v2 folds ``session/load`` into ``session/resume``: ``replayFrom: {"type": "start"}`` replays the
retained conversation (the core's load), without it the session is resumed silently (the
core's resume). Either way a ``state_update`` snapshot follows, before the response. Modes
are config options (:func:`~.mapping.session_options`).
"""

from __future__ import annotations

from typing import Any

from acp import RequestError

from langacp.protocol import tool_cancels
from langacp.protocol.v2.mapping import config_options, session_options
from langacp.protocol.v2.models import (
    CloseSessionRequest,
    DeleteSessionRequest,
    IdleState,
    ListSessionsRequest,
    NewSessionRequest,
    ResumeSessionRequest,
    RunningState,
    SetSessionConfigOptionRequest,
    parse,
    wire,
)

__all__ = ["V2Sessions"]

REPLAY_FROM = ("start",)
"""The ``replayFrom`` cursors langacp takes (all retained history)."""


def _servers(raw: list[dict[str, Any]] | None, cwd: str) -> list[Any]:
    """v2's ``mcpServers`` as the SDK's models the core takes (-32602 for one it cannot read)."""
    from acp.schema import NewSessionRequest as V1NewSession

    try:
        return list(V1NewSession.model_validate({"cwd": cwd, "mcpServers": raw or []}).mcp_servers or [])
    except ValueError as exc:
        raise RequestError.invalid_params({"details": f"mcpServers: {str(exc)[:200]}"}) from exc


class V2Sessions:
    """The session methods of one v2 connection."""

    def __init__(self, agent: Any, client: Any, turns: Any) -> None:
        self.agent = agent
        self.client = client
        self.turns = turns

    def _options(self, response: Any) -> list[dict[str, Any]]:
        return session_options(response.modes, response.config_options)

    async def new(self, params: dict[str, Any]) -> dict[str, Any]:
        request = parse(NewSessionRequest, params)
        response = await self.agent.new_session(
            cwd=request.cwd,
            additional_directories=request.additional_directories,
            mcp_servers=_servers(request.mcp_servers, request.cwd),
        )
        tool_cancels.enable(response.session_id)  # a v2 client may cancel one tool call
        return {"sessionId": response.session_id, "configOptions": self._options(response)}

    async def resume(self, params: dict[str, Any]) -> dict[str, Any]:
        request = parse(ResumeSessionRequest, params)
        replay = request.replay_from
        if replay is not None and replay.type not in REPLAY_FROM:
            raise RequestError.invalid_params({"details": f"replayFrom type {replay.type[:40]!r} is not supported"})
        fields: dict[str, Any] = {
            "cwd": request.cwd,
            "session_id": request.session_id,
            "additional_directories": request.additional_directories,
            "mcp_servers": _servers(request.mcp_servers, request.cwd),
        }
        if replay is not None:
            self.client.replaying(request.session_id, True)
            try:
                response = await self.agent.load_session(**fields)
            finally:
                self.client.replaying(request.session_id, False)
        else:
            response = await self.agent.resume_session(**fields)
        tool_cancels.enable(request.session_id)
        busy = self.turns.busy(request.session_id)
        await self.client.send(request.session_id, wire(RunningState() if busy else IdleState()))
        return {"configOptions": self._options(response)}

    async def list(self, params: dict[str, Any]) -> dict[str, Any]:
        request = parse(ListSessionsRequest, params)
        response = await self.agent.list_sessions(cwd=request.cwd, cursor=request.cursor)
        dumped: dict[str, Any] = response.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped

    async def close(self, params: dict[str, Any]) -> dict[str, Any]:
        """Cancel as ``session/cancel`` would (its ``idle`` ``cancelled`` sent first), then close."""
        request = parse(CloseSessionRequest, params)
        session_id = request.session_id
        self.turns.cancel(session_id)
        await self.agent.cancel(session_id=session_id)
        await self.turns.settle(session_id)
        await self.agent.close_session(session_id=session_id)
        tool_cancels.disable(session_id)
        self.client.background.forget(session_id)
        return {}

    async def delete(self, params: dict[str, Any]) -> dict[str, Any]:
        request = parse(DeleteSessionRequest, params)
        self.turns.cancel(request.session_id)
        await self.agent.cancel(session_id=request.session_id)
        await self.turns.settle(request.session_id)
        await self.agent.delete_session(session_id=request.session_id)
        tool_cancels.disable(request.session_id)
        self.client.background.forget(request.session_id)
        return {}

    async def set_config_option(self, params: dict[str, Any]) -> dict[str, Any]:
        """``type: id`` sets a select (a mode turned option sets the mode), ``boolean`` an on/off option."""
        request = parse(SetSessionConfigOptionRequest, params)
        if request.type == "id" and isinstance(request.value, str):
            value: str | bool = request.value
        elif request.type == "boolean" and isinstance(request.value, bool):
            value = request.value
        else:
            raise RequestError.invalid_params({"details": f"config value of type {request.type[:40]!r} is not taken"})
        plugins = self.agent.plugins
        session = self.agent.registry.get(request.session_id)
        real = {o["configId"] for o in config_options(plugins.config_options(session.context) or [])}
        if request.config_id not in real and request.config_id == "mode" and isinstance(value, str):
            # A mode only the core's modes hook offers: v2's "mode" select (session_options) sets it.
            await self.agent.set_session_mode(session_id=request.session_id, mode_id=value)
            modes, options = plugins.session_modes(session.context), plugins.config_options(session.context)
            return {"configOptions": session_options(modes, options)}
        response = await self.agent.set_config_option(
            config_id=request.config_id, session_id=request.session_id, value=value
        )
        return {"configOptions": config_options(response.config_options or [])}
