"""Answer an agent's permission requests without a human: allow / deny rules, then a fallback.

    PermissionPolicy(allow=["read", "search"], deny=["delete", "Run rm*"], ask_else="reject")

A rule is a tool kind (``read``, ``edit``, ``delete``, ``move``, ``search``, ``execute``,
``think``, ``fetch``, ``switch_mode``, ``other``) or a glob over the tool call's title
(``"Write *.md"``); ``kind:NAME`` / ``title:GLOB`` say which explicitly. Deny wins over allow.
A request no rule matches goes to ``ask_else``: ``"reject"``, ``"allow"`` or a callback that
picks an option. Every decision is appended to :attr:`PermissionPolicy.decisions`.
"""

from __future__ import annotations

import fnmatch
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from acp.schema import PermissionOption, ToolCallUpdate

__all__ = [
    "ALLOW_KINDS",
    "REJECT_KINDS",
    "TOOL_KINDS",
    "AskElse",
    "PermissionPolicy",
    "PermissionRecord",
    "PermissionRequest",
    "pick_option",
]

log = logging.getLogger(__name__)

TOOL_KINDS = frozenset(
    {"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}
)
ALLOW_KINDS = ("allow_once", "allow_always")
REJECT_KINDS = ("reject_once", "reject_always")


@dataclass
class PermissionRequest:
    """One ``session/request_permission`` the agent sent."""

    session_id: str
    tool_call: ToolCallUpdate
    """The tool call asked about (with ACP v2, built from the request's subject when it names no tool call)."""
    options: list[PermissionOption]
    title: str | None = None
    """What the agent asks, in its words (ACP v2 requests carry one; v1 requests have none)."""
    subject: dict[str, Any] | None = None
    """What the permission is for, as an ACP v2 request gives it (``tool_call`` or ``command``)."""


AskAnswer = str | None
"""An option id, an option kind (``allow_once`` …), ``"allow"`` / ``"reject"``, or ``None`` (cancelled)."""
AskElse = Literal["reject", "allow"] | Callable[[PermissionRequest], AskAnswer | Awaitable[AskAnswer]]


@dataclass
class PermissionRecord:
    """How one permission request was answered, and by whom."""

    session_id: str
    tool_call_id: str
    title: str | None
    kind: str | None
    decision: Literal["allow", "reject", "cancelled"]
    option_id: str | None
    source: str
    """``policy`` (a rule matched), ``ask_else``, ``upstream`` (an attached client) or ``error`` (the
    ``ask_else`` callback raised: answered ``cancelled``)."""
    rule: str | None = None
    timestamp: float = field(default_factory=time.time)


def pick_option(options: Sequence[PermissionOption], kinds: Sequence[str]) -> PermissionOption | None:
    """The first offered option of the first kind in ``kinds``."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return option
    return None


def _rule_matches(rule: str, kind: str | None, title: str | None) -> bool:
    how, _, value = rule.partition(":")
    if how == "kind" and value:
        return kind == value
    if how == "title" and value:
        return title is not None and fnmatch.fnmatchcase(title, value)
    if rule in TOOL_KINDS:
        return kind == rule
    return title is not None and fnmatch.fnmatchcase(title, rule)


@dataclass
class PermissionPolicy:
    """Allow / deny rules by tool kind or title glob, and what to do when none matches."""

    allow: Sequence[str] = ()
    deny: Sequence[str] = ()
    ask_else: AskElse = "reject"
    decisions: list[PermissionRecord] = field(default_factory=list)

    def match(self, tool_call: ToolCallUpdate) -> tuple[Literal["allow", "reject"], str] | None:
        """The rule that decides ``tool_call`` (deny first), or ``None``."""
        kind, title = _kind(tool_call), tool_call.title
        for rule in self.deny:
            if _rule_matches(rule, kind, title):
                return "reject", rule
        for rule in self.allow:
            if _rule_matches(rule, kind, title):
                return "allow", rule
        return None

    async def decide(self, request: PermissionRequest) -> PermissionRecord:
        """Pick an option for ``request`` and record the decision."""
        matched = self.match(request.tool_call)
        if matched is not None:
            answer: AskAnswer = matched[0]
            source, rule = "policy", matched[1]
        elif callable(self.ask_else):
            source, rule = "ask_else", None
            try:
                result = self.ask_else(request)
                answer = await result if inspect.isawaitable(result) else result  # type: ignore[assignment]
            except Exception:  # a broken callback answers "cancelled", it does not fail the agent's request
                log.exception("the permission callback failed; answering cancelled")
                answer, source = None, "error"
        else:
            answer, source, rule = self.ask_else, "ask_else", None
        record = answer_record(request, answer, source, rule)
        self.decisions.append(record)
        return record


def resolve_answer(options: Sequence[PermissionOption], answer: AskAnswer) -> PermissionOption | None:
    """The offered option ``answer`` names (an id, a kind, ``allow`` or ``reject``)."""
    if answer is None:
        return None
    if answer == "allow":
        return pick_option(options, ALLOW_KINDS)
    if answer == "reject":
        return pick_option(options, REJECT_KINDS)
    for option in options:
        if option.option_id == answer:
            return option
    return pick_option(options, (answer,))


def answer_record(
    request: PermissionRequest, answer: AskAnswer, source: str, rule: str | None = None
) -> PermissionRecord:
    """A :class:`PermissionRecord` for ``answer`` to ``request``."""
    option = resolve_answer(request.options, answer)
    if option is None:
        decision: Literal["allow", "reject", "cancelled"] = "cancelled"
    else:
        decision = "allow" if option.kind in ALLOW_KINDS else "reject"
    call = request.tool_call
    return PermissionRecord(
        session_id=request.session_id,
        tool_call_id=call.tool_call_id,
        title=call.title,
        kind=_kind(call),
        decision=decision,
        option_id=option.option_id if option is not None else None,
        source=source,
        rule=rule,
    )


def _kind(tool_call: Any) -> str | None:
    kind = getattr(tool_call, "kind", None)
    return str(kind) if kind is not None else None
