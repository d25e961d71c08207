"""The hook implementations of langacp-modes (entry point ``modes`` in group ``langacp``)."""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable
from typing import Any

from langacp.api import PermissionRule, PermissionVerdict, SessionContext, ToolCallInfo, hookimpl
from langacp_modes import options
from langacp_modes.mode import BASE_RULES, decide
from langacp_modes.session import auto_accept_edits, current_mode, open_session, state_of, switch_mode
from langacp_modes.switch_tool import SWITCH_TOOL, SwitchTool, ask_to_switch, make_switch_tool, offered, refusal

log = logging.getLogger("langacp_modes")


@hookimpl
def langacp_config_tables() -> list[Any]:
    from langacp_modes.config import config_tables

    return config_tables()


@hookimpl
def langacp_session_created(session: SessionContext) -> None:
    open_session(session, created=True)


@hookimpl
def langacp_session_loaded(session: SessionContext) -> None:
    open_session(session, created=False)


@hookimpl
def langacp_session_middleware(session: SessionContext) -> list[Any]:
    from langacp_modes.middleware import ModesMiddleware

    state_of(session).enforced = True  # only asked for factory targets, which get the tool guard too
    return [ModesMiddleware(session)]


@hookimpl
def langacp_session_tools(session: SessionContext) -> list[Any]:
    tool = session.scratch(SwitchTool).tool = make_switch_tool(session)
    return [tool]


def _ours(call: ToolCallInfo, session: SessionContext) -> bool:
    """A call of our ``switch_mode`` (an app's own tool of that name wins the clash and is not ours)."""
    return call.name == SWITCH_TOOL and offered(session)


@hookimpl
def langacp_tool_kind(call: ToolCallInfo, session: SessionContext) -> str | None:
    return "switch_mode" if _ours(call, session) else None


@hookimpl
def langacp_tool_title(call: ToolCallInfo, session: SessionContext) -> str | None:
    if not _ours(call, session):
        return None
    target = state_of(session).config.modes.get(str(call.args.get("mode_id")))
    return f"Switch to {target.name} mode" if target is not None else "Switch mode"


@hookimpl
def langacp_permission_rules(call: ToolCallInfo, kind: str, session: SessionContext) -> list[PermissionRule]:
    """The current mode's say about a call; the core enforces it whichever plugin decides the policy.

    A mode's refusal is a ``deny`` rule, so it beats any policy (an "always allow" answered in
    another mode too). The mode's own rules are judged together (a deny wins, a rule naming a
    tool beats one naming a kind, the last wins) and become one rule.
    """
    mode = current_mode(session)
    source = f"mode {mode.id}"
    if _ours(call, session):
        reason = refusal(session, call.args.get("mode_id"))
        return [
            PermissionRule("deny", reason=reason, source=source) if reason else PermissionRule("ask", source=source)
        ]
    if not mode.permits(call.name, kind):
        return [PermissionRule("deny", reason=mode.refusal(call.name, kind), source=source)]
    decision = decide(mode.rules, call.name, kind, default=None)
    if kind == "edit" and decision in (None, "ask") and auto_accept_edits(session):
        # The user's own switch (a client's on/off option): an allow rule, so any ask or deny rule still wins.
        return [PermissionRule("allow", source=f"{source}, auto-accept edits")]
    return [PermissionRule(decision, source=source)] if decision is not None else []


# trylast: the base policy only when no other plugin (langacp-permissions) decides one.
@hookimpl(trylast=True)
def langacp_permission(call: ToolCallInfo, kind: str, session: SessionContext) -> PermissionVerdict:
    """Read, search, think and fetch run; everything else asks (:data:`~langacp_modes.mode.BASE_RULES`)."""
    return PermissionVerdict(decide(BASE_RULES, call.name, kind) or "ask")


@hookimpl(tryfirst=True)
def langacp_ask_permission(call: ToolCallInfo, kind: str, session: SessionContext) -> Awaitable[str] | None:
    return ask_to_switch(call, session) if _ours(call, session) else None


_TOLD: weakref.WeakSet[Any] = weakref.WeakSet()
"""The agents (their ``session.plugins``) whose user was told that a precompiled graph gets no modes."""


def _offered(session: SessionContext) -> bool:
    state = state_of(session)
    if not state.enforced and not state.warned:
        state.warned = True
        # Once per agent, not per session: the target is the same for every later session
        # (a line per session/new filled the log, ~10 us of each session/new).
        agent = session.plugins
        if agent is None or agent not in _TOLD:
            if agent is not None:
                _TOLD.add(agent)
            log.warning(
                "langacp-modes: session %s serves a precompiled graph: its tools cannot be limited, so no modes "
                "are offered (nor to its later sessions). Serve a per-session factory to get modes.",
                session.session_id,
            )
    return state.enforced


@hookimpl
def langacp_session_modes(session: SessionContext) -> Any:
    return options.mode_state(session) if _offered(session) else None


@hookimpl
def langacp_set_mode(session: SessionContext, mode_id: str) -> Awaitable[bool] | None:
    if not _offered(session):
        return None

    async def run() -> bool:
        if not switch_mode(session, mode_id):
            return False
        await _send_options(session)  # the core sends current_mode_update
        return True

    return run()


@hookimpl
def langacp_config_options(session: SessionContext) -> list[Any]:
    return options.config_options(session) if _offered(session) else []


@hookimpl
def langacp_set_config_option(session: SessionContext, config_id: str, value: str | bool) -> Awaitable[bool] | None:
    if not _offered(session):
        return None
    before = current_mode(session).id
    ok = options.set_option(session, config_id, value)
    if ok is None:
        return None

    async def run() -> bool:
        if ok and current_mode(session).id != before and session.send_update is not None:
            from acp.helpers import update_current_mode

            await session.send_update(update_current_mode(current_mode(session).id))
        return bool(ok)

    return run()


async def _send_options(session: SessionContext) -> None:
    from acp.schema import ConfigOptionUpdate

    if session.send_update is not None:
        update = ConfigOptionUpdate(
            session_update="config_option_update", config_options=options.config_options(session)
        )
        await session.send_update(update)
