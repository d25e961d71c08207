"""The hook implementations of langacp-permissions (entry point ``permissions`` in group ``langacp``)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from langacp.api import PermissionRule, PermissionVerdict, SessionContext, ToolCallInfo, hookimpl
from langacp_permissions import decisions, hitl
from langacp_permissions.session import configured_policy, policy_for, state_of


@hookimpl
def langacp_config_tables() -> list[Any]:
    from langacp_permissions.config import config_tables

    return config_tables()


@hookimpl
def langacp_session_created(session: SessionContext) -> None:
    configured_policy(session)  # read the configuration now: a broken file is reported at once


@hookimpl
def langacp_session_loaded(session: SessionContext) -> None:
    configured_policy(session, reload=True)


@hookimpl
def langacp_prompt_started(session: SessionContext, prompt: Sequence[Any]) -> None:
    state_of(session).answered.clear()


@hookimpl
def langacp_permission(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionVerdict:
    return decisions.decide(call, kind, session)


@hookimpl
def langacp_permission_rules(call: ToolCallInfo, kind: str, session: SessionContext) -> list[PermissionRule]:
    """The restrictions (a project's rules, which may only tighten) as core rules.

    They are part of the policy too; as rules, no other plugin's ``allow`` rule (a mode's
    "allow everything") can loosen them.
    """
    return [
        PermissionRule(
            rule.decision,
            rule.tool,
            rule.kind,
            reason=f"the permission policy denies it ({rule.describe()})",
            source=rule.source,
        )
        for rule in policy_for(session).restrictions
        if rule.decision != "allow" and rule.matches(call.name, kind)
    ]


@hookimpl
def langacp_ask_permission(call: ToolCallInfo, kind: str, session: SessionContext) -> Awaitable[PermissionVerdict]:
    return decisions.ask(call, kind, session)


@hookimpl
def langacp_resume_interrupt(session: SessionContext, interrupts: Sequence[Any]) -> Awaitable[Any] | None:
    return hitl.resume_value(session, interrupts)
