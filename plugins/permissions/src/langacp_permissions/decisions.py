"""The decision for one tool call: policy, then remembered answers, then asking the user.

``decide`` is what ``langacp_permission`` answers; ``ask`` is what ``langacp_ask_permission``
answers: a ``session/request_permission`` with four options whose names state what "always"
covers. Anything but a clear "allow" from the client leaves the tool unrun.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langacp.api import PermissionVerdict, PromptCancelled, SessionContext, ToolCallInfo
from langacp_permissions.remembered import recall, remember
from langacp_permissions.scope import Scope, scope_of
from langacp_permissions.session import call_key, policy_for, state_of

__all__ = ["ALLOW_ALWAYS", "ALLOW_ONCE", "REJECT_ALWAYS", "REJECT_ONCE", "ask", "decide", "options_for"]

log = logging.getLogger("langacp_permissions")

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE, REJECT_ALWAYS = "allow_once", "allow_always", "reject_once", "reject_always"
DECLINED = "the user declined it"


def _remembered_verdict(scope: Scope, decision: str) -> PermissionVerdict:
    if decision == "allow":
        return PermissionVerdict("allow")
    return PermissionVerdict("deny", f"the user chose to always reject {scope.describe()} in this session")


def decide(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionVerdict:
    """``allow``, ``ask`` or ``deny`` (with its reason) for a call, without asking anyone.

    A policy ``deny`` wins. Then an answer the user already gave about this very call in this
    turn, then a remembered "always" answer (which turns ``ask`` into allow, or anything into
    deny), then the policy's decision.
    """
    ruling = policy_for(session).decide(call.name, kind)
    if ruling.decision == "deny":
        why = f" ({ruling.rule.describe()})" if ruling.rule is not None else ""
        return PermissionVerdict("deny", f"the permission policy denies it{why}")
    answered = _answered(call, session)
    if answered is not None:
        return answered
    found = recall(session, call)
    if found is not None:
        scope, remembered = found
        if remembered == "deny" or (remembered == "allow" and ruling.decision == "ask"):
            return _remembered_verdict(scope, remembered)
    return PermissionVerdict(ruling.decision)


def _answered(call: ToolCallInfo, session: SessionContext) -> PermissionVerdict | None:
    """This turn's answer about this very call, if the user gave one (no key is made when none was given)."""
    answered = state_of(session).answered
    return answered.get(call_key(call)) if answered else None


def options_for(scope: Scope) -> list[Any]:
    """The four options, their names stating what "always" covers."""
    from acp.schema import PermissionOption

    covered = scope.describe()
    return [
        PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
        PermissionOption(option_id=ALLOW_ALWAYS, name=f"Always allow {covered} in this session", kind="allow_always"),
        PermissionOption(option_id=REJECT_ONCE, name="Reject once", kind="reject_once"),
        PermissionOption(
            option_id=REJECT_ALWAYS, name=f"Always reject {covered} in this session", kind="reject_always"
        ),
    ]


def settled(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionVerdict | None:
    """An answer the user already gave that settles ``call`` without asking: this turn's, or an "always" one."""
    answered = _answered(call, session)
    if answered is not None:
        return answered
    found = recall(session, call)
    return _remembered_verdict(*found) if found is not None else None


async def ask(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionVerdict:
    """Ask the client about ``call``; remember "always" answers. Raises ``PromptCancelled`` on ``cancelled``.

    Called when the core's decision (the policy with every plugin's rules) is ``ask``.
    Requests of one session go one at a time, so an "always" answer settles the calls
    waiting behind it (parallel tool calls of the same tool) without asking again.
    """
    state = state_of(session)
    async with state.lock:
        verdict = settled(call, kind, session) or await _request(call, kind, session)
        state.answered[call_key(call)] = verdict
        return verdict


async def _request(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionVerdict:
    from acp.schema import ToolCallUpdate

    if session.client is None:
        return PermissionVerdict("deny", "there is no client to ask for permission")
    scope = scope_of(call, kind)
    described: dict[str, Any] = (
        session.plugins.describe_tool(call, session) if session.plugins is not None else {"title": call.name}
    )
    tool_call = ToolCallUpdate(
        tool_call_id=call.tool_call_id, raw_input=call.args, status="pending", **{**described, "kind": kind}
    )
    try:
        chosen = await session.request_permission(tool_call, options_for(scope))
    except (asyncio.CancelledError, PromptCancelled):  # the client cancelled: the turn ends cancelled
        raise
    except Exception as exc:  # noqa: BLE001 - an error or a garbled answer is a "no"
        log.warning("langacp-permissions: the permission request for %s failed (%s); not running it", call.name, exc)
        return PermissionVerdict("deny", "the permission request got no valid answer")
    if chosen in (ALLOW_ALWAYS, REJECT_ALWAYS):
        remember(session, scope, "allow" if chosen == ALLOW_ALWAYS else "deny")
    if chosen in (ALLOW_ONCE, ALLOW_ALWAYS):
        return PermissionVerdict("allow")
    if chosen not in (REJECT_ONCE, REJECT_ALWAYS):
        log.warning("langacp-permissions: unknown option %r for %s counts as a rejection", chosen, call.name)
        return PermissionVerdict("deny", f"the client answered with an unknown option ({str(chosen)[:40]!r})")
    return PermissionVerdict("deny", DECLINED)
