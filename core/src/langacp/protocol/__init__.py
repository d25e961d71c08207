"""The ACP protocol as langacp speaks it beyond what the SDK (agent-client-protocol 0.12) has.

- :mod:`.models`: typed models of the newer stable v1 shapes (notices, compaction, a tool
  call's ``name``, the client capabilities the SDK drops), checked against the official schema;
- :mod:`.unstable`: the unstable updates langacp sends behind their capabilities (plans by id,
  subagents);
- :mod:`.capabilities`: what the client advertised, what this build offers;
- :mod:`.routes`: the methods the SDK cannot route;
- :func:`send_update`: one ``session/update``, whether the SDK has a model for it or not.

When the SDK catches up, this package shrinks.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from typing import Any, NamedTuple

from langacp.protocol.capabilities import (
    OFFERED,
    client_boolean_options,
    client_compaction,
    client_notices,
    client_plans,
    client_subagents,
    protocol_report,
)
from langacp.protocol.models import (
    CompactionSummaryChunk,
    CompactionUpdate,
    NamedToolCallProgress,
    NamedToolCallStart,
    NoticeUpdate,
    ProtocolUpdate,
)
from langacp.protocol.unstable import (
    ForSession,
    SessionMessage,
    SessionMessageChunk,
    SubagentUpdate,
)
from langacp.protocol.wire import WireUpdate

__all__ = [
    "CLIENT_SYSTEM_PROMPT",
    "OFFERED",
    "USER_MESSAGE_ID",
    "ClientPrompt",
    "CompactionSummaryChunk",
    "CompactionUpdate",
    "ForSession",
    "NamedToolCallProgress",
    "NamedToolCallStart",
    "NoticeUpdate",
    "ProtocolUpdate",
    "SessionMessage",
    "SessionMessageChunk",
    "SubagentUpdate",
    "client_boolean_options",
    "client_compaction",
    "client_notices",
    "client_overrides",
    "client_plans",
    "client_subagents",
    "client_system_prompt",
    "compaction_update",
    "plan_removed",
    "plan_update",
    "protocol_report",
    "send_update",
    "send_updates",
    "start_tool_call",
    "system_prompt_text",
    "update_json",
]

log = logging.getLogger("langacp.bridge")


class ClientPrompt(NamedTuple):
    """The client's unstable ``systemPrompt``: its text, and whether it replaces the agent's own instructions."""

    text: str
    override: bool = False


CLIENT_SYSTEM_PROMPT: contextvars.ContextVar[ClientPrompt | None] = contextvars.ContextVar(
    "langacp.client_system_prompt", default=None
)
"""While a session is opened: the client's ``systemPrompt``, whose text the core's
``langacp_system_prompt`` adds after every plugin's addition; with ``override``, the
instructions the agent's factory passes (``SessionSetup.system_prompt(base)``) are left out."""


USER_MESSAGE_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("langacp.user_message_id", default=None)
"""While a v2 prompt's turn starts: the ``messageId`` its user message was inserted with (the
stored message keeps it, so a replay sends the same id)."""


def system_prompt_text(system_prompt: Any) -> str:
    """The text of an unstable ``systemPrompt`` (``append`` or ``override``); -32602 for anything else.

    Content other than text blocks, or an empty one, is refused: the session is then not
    opened, as ACP asks. An override must say something (it replaces the agent's instructions).
    """
    from acp import RequestError

    mode = getattr(system_prompt, "mode", None)
    if mode not in ("append", "override"):
        raise RequestError.invalid_params({"details": f"systemPrompt mode {str(mode)[:40]!r} is not supported"})
    blocks = getattr(system_prompt, "content", None) or []
    texts = [b.get("text") for b in blocks]
    if not blocks or any(b.get("type") != "text" or not isinstance(t, str) for b, t in zip(blocks, texts, strict=True)):
        raise RequestError.invalid_params({"details": "systemPrompt content must be one or more text blocks"})
    text = "\n\n".join(t for t in texts if isinstance(t, str) and t.strip())
    if mode == "override" and not text:
        raise RequestError.invalid_params({"details": "a systemPrompt override must have some text"})
    return text


def client_overrides() -> bool:
    """The session being opened has the client's ``systemPrompt`` in ``override`` mode."""
    client = CLIENT_SYSTEM_PROMPT.get()
    return client is not None and client.override


def client_system_prompt(system_prompt: Any) -> ClientPrompt | None:
    """The client's ``systemPrompt`` as the session being opened takes it (``None``: nothing to apply)."""
    text = system_prompt_text(system_prompt)
    override = getattr(system_prompt, "mode", None) == "override"
    return ClientPrompt(text, override) if text or override else None


_OWN = (ProtocolUpdate, NamedToolCallStart, NamedToolCallProgress)


def update_json(update: Any) -> dict[str, Any]:
    """``update`` as it goes on the wire (camelCase, no ``null`` fields); a :class:`WireUpdate` is that already."""
    if isinstance(update, WireUpdate):
        return dict(update.data)
    dumped: dict[str, Any] = update.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


async def send_update(client: Any, session_id: str, update: Any) -> None:
    """Send ``update`` for ``session_id`` to ``client`` (the SDK's ``AgentSideConnection``).

    An SDK model goes through the SDK; one of this package's (which the SDK's
    ``SessionNotification`` would refuse or strip) is written as JSON on the same connection, as
    is a :class:`~langacp.protocol.wire.WireUpdate` (already JSON). A client object without the
    SDK's connection (a test double, a v2 connection's mapping) gets it through its own
    ``session_update``, as the model. A :class:`ForSession` goes out for its own session.
    """
    if isinstance(update, ForSession):
        session_id, update = update.session_id, update.update
    wire = type(update) is WireUpdate
    own = isinstance(update, _OWN)
    if wire or own or type(update) in _sdk_updates():
        from langacp.compat import sdk

        try:
            sdk.sdk_connection(client)
        except AttributeError:
            pass
        else:
            dumped = update.data if wire else update_json(update) if own else sdk_update_json(update)
            await sdk.send_raw_notification(client, "session/update", {"sessionId": session_id, "update": dumped})
            return
    await client.session_update(session_id=session_id, update=update.model() if wire else update)


async def send_updates(
    client: Any, session_id: str, updates: list[Any], prepare: Callable[[Any], Any] = lambda update: update
) -> None:
    """Send ``prepare(update)`` for each of ``updates``, in order, as :func:`send_update` sends it.

    Updates it writes as JSON on the SDK's connection go to it together
    (:func:`langacp.compat.sdk.send_raw_notifications`: one write for a replay's hundreds); the
    others (another session's, a class the SDK routes itself, any update to a client without the
    SDK's connection) go one by one through :func:`send_update`, the order kept. An update that
    cannot be prepared or dumped is logged and skipped, as the session's outbox skips one that
    fails to send; a closed connection (``ConnectionError``, ``RuntimeError``) raises.
    """
    from langacp.compat import sdk

    try:
        sdk.sdk_connection(client)
    except AttributeError:
        raw = False
    else:
        raw = True
    sdk_classes = _sdk_updates()
    params: list[dict[str, Any]] = []
    for update in updates:
        try:
            update = prepare(update)
            if raw and type(update) is WireUpdate:
                params.append({"sessionId": session_id, "update": update.data})
                continue
            own = isinstance(update, _OWN)
            if raw and (own or type(update) in sdk_classes):
                dumped = update_json(update) if own else sdk_update_json(update)
                params.append({"sessionId": session_id, "update": dumped})
                continue
        except (ConnectionError, RuntimeError):
            raise
        except Exception:
            log.exception("failed to send a session update")
            continue
        if params:
            await sdk.send_raw_notifications(client, "session/update", params)
            params = []
        try:
            await send_update(client, session_id, update)
        except (ConnectionError, RuntimeError):
            raise
        except Exception:
            log.exception("failed to send a session update")
    if params:
        await sdk.send_raw_notifications(client, "session/update", params)


def sdk_update_json(update: Any) -> dict[str, Any]:
    """An SDK update model as the SDK's ``session_update`` puts it in ``params.update``.

    The SDK validates a ``SessionNotification`` around the update (which takes an update of
    exactly one of its classes as it is) and dumps it with ``serialize_params``' options;
    dumping the update alone with them gives the same JSON without validating it again.
    For an update of exactly one of those classes (:func:`_sdk_updates`); anything else goes through the SDK.
    """
    dumped: dict[str, Any] = update.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
    return dumped


_SDK_UPDATES: frozenset[type] | None = None


def _sdk_updates() -> frozenset[type]:
    """The classes the SDK's ``SessionNotification.update`` accepts (read from its schema once)."""
    global _SDK_UPDATES
    if _SDK_UPDATES is None:
        import typing

        from acp.schema import SessionNotification

        annotation = SessionNotification.model_fields["update"].annotation
        _SDK_UPDATES = frozenset(t for t in typing.get_args(annotation) if isinstance(t, type))
    return _SDK_UPDATES


def start_tool_call(tool_call_id: str, title: str, *, name: str | None, **fields: Any) -> NamedToolCallStart:
    """``acp.start_tool_call(tool_call_id, title, **fields)`` with ``name``, the tool's programmatic name.

    Validated once, as the SDK's helper builds it (``content`` and ``locations`` as lists).
    """
    for key in ("content", "locations"):
        if fields.get(key) is not None:
            fields[key] = list(fields[key])
    return NamedToolCallStart(session_update="tool_call", tool_call_id=tool_call_id, title=title, name=name, **fields)


def compaction_update(
    compaction_id: str, status: str, *, summary: list[Any] | None = None, error: str | None = None
) -> CompactionUpdate:
    """A ``compaction_update`` (``summary``: content blocks; only to a client with ``session.compaction``)."""
    fields: dict[str, Any] = {"compactionId": compaction_id, "status": status}
    if summary is not None:
        fields["summary"] = summary
    if error is not None:
        fields["error"] = error
    return CompactionUpdate.model_validate(fields)


def plan_update(plan_id: str, entries: list[Any]) -> Any:
    """An unstable ``plan_update``: plan ``plan_id`` is now ``entries`` (``acp.schema.PlanEntry``); only to a
    client with ``clientCapabilities.plan`` (:func:`client_plans`). The SDK's model."""
    from acp.schema import AgentPlanContentUpdate, PlanUpdateItems

    items = PlanUpdateItems(type="items", plan_id=plan_id, entries=entries)
    return AgentPlanContentUpdate(session_update="plan_update", plan=items)


def plan_removed(plan_id: str) -> Any:
    """An unstable ``plan_removed`` for plan ``plan_id`` (only to a client with ``clientCapabilities.plan``)."""
    from acp.schema import AgentPlanRemovedUpdate

    return AgentPlanRemovedUpdate(session_update="plan_removed", plan_id=plan_id)
