"""LangChain ``HumanInTheLoopMiddleware`` interrupts answered as permission requests.

Both of its interrupt modes are understood:

* ``batched`` (the default): one interrupt whose value lists ``action_requests``; it is
  resumed with ``{"decisions": [...]}``, one decision per action, in order.
* ``per_call``: one ``tool_approval`` interrupt per gated call; each is resumed with one
  decision, keyed by interrupt id.

Every action goes through the same decision as a tool call the tool guard sees: a policy
``deny`` or a remembered "always reject" rejects it, an ``allow`` (or "always allow")
approves it, and ``ask`` sends a permission request. A rejection carries the reason, which
the middleware hands to the model so it can re-plan. When the client shows forms and the
action allows ``edit`` or ``respond``, a rejection in the permission request is followed by
a form: reject, run it with edited arguments (prefilled with the model's), or answer for the
tool; an action that allows only ``respond`` is a form at once.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Sequence
from typing import Any

from langacp.api import PermissionVerdict, PromptCancelled, SessionContext, ToolCallInfo, pending_tool_calls
from langacp_permissions.decisions import DECLINED, ask, decide
from langacp_permissions.session import call_key, state_of

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
    policy: PermissionVerdict = plugins.permission_verdict(call, kind, session)
    if policy.decision != "ask":
        return policy
    asked: PermissionVerdict = await plugins.ask_permission_verdict(call, kind, session)
    return asked


async def _decision(session: SessionContext, call: ToolCallInfo, allowed: Sequence[str]) -> dict[str, Any]:
    if "approve" not in allowed and "reject" not in allowed and "respond" in allowed:
        answered = await _instead(session, call, ["respond"], "")  # an "ask the user" tool: the answer is the result
        if answered is not None:
            return answered
    verdict = await _verdict(session, call)
    if verdict.decision == "allow" and "approve" in allowed:
        return {"type": "approve"}
    if verdict.reason == DECLINED and ("edit" in allowed or "respond" in allowed):
        instead = [kind for kind in ("reject", "edit", "respond") if kind in allowed]
        answered = await _instead(session, call, instead, f"You rejected {call.name}. ")
        if answered is not None:
            return answered
    reason = verdict.reason or "the user declined it"
    if verdict.decision == "allow":
        reason = "approving is not among the decisions this tool allows"
    if "reject" in allowed:
        return {"type": "reject", "message": f"{reason}. The tool did not run; do not retry it unchanged."}
    if "respond" in allowed:
        return {"type": "respond", "message": f"The call to {call.name} did not run: {reason}."}
    raise PromptCancelled(f"the call to {call.name} was not approved and cannot be rejected")


_INSTEAD = {
    "reject": "Reject it",
    "edit": "Run it with the arguments below",
    "respond": "Answer for the tool (it does not run)",
}
_PLAIN = (str, int, float, bool)


async def _instead(
    session: SessionContext, call: ToolCallInfo, kinds: Sequence[str], lead: str
) -> dict[str, Any] | None:
    """With a client that shows forms: the user edits the call's arguments or answers for the tool
    (``HumanInTheLoopMiddleware``'s ``edit`` / ``respond``); ``None`` when the form is not shown or
    not answered (the caller's decision stands)."""
    plain = all(isinstance(value, _PLAIN) for value in call.args.values())
    properties: dict[str, Any] = {}
    if len(kinds) > 1:
        choices = [{"const": kind, "title": _INSTEAD[kind]} for kind in kinds]
        properties["decision"] = {"type": "string", "title": "Instead", "oneOf": choices, "default": kinds[0]}
    if "edit" in kinds:
        if plain:
            for name, value in call.args.items():
                kind = {bool: "boolean", int: "integer", float: "number"}.get(type(value), "string")
                properties[f"arg_{name}"] = {"type": kind, "title": name, "default": value}
        else:
            shown = json.dumps(call.args, ensure_ascii=False)
            properties["arguments"] = {"type": "string", "title": "Arguments (JSON)", "default": shown}
    properties["message"] = {
        "type": "string",
        "title": "Your answer" if kinds == ["respond"] else "Message to the model",
    }
    schema = {"type": "object", "properties": properties, "required": ["decision"] if len(kinds) > 1 else ["message"]}
    shown_args = json.dumps(call.args, ensure_ascii=False)
    message = f"{lead}{call.name} {shown_args}" if lead else f"{call.name} asks: {shown_args}"
    result = await session.elicit(message, schema)
    if not result.accepted or result.content is None:
        return None
    content = result.content
    kind = content.get("decision", kinds[0])
    text = str(content.get("message") or "")
    if kind == "respond":
        return {"type": "respond", "message": text}
    if kind == "edit":
        args = _edited(call, content, plain)
        if args is not None:
            # The user runs it (LangChain substitutes the arguments inside the tool call, after the core's
            # tool guard has seen the model's call): the guard must not ask again. A deny rule still wins.
            state_of(session).answered[call_key(call)] = PermissionVerdict("allow")
            return {"type": "edit", "edited_action": {"name": call.name, "args": args}}
        text = text or "the edited arguments were not a JSON object"
    return {"type": "reject", "message": text or f"The user rejected {call.name}. The tool did not run."}


def _edited(call: ToolCallInfo, content: dict[str, Any], plain: bool) -> dict[str, Any] | None:
    if plain:
        return {name: content.get(f"arg_{name}", value) for name, value in call.args.items()}
    try:
        args = json.loads(str(content.get("arguments") or "{}"))
    except ValueError:
        return None
    return args if isinstance(args, dict) else None


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
