"""Per-session state: the session's policy (swappable from code), its ask lock, this turn's answers."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from langacp.api import ConfigLayers, PermissionVerdict, SessionContext, ToolCallInfo, layers_for
from langacp_permissions.config import load_policy
from langacp_permissions.policy import Policy

__all__ = ["SessionPermissions", "configured_policy", "policy_for", "set_policy", "state_of"]


@dataclass
class SessionPermissions:
    """What this plugin keeps for a live session (``session.scratch(SessionPermissions)``)."""

    configured: Policy | None = None
    """The policy read from the configuration files when the session started or was loaded."""
    override: Policy | None = None
    """A policy set from code (a mode), in place of the configured one."""
    answered: dict[str, PermissionVerdict] = field(default_factory=dict)
    """This turn's answers by tool call (id, name, arguments): a call is asked at most once."""
    _lock: asyncio.Lock | None = None

    @property
    def lock(self) -> asyncio.Lock:
        """Held while asking the client: one permission request at a time per session."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock


def state_of(session: SessionContext) -> SessionPermissions:
    return session.scratch(SessionPermissions)


def configured_policy(session: SessionContext, *, reload: bool = False) -> Policy:
    """The policy from the configuration files for this session's cwd (read once, or again on ``reload``)."""
    state = state_of(session)
    if state.configured is None or reload:
        state.configured = _policy_of(session.cwd, layers_for(session))
    return state.configured


_POLICIES: dict[int, tuple[ConfigLayers, str, Policy]] = {}
"""The policy built from each configuration layers object (the core shares one between the sessions
of a working directory while its files are unchanged); a ``Policy`` is immutable, so it is shared too."""


def _policy_of(cwd: str, layers: ConfigLayers) -> Policy:
    found = _POLICIES.get(id(layers))
    if found is not None and found[0] is layers and found[1] == cwd:
        return found[2]
    policy = load_policy(cwd, layers=layers)
    _POLICIES[id(layers)] = (layers, cwd, policy)  # the layers kept alive: their id is not reused meanwhile
    if len(_POLICIES) > 16:
        _POLICIES.pop(next(iter(_POLICIES)))
    return policy


def policy_for(session: SessionContext) -> Policy:
    """The policy in force for ``session``: the one set with :func:`set_policy`, else the configured one."""
    state = state_of(session)
    return state.override if state.override is not None else configured_policy(session)


def set_policy(session: SessionContext, policy: Policy | None) -> None:
    """Put ``policy`` in force for ``session`` (``None``: back to the configured policy).

    Takes effect at the next tool call. To keep the project's restrictions and the user's
    rules, derive it: ``set_policy(s, configured_policy(s).with_rules(Rule("deny", kind="edit")))``.
    """
    state_of(session).override = policy


def call_key(call: ToolCallInfo) -> str:
    """Identifies one tool call: its id, and what it would run (a reused id with other arguments is another call)."""
    return json.dumps([call.tool_call_id, call.name, call.args], sort_keys=True, default=str)
