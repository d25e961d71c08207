"""ACP v2 on the client side: the requests a v2 agent takes, and its callbacks in the shape v1 gives them.

:class:`AcpConnection <langacp.client.connection.AcpConnection>` uses a :class:`V2Client` once
``initialize`` settled on version 2. The SDK (v1 only) still carries the JSON-RPC; this module
takes over its incoming messages and speaks v2's methods: the prompt is acknowledged and the turn
ends with an ``idle`` ``state_update``; ``session/load`` becomes ``session/resume`` with replay;
modes are a config option; ``auth/login`` replaces ``authenticate``; one tool call can be
cancelled. Updates are folded (:mod:`langacp.client.v2_fold`) into the v1 models the handler,
listeners and an attached editor already take, so callers see the same objects in either version.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from langacp.client.policy import PermissionRequest
from langacp.client.v2_fold import SessionFold, commands_v1, config_options_v1, modes_v1, tool_call_v1

if TYPE_CHECKING:
    from acp.schema import (
        InitializeResponse,
        ListSessionsResponse,
        LoadSessionResponse,
        NewSessionResponse,
        PromptResponse,
        SetSessionConfigOptionResponse,
    )

    from langacp.client.router import CallbackRouter

__all__ = ["V2Client", "initialize_params", "initialize_v1"]

log = logging.getLogger(__name__)

_REQUEST_ID: ContextVar[Any] = ContextVar("langacp_v2_request_id", default=None)
"""The JSON-RPC id of the agent's request being answered (``$/cancel_request`` names it)."""


def initialize_params(protocol_version: int, capabilities: Any, info: Any) -> dict[str, Any]:
    """``initialize`` params readable in both versions: v2's ``info`` / ``capabilities`` beside v1's names.

    An agent that answers 1 reads the v1 fields (each version's parser drops the other's).
    """
    v1_capabilities = capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
    v1_info = info.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        "protocolVersion": protocol_version,
        "info": v1_info,
        "capabilities": {},
        "clientInfo": v1_info,
        "clientCapabilities": v1_capabilities,
    }


def initialize_v1(result: dict[str, Any]) -> InitializeResponse:
    """A v2 ``initialize`` answer as the v1 ``InitializeResponse`` callers read (``protocol_version`` stays 2)."""
    from acp.schema import InitializeResponse

    from langacp.protocol.v2.negotiation import FORGETS_SESSIONS

    session = (result.get("capabilities") or {}).get("session") or {}
    meta = (result.get("capabilities") or {}).get("_meta") or {}
    # session/resume with replay does what load did, unless the agent says it keeps no session
    persistent = not (isinstance(meta, dict) and meta.get(FORGETS_SESSIONS) is True)
    capabilities: dict[str, Any] = {"loadSession": persistent}
    if isinstance(session.get("prompt"), dict):
        capabilities["promptCapabilities"] = session["prompt"]
    v1 = {
        "protocolVersion": 2,
        "agentInfo": result.get("info"),
        "agentCapabilities": capabilities,
        "authMethods": [  # v2 names a method's id methodId
            {**{k: v for k, v in m.items() if k != "methodId"}, "id": m["methodId"]}
            for m in result.get("authMethods") or []
            if isinstance(m, dict) and "methodId" in m
        ],
        "_meta": result.get("_meta"),
    }
    try:
        return InitializeResponse.model_validate(v1)
    except ValueError:  # an auth method or capability v1 has no form for
        fallback = {"loadSession": persistent}
        return InitializeResponse.model_validate({**v1, "authMethods": [], "agentCapabilities": fallback})


class V2Client:
    """The v2 side of one connection: its requests, and the incoming messages routed to ``router``."""

    def __init__(self, connection: Any, router: CallbackRouter, init: dict[str, Any]) -> None:
        self.connection = connection
        """The SDK's JSON-RPC ``Connection`` (``send_request`` / ``send_notification``)."""
        self.router = router
        self.init = init
        """The agent's ``initialize`` answer, as sent."""
        self.sessions: dict[str, SessionFold] = {}
        self._permission_ids = 0
        self._last: asyncio.Future[None] | None = None
        self._asking: dict[Any, asyncio.Future[Any]] = {}
        """Permission requests being answered, by request id."""

    def request_runner(
        self, run: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
    ) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
        """Wraps the SDK's runner of incoming requests so :meth:`handle` knows each one's id."""

        async def runner(message: dict[str, Any]) -> dict[str, Any]:
            token = _REQUEST_ID.set(message.get("id"))
            try:
                return await run(message)
            finally:
                _REQUEST_ID.reset(token)

        return runner

    def fold(self, session_id: str) -> SessionFold:
        return self.sessions.setdefault(session_id, SessionFold())

    # -- incoming ------------------------------------------------------------------------------

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        """The agent's requests and notifications (the SDK's ``Connection`` handler signature)."""
        from acp import RequestError

        params = params if isinstance(params, dict) else {}
        if method == "session/update":
            await self._update(params)
            return None
        if method == "session/request_permission":
            return await self._permission(params)
        if method == "$/cancel_request":  # the agent withdrew a question: stop asking it
            asking = self._asking.get(params.get("requestId"))
            if asking is not None:
                asking.cancel()
            return None
        if method.startswith("_"):
            if is_notification:
                await self.router.ext_notification(method[1:], params)
                return None
            return await self.router.ext_method(method[1:], params)
        if is_notification:
            return None  # $/cancel_request and notifications of later drafts: nothing to do
        raise RequestError.method_not_found(method)

    async def _update(self, params: dict[str, Any]) -> None:
        from acp.schema import SessionNotification

        # one at a time, in arrival order: a turn ends only once what came before it was delivered
        previous, self._last = self._last, asyncio.get_running_loop().create_future()
        done = self._last
        try:
            if previous is not None:
                await previous
            session_id = str(params.get("sessionId", ""))
            update = params.get("update")
            if isinstance(update, dict):
                for v1 in self.fold(session_id).fold(update):
                    await self._deliver(SessionNotification, session_id, v1, params.get("_meta"))
        finally:
            done.set_result(None)

    async def _deliver(self, model: Any, session_id: str, v1: dict[str, Any], meta: Any = None) -> None:
        try:
            update = model.model_validate({"sessionId": session_id, "update": v1}).update
        except ValueError as exc:
            update = _protocol_update(v1)
            if update is None:
                log.debug("a v2 update with no v1 form (%s): %s", v1.get("sessionUpdate"), exc)
                return
        extra = {"_meta": meta} if isinstance(meta, dict) else {}
        await self.router.session_update(session_id, update, **extra)

    async def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        from acp.schema import PermissionOption, ToolCallUpdate

        session_id = str(params.get("sessionId", ""))
        title = params.get("title") if isinstance(params.get("title"), str) else None
        subject = params.get("subject") if isinstance(params.get("subject"), dict) else None
        call: dict[str, Any]
        if subject is not None and subject.get("type") == "tool_call" and isinstance(subject.get("toolCall"), dict):
            call = tool_call_v1(subject["toolCall"], "tool_call_update")
        elif isinstance(params.get("toolCall"), dict):  # v1's shape, from an agent still half in v1
            call = tool_call_v1(params["toolCall"], "tool_call_update")
        elif subject is not None and subject.get("type") == "command":
            call = {
                "toolCallId": subject.get("toolCallId") or self._permission_id(),
                "kind": "execute",
                "rawInput": {"command": subject.get("command"), "cwd": subject.get("cwd")},
            }
        else:
            call = {"toolCallId": self._permission_id()}
        call.pop("sessionUpdate", None)
        call.setdefault("title", title)
        request = PermissionRequest(
            session_id,
            ToolCallUpdate.model_validate(call),
            [PermissionOption.model_validate(o) for o in params.get("options") or []],
            title=title,
            subject=subject,
        )
        request_id = _REQUEST_ID.get()
        asking = asyncio.ensure_future(self.router.permission(request))
        self._asking[request_id] = asking
        try:
            await asyncio.wait([asking])
        except asyncio.CancelledError:
            asking.cancel()
            raise
        finally:
            self._asking.pop(request_id, None)
        if asking.cancelled():  # withdrawn by $/cancel_request
            return {"outcome": {"outcome": "cancelled"}}
        response = asking.result()
        return response.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[no-any-return]

    def _permission_id(self) -> str:
        self._permission_ids += 1
        return f"permission-{self._permission_ids}"

    # -- requests ------------------------------------------------------------------------------

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        return await self.connection.send_request(method, params)

    async def _opened(self, session_id: str, result: dict[str, Any]) -> None:
        from acp.schema import SessionNotification

        fold = self.fold(session_id)
        fold.config_options = [o for o in result.get("configOptions") or [] if isinstance(o, dict)]
        if result.get("availableCommands"):
            await self._deliver(SessionNotification, session_id, commands_v1(result["availableCommands"]))

    def _session_fields(self, result: dict[str, Any]) -> dict[str, Any]:
        fields: dict[str, Any] = {"configOptions": config_options_v1(result.get("configOptions"))}
        modes = modes_v1(result.get("configOptions")) or result.get("modes")  # modes: an agent half in v1
        if modes is not None:
            fields["modes"] = modes
        return fields

    async def new_session(
        self, cwd: str, mcp_servers: list[Any], additional_directories: Sequence[str] | None
    ) -> NewSessionResponse:
        from acp.schema import NewSessionResponse

        params: dict[str, Any] = {"cwd": cwd, "mcpServers": [_dump(s) for s in mcp_servers]}
        if additional_directories:
            params["additionalDirectories"] = list(additional_directories)
        result = await self.request("session/new", params)
        await self._opened(result["sessionId"], result)
        return NewSessionResponse.model_validate({"sessionId": result["sessionId"], **self._session_fields(result)})

    async def resume(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[Any],
        additional_directories: Sequence[str] | None,
        replay: bool = True,
    ) -> LoadSessionResponse:
        """``session/resume``, replaying the conversation from its start (as ``session/load`` did in v1)."""
        from acp.schema import LoadSessionResponse

        params: dict[str, Any] = {"sessionId": session_id, "cwd": cwd, "mcpServers": [_dump(s) for s in mcp_servers]}
        if additional_directories:
            params["additionalDirectories"] = list(additional_directories)
        if replay:
            params["replayFrom"] = {"type": "start"}
            self.sessions[session_id] = SessionFold()  # the replay rebuilds every message and tool call
        result = await self.request("session/resume", params) or {}
        await self._opened(session_id, result)
        return LoadSessionResponse.model_validate(self._session_fields(result))

    async def list_sessions(self, cwd: str | None, cursor: str | None) -> ListSessionsResponse:
        from acp.schema import ListSessionsResponse

        params = {k: v for k, v in (("cwd", cwd), ("cursor", cursor)) if v is not None}
        return ListSessionsResponse.model_validate(await self.request("session/list", params))

    async def set_config_option(
        self, session_id: str, config_id: str, value: str | bool
    ) -> SetSessionConfigOptionResponse:
        from acp.schema import SetSessionConfigOptionResponse

        kind = "boolean" if isinstance(value, bool) else "id"
        params = {"sessionId": session_id, "configId": config_id, "type": kind, "value": value}
        result = await self.request("session/set_config_option", params)
        options = result.get("configOptions") if isinstance(result, dict) else None
        for v1 in self.fold(session_id).set_config(options):
            if v1["sessionUpdate"] == "current_mode_update":
                from acp.schema import SessionNotification

                await self._deliver(SessionNotification, session_id, v1)
        return SetSessionConfigOptionResponse.model_validate({"configOptions": config_options_v1(options)})

    async def set_mode(self, session_id: str, mode_id: str) -> SetSessionConfigOptionResponse:
        """v2 has no modes: the session's mode config option (category ``mode``) is set instead."""
        from acp import RequestError

        from langacp.client.v2_fold import mode_option

        option = mode_option(self.fold(session_id).config_options)
        if option is None:
            raise RequestError.invalid_params({"details": "this session has no mode config option"})
        return await self.set_config_option(session_id, str(option["configId"]), mode_id)

    async def prompt(self, session_id: str, blocks: list[Any]) -> PromptResponse:
        """Send the prompt; once acknowledged, wait for the ``idle`` state that ends its turn."""
        from acp.schema import PromptResponse

        fold = self.fold(session_id)
        turn = fold.begin()
        result = await self.request("session/prompt", {"sessionId": session_id, "prompt": [_dump(b) for b in blocks]})
        message_id = result.get("messageId") if isinstance(result, dict) else None
        fold.acknowledged(turn, message_id)
        if message_id is None and isinstance(result, dict) and isinstance(result.get("stopReason"), str):
            stop_reason = result["stopReason"]  # answered as v1 does, at the turn's end: no idle will come
            fold.turn = None
        else:
            stop_reason = await turn.done
        meta = {"messageId": message_id} if message_id else None
        try:
            return PromptResponse(stop_reason=stop_reason, field_meta=meta)  # type: ignore[arg-type]
        except ValueError:  # a stop reason v1 does not have (v2's "error", an extension)
            return PromptResponse.model_construct(stop_reason=stop_reason, field_meta=meta)

    async def cancel(self, session_id: str) -> None:
        await self.connection.send_notification("session/cancel", {"sessionId": session_id})

    async def cancel_tool_call(self, session_id: str, tool_call_id: str) -> None:
        await self.request("tool_call/cancel", {"sessionId": session_id, "toolCallId": tool_call_id})

    async def close_session(self, session_id: str) -> Any:
        self.sessions.pop(session_id, None)
        return await self.request("session/close", {"sessionId": session_id})

    async def login(self, method_id: str) -> Any:
        return await self.request("auth/login", {"methodId": method_id})

    async def logout(self) -> Any:
        return await self.request("auth/logout", {})


def _protocol_update(v1: dict[str, Any]) -> Any:
    """A stable v1 update the SDK has no model for (``notice``, compaction) as langacp's model, else ``None``.

    v2 sends notices to every client (v1 only to one advertising ``session.notices``): the agent
    tells what it could not apply this way, so they are passed on, not dropped.
    """
    from langacp.protocol import CompactionSummaryChunk, CompactionUpdate, NoticeUpdate, ProtocolUpdate

    models: dict[str, type[ProtocolUpdate]] = {
        "notice": NoticeUpdate,
        "compaction_update": CompactionUpdate,
        "compaction_summary_chunk": CompactionSummaryChunk,
    }
    model = models.get(str(v1.get("sessionUpdate")))
    if model is None:
        return None
    try:
        return model.model_validate(v1)
    except ValueError:
        return None


def _dump(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", by_alias=True, exclude_none=True) if dump is not None else value
