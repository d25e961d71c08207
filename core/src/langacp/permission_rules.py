"""Permission decisions: what a policy says about one tool call, the plugins' rules, and how they combine.

A leaf under :mod:`langacp.types` (which re-exports every name): plain data, no langacp import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

__all__ = ["PermissionDecision", "PermissionRule", "PermissionVerdict", "combine_permission"]

PermissionDecision = Literal["allow", "ask", "deny"]
"""What a permission policy says about one tool call."""


@dataclass(frozen=True)
class PermissionVerdict:
    """A permission decision with the reason a tool call may not run.

    The permission hooks may return one instead of a plain decision: when the call is not
    allowed, ``reason`` is what the model is told (and the editor shows in the failed tool
    call), e.g. ``"the user declined it"``.
    """

    decision: PermissionDecision
    reason: str | None = None


@dataclass(frozen=True)
class PermissionRule:
    """A rule a plugin contributes through ``langacp_permission_rules``; the core enforces it.

    It applies to calls whose tool name matches ``tool`` and whose kind matches ``kind``
    (shell-style globs, case-sensitive; ``None`` matches anything, so a rule naming neither
    applies to every call it is returned for). ``reason`` is what the model and the editor are
    told when the rule denies a call; ``source`` says who made the rule (``"mode readonly"``,
    a config file's path), for logs and reasons.
    """

    decision: PermissionDecision
    tool: str | None = None
    kind: str | None = None
    reason: str | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if self.decision not in ("allow", "ask", "deny"):
            raise ValueError(f"a rule's decision must be allow, ask or deny, not {self.decision!r}")

    def matches(self, tool: str, kind: str) -> bool:
        """Whether this rule applies to a call of ``tool`` of kind ``kind``."""
        return (self.tool is None or fnmatchcase(tool, self.tool)) and (
            self.kind is None or fnmatchcase(kind, self.kind)
        )


def combine_permission(
    rules: Sequence[PermissionRule], policy: PermissionVerdict, tool: str, kind: str
) -> PermissionVerdict:
    """The core's decision for one call from the plugins' rules and the policy's verdict.

    1. a matching ``deny`` rule denies (the first one's reason);
    2. the policy's ``deny`` is final;
    3. a matching ``ask`` rule asks;
    4. a matching ``allow`` rule allows (it turns the policy's ``ask`` into ``allow``);
    5. otherwise the policy's verdict stands.
    """
    matching = [rule for rule in rules if rule.matches(tool, kind)]
    for rule in matching:
        if rule.decision == "deny":
            source = f" (a rule from {rule.source})" if rule.source else ""
            return PermissionVerdict("deny", rule.reason or f"a permission rule denies it{source}")
    if policy.decision == "deny":
        return policy
    for decision in ("ask", "allow"):
        if any(rule.decision == decision for rule in matching):
            return PermissionVerdict(decision)  # type: ignore[arg-type]
    return policy
