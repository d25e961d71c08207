"""The permission policy: rules by tool-name glob and by tool kind, each ``allow``, ``ask`` or ``deny``.

How a policy decides one tool call:

1. Every rule that matches the call's tool name and kind is considered.
2. A matching ``deny`` rule wins, whatever else matches.
3. Otherwise a rule naming the tool beats a rule naming only a kind, and among rules of the
   same sort the one added last wins (so user rules override the defaults).
4. No matching rule: ``ask``.

``restrictions`` are rules that may only make the answer stricter (``allow`` < ``ask`` <
``deny``): that is how a project's own ``.langacp.toml`` is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import get_args

from langacp.api import PermissionDecision

__all__ = ["DECISIONS", "DEFAULT_RULES", "Policy", "Rule", "Ruling", "stricter"]

DECISIONS: tuple[PermissionDecision, ...] = get_args(PermissionDecision)
_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}
_MEMO_SIZE = 512
"""Rulings a policy keeps, by (tool, kind): a session calls a handful of tools, each asked at every call."""


def stricter(a: PermissionDecision, b: PermissionDecision) -> PermissionDecision:
    """The stricter of two decisions."""
    return a if _STRICTNESS[a] >= _STRICTNESS[b] else b


@dataclass(frozen=True)
class Rule:
    """One rule: calls whose tool name matches ``tool`` and whose kind matches ``kind`` get ``decision``.

    ``tool`` and ``kind`` are shell-style globs (``*``, ``?``, ``[…]``), case-sensitive; a
    missing one matches anything, but a rule must name at least one. ``source`` says where the
    rule comes from (a file path, ``"default"``, ``"code"``): it is quoted in denial reasons.
    """

    decision: PermissionDecision
    tool: str | None = None
    kind: str | None = None
    source: str = "code"

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise ValueError(f"a rule's decision must be one of {', '.join(DECISIONS)}, not {self.decision!r}")
        if self.tool is None and self.kind is None:
            raise ValueError("a rule must name a tool (glob) or a kind")

    def matches(self, tool: str, kind: str) -> bool:
        return (self.tool is None or fnmatchcase(tool, self.tool)) and (
            self.kind is None or fnmatchcase(kind, self.kind)
        )

    def label(self) -> str:
        """The rule as written in a config file, e.g. ``tools."rm*" = "deny"``."""
        parts = []
        if self.tool is not None:
            parts.append(f'tools."{self.tool}"')
        if self.kind is not None:
            parts.append(f'kinds."{self.kind}"')
        return f'{" and ".join(parts)} = "{self.decision}"'

    def describe(self) -> str:
        """The rule and where it comes from, e.g. ``tools."rm*" = "deny" (from /path/config.toml)``."""
        return f"{self.label()} (from {self.source})"


DEFAULT_RULES: tuple[Rule, ...] = (
    *(Rule("allow", kind=kind, source="default") for kind in ("read", "search", "think", "fetch")),
    *(Rule("ask", kind=kind, source="default") for kind in ("edit", "delete", "move", "execute", "other")),
)
"""Read, search, think and fetch run; edit, delete, move, execute and other ask. Any other kind asks too."""


@dataclass(frozen=True)
class Ruling:
    """A policy's decision and the rule that made it (``None``: no rule matched)."""

    decision: PermissionDecision
    rule: Rule | None = None


def _evaluate(rules: tuple[Rule, ...], tool: str, kind: str) -> Ruling | None:
    matching = [rule for rule in rules if rule.matches(tool, kind)]
    if not matching:
        return None
    deny = next((rule for rule in matching if rule.decision == "deny"), None)
    if deny is not None:
        return Ruling("deny", deny)
    by_tool = [rule for rule in matching if rule.tool is not None]
    chosen = (by_tool or matching)[-1]
    return Ruling(chosen.decision, chosen)


@dataclass(frozen=True)
class Policy:
    """An immutable permission policy. Build variants with :meth:`with_rules` / :meth:`with_restrictions`.

    A mode (or any code) swaps a session's policy with :func:`langacp_permissions.set_policy`.
    """

    rules: tuple[Rule, ...] = DEFAULT_RULES
    restrictions: tuple[Rule, ...] = field(default=())
    _rulings: dict[tuple[str, str], Ruling] | None = field(default=None, init=False, repr=False, compare=False)
    """Decisions made, by (tool, kind); ``None`` when the rules are not all plain :class:`Rule` objects."""

    def __post_init__(self) -> None:
        # A decision depends only on the rules and the call's tool and kind. Held as tuples of
        # frozen Rules (whose matching is a pure function of their fields), the rules cannot change
        # after this, so each (tool, kind) is decided once; a Rule subclass may match otherwise: no memo.
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "restrictions", tuple(self.restrictions))
        if all(type(rule) is Rule for rule in (*self.rules, *self.restrictions)):
            object.__setattr__(self, "_rulings", {})

    @classmethod
    def ask_everything(cls, source: str = "fallback") -> Policy:
        """Every call asks: the safe policy used when the configuration cannot be read."""
        return cls(rules=(Rule("ask", tool="*", source=source),))

    def with_rules(self, *rules: Rule) -> Policy:
        """This policy plus ``rules``, which override earlier rules of the same sort (deny still wins)."""
        return replace(self, rules=(*self.rules, *rules))

    def with_restrictions(self, *rules: Rule) -> Policy:
        """This policy plus rules that can only tighten it (their ``allow`` never loosens anything)."""
        return replace(self, restrictions=(*self.restrictions, *rules))

    def decide(self, tool: str, kind: str) -> Ruling:
        """The decision for a call of tool ``tool`` of kind ``kind`` (made once per policy, tool and kind)."""
        rulings = self._rulings
        if rulings is None or type(tool) is not str or type(kind) is not str:
            return self._decide(tool, kind)
        ruling = rulings.get((tool, kind))
        if ruling is None:
            ruling = self._decide(tool, kind)
            if len(rulings) >= _MEMO_SIZE:
                rulings.clear()
            rulings[(tool, kind)] = ruling
        return ruling

    def _decide(self, tool: str, kind: str) -> Ruling:
        base = _evaluate(self.rules, tool, kind) or Ruling("ask")
        tighter = _evaluate(self.restrictions, tool, kind)
        if tighter is not None and stricter(tighter.decision, base.decision) != base.decision:
            return tighter
        return base
