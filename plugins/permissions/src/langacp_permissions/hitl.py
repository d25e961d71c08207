"""LangChain ``HumanInTheLoopMiddleware`` interrupts answered as permission requests.

Both of its interrupt modes are understood:

* ``batched`` (the default): one interrupt whose value lists ``action_requests``; it is
  resumed with ``{"decisions": [...]}``, one decision per action, in order.
* ``per_call``: one ``tool_approval`` interrupt per gated call; each is resumed with one
  decision, keyed by interrupt id.

Every action goes through the same decision as a tool call the tool guard sees: a policy
``deny`` or a remembered "always reject" rejects it, an ``allow`` (or "always allow")
approves it, and ``ask`` sends a permission request. A rejection carries the reason, which
the middleware hands to the model so it can re-plan.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Sequence
from typing import Any

from langacp.api import PermissionVerdict, PromptCancelled, SessionContext, ToolCallInfo, pending_tool_calls
from langacp_permissions.decisions import ask, decide

__all__ = ["resume_value"]

_ALL_DECISIONS = ("approve", "edit", "reject", "respond")


def _request_of(interrupt: Any) -> dict[str, Any] | None:
    """The interrupt's value if it is a human-in-the-loop request, else ``None``."""
    value = getattr(interrupt, "value", None)
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("action_requests"), list):
        return value
    if value.get("type") == "tool_approval" and isinstance(value.get("name"), str):
        return value
    return None


def resume_value(session: SessionContext, interrupts: Sequence[Any]) -> Awaitable[Any] | None:
    """The awaitable resume value for these interrupts, or ``None`` if they are not all ours."""
    requests = [_request_of(interrupt) for interrupt in interrupts]
    if not requests or any(request is None for request in requests):
        return None
    return _answer(session, list(interrupts), [r for r in requests if r is not None])


async def _answer(session: SessionContext, interrupts: list[Any], requests: list[dict[str, Any]]) -> Any:
    pending = _pending_calls(session)
    answers: list[Any] = []
    for interrupt, request in zip(interrupts, requests, strict=True):
        if "action_requests" in request:
            configs = request.get("review_configs") or []
            decisions = []
            for index, action in enumerate(request["action_requests"]):
                config = configs[index] if index < len(configs) and isinstance(configs[index], dict) else {}
                allowed = config.get("allowed_decisions") or _ALL_DECISIONS
                call = _call_for(action, pending)
                decisions.append(await _decision(session, call, allowed))
            answers.append({"decisions": decisions})
        else:
            call = ToolCallInfo(
                str(request.get("tool_call_id") or ""), request["name"], dict(request.get("args") or {})
            )
            allowed = _allowed_from_schema(getattr(interrupt, "response_schema", None)) or _ALL_DECISIONS
            answers.append(await _decision(session, call, allowed))
    if len(interrupts) == 1:
        return answers[0]
    return {interrupt.id: answer for interrupt, answer in zip(interrupts, answers, strict=True)}


async def _verdict(session: SessionContext, call: ToolCallInfo) -> PermissionVerdict:
    """The core's decision for ``call`` (the policy with every plugin's rules), asking the user if it says so."""
    plugins = session.plugins
    if plugins is None:  # no plugin manager: this plugin's policy alone
        verdict = decide(call, "other", session)
        return await ask(call, "other", session) if verdict.decision == "ask" else verdict
    kind = plugins.tool_kind(call, session)
    verdict = plugins.permission_verdict(call, kind, session)
    return await plugins.ask_permission_verdict(call, kind, session) if verdict.decision == "ask" else verdict


async def _decision(session: SessionContext, call: ToolCallInfo, allowed: Sequence[str]) -> dict[str, Any]:
    verdict = await _verdict(session, call)
    if verdict.decision == "allow" and "approve" in allowed:
        return {"type": "approve"}
    reason = verdict.reason or "the user declined it"
    if verdict.decision == "allow":
        reason = "approving is not among the decisions this tool allows"
    if "reject" in allowed:
        return {"type": "reject", "message": f"{reason}. The tool did not run; do not retry it unchanged."}
    if "respond" in allowed:
        return {"type": "respond", "message": f"The call to {call.name} did not run: {reason}."}
    raise PromptCancelled(f"the call to {call.name} was not approved and cannot be rejected")


def _pending_calls(session: SessionContext) -> list[ToolCallInfo]:
    """Tool calls of this turn announced to the client and not started, in order."""
    return pending_tool_calls(session)


def _call_for(action: Any, pending: list[ToolCallInfo]) -> ToolCallInfo:
    """The announced tool call an action request is about (same name and arguments), so the
    permission request names the call the client already shows; a fresh id if none matches."""
    name = str(action.get("name") or "") if isinstance(action, dict) else ""
    args = dict(action.get("args") or {}) if isinstance(action, dict) else {}
    for index, call in enumerate(pending):
        if call.name == name and call.args == args:
            return pending.pop(index)
    return ToolCallInfo(f"hitl-{uuid.uuid4().hex[:12]}", name, args)


def _allowed_from_schema(schema: Any) -> list[str]:
    """Decision types a per-call interrupt's JSON schema accepts (``[]`` if it says nothing)."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            kind = (node.get("properties") or {}).get("type") if isinstance(node.get("properties"), dict) else None
            if isinstance(kind, dict):
                values = [kind["const"]] if "const" in kind else kind.get("enum") or []
                found.extend(v for v in values if isinstance(v, str) and v not in found)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(schema)
    return found
