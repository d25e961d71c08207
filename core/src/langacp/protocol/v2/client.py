"""The client as the session core sees it on a v2 connection: same methods, v2 on the wire.

:class:`V2Client` takes the place of the SDK's connection for the core and the plugins once v2
is negotiated. ``session_update`` maps each v1 update through :func:`~.mapping.to_v2`;
``request_permission`` asks in v2's shape (a title of its own, the tool call as its subject);
both questions (a permission, an elicitation) report ``requires_action`` while they wait and
``running`` once answered, through the turn lifecycle of :mod:`.turns`; a question whose turn is
cancelled while it waits is withdrawn with ``$/cancel_request``. Messages are framed and sent by
the SDK's connection (:mod:`langacp.compat.sdk`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from langacp.compat import sdk
from langacp.protocol.v2.background import Background
from langacp.protocol.v2.mapping import to_v2, tool_call_fields
from langacp.protocol.v2.models import RequestPermissionRequest, ToolCallPermissionSubject, wire
from langacp.terminals import TerminalEvent

__all__ = ["V2Client"]

_CHUNKS = ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")

log = logging.getLogger("langacp.protocol")


class V2Client:
    """The SDK's ``AgentSideConnection`` seen through v2 (for the session core and the plugins)."""

    def __init__(self, conn: Any, waiting: Callable[[str, bool], Any], seen: Callable[[str, dict[str, Any]], None]):
        self._sdk = conn
        self._waiting = waiting
        """``waiting(session_id, True)`` when a question starts waiting for the user, ``False`` once answered."""
        self._seen = seen
        """Told of every v2 update sent."""
        self._cancellable: set[tuple[str, str]] = set()
        """(session id, tool call id) of the running tool calls advertised with ``capabilities.cancel``."""
        self._cancelled: set[tuple[str, str]] = set()
        """Those the client cancelled: their final ``failed`` is ``cancelled``."""
        self._replaying: dict[str, set[str]] = {}
        """Sessions whose history is being replayed: the message ids already primed."""
        self.background = Background()
        """The sessions' background work, listed on their state updates."""
        self.snapshot: Callable[[str], Awaitable[None]] | None = None
        """Sends the session's current state (set by the wire: the turns know it)."""

    async def send(self, session_id: str, update: dict[str, Any]) -> None:
        """Send one v2 ``session/update`` (a state update with the session's background work)."""
        update = self.background.listed(session_id, update)
        self._seen(session_id, update)
        await sdk.send_raw_notification(self._sdk, "session/update", {"sessionId": session_id, "update": update})

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        changed = isinstance(update, TerminalEvent) and self.background.seen(session_id, update)
        await self._send_mapped(session_id, update)
        if changed and self.snapshot is not None:  # after a listed terminal's exit: the list without it
            await self.snapshot(session_id)

    async def _send_mapped(self, session_id: str, update: Any) -> None:
        for mapped in to_v2(update):
            if mapped["sessionUpdate"] == "tool_call_update":
                self._tool_call(session_id, mapped)
            primed = self._replaying.get(session_id)
            if primed is not None and mapped["sessionUpdate"] in _CHUNKS and mapped["messageId"] not in primed:
                # A replayed message's chunks follow its whole form with no content (session/resume's replay).
                primed.add(mapped["messageId"])
                whole = mapped["sessionUpdate"][: -len("_chunk")]
                await self.send(session_id, {"sessionUpdate": whole, "messageId": mapped["messageId"], "content": []})
            await self.send(session_id, mapped)

    def replaying(self, session_id: str, on: bool) -> None:
        """While on, each replayed message's first chunk is preceded by its whole form with ``content: []``."""
        if on:
            self._replaying[session_id] = set()
        else:
            self._replaying.pop(session_id, None)

    def _tool_call(self, session_id: str, update: dict[str, Any]) -> None:
        """A running tool call advertises ``cancel`` (on a session that allows it); a final one no longer."""
        from langacp.protocol import tool_cancels

        key, status = (session_id, update["toolCallId"]), update.get("status")
        if status == "in_progress" and tool_cancels.enabled(session_id):
            self._cancellable.add(key)
            update["capabilities"] = {"cancel": {}}
        elif status in ("completed", "failed", "cancelled") and key in self._cancellable:
            self._cancellable.discard(key)
            update["capabilities"] = None
            if key in self._cancelled:
                self._cancelled.discard(key)
                update["status"] = "cancelled"

    def cancellable(self, session_id: str, tool_call_id: str) -> bool:
        """The tool call runs and was advertised with ``capabilities.cancel``."""
        return (session_id, tool_call_id) in self._cancellable

    def cancelling(self, session_id: str, tool_call_id: str) -> None:
        """The client cancelled the tool call: its final status is ``cancelled``."""
        self._cancelled.add((session_id, tool_call_id))

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        from acp.schema import RequestPermissionResponse

        call = tool_call_fields(tool_call.model_dump(mode="json", by_alias=True, exclude_none=True))
        title = call.get("title") or call.get("name") or "Allow this tool call?"
        request = RequestPermissionRequest(
            sessionId=session_id,
            title=str(title),
            subject=ToolCallPermissionSubject(toolCall=call),
            options=[o.model_dump(mode="json", by_alias=True, exclude_none=True) for o in options],
        )
        result = await self._ask(session_id, "session/request_permission", wire(request))
        return RequestPermissionResponse.model_validate(result)

    async def create_elicitation(self, message: str, mode: Any, **_: Any) -> Any:
        """``elicitation/create`` in v2's shape (``mode``, ``requestedSchema.type``: required there)."""
        from acp.schema import CreateElicitationResponse, ElicitationUrlSessionMode
        from pydantic import TypeAdapter

        kind = "url" if isinstance(mode, ElicitationUrlSessionMode) else "form"
        params = {"message": message, "mode": kind, **mode.model_dump(mode="json", by_alias=True, exclude_none=True)}
        session_id = params.get("sessionId")
        result = await self._ask(session_id if isinstance(session_id, str) else None, "elicitation/create", params)
        return TypeAdapter(CreateElicitationResponse).validate_python(result)

    async def _ask(self, session_id: str | None, method: str, params: dict[str, Any]) -> Any:
        """A question for the user: ``requires_action`` while it waits; withdrawn if the wait is cancelled."""
        if session_id is not None:
            await self._waiting(session_id, True)
        request_id = sdk.next_request_id(self._sdk)
        try:
            return await sdk.send_raw_request(self._sdk, method, params)
        except asyncio.CancelledError:  # the turn (or the tool call) asking was cancelled: nobody waits for it
            with contextlib.suppress(Exception):
                await sdk.send_raw_notification(self._sdk, "$/cancel_request", {"requestId": request_id})
            raise
        finally:
            if session_id is not None:
                await self._waiting(session_id, False)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # never the SDK connection's insides: this is not an SDK connection
            raise AttributeError(name)
        return getattr(self._sdk, name)
