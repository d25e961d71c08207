"""What a mode is: a name, a system-prompt addition, the tools that may run and the permission rules.

How a mode judges one tool call:

1. **May it run at all?** If the mode lists ``tools`` (name globs) or ``kinds``, a call runs only
   if its tool name matches one of the globs or its kind is one of the kinds. Anything else is
   denied with a reason the model reads; it never runs. A mode that lists neither lets every
   tool through to step 2.
2. **Allow, ask or deny?** The mode's ``rules`` are judged together (a matching ``deny`` wins,
   a rule naming a tool beats a rule naming a kind, the last matching rule wins) and handed to
   the core as one permission rule, which it applies on top of the base policy: the session's
   configured policy when a permission plugin (``langacp-permissions``) decides one, else
   :data:`BASE_RULES` (read, search, think and fetch run; everything else asks). The core's
   order: a deny rule wins, a policy deny is final, an ask rule asks, an allow rule allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase

from langacp.api import PermissionDecision

__all__ = [
    "BASE_RULES",
    "DEFAULT_MODES",
    "DEFAULT_MODE_ID",
    "READ_ONLY_KINDS",
    "READ_ONLY_TOOLS",
    "Mode",
    "ModeRule",
    "decide",
]


@dataclass(frozen=True)
class ModeRule:
    """``decision`` for calls whose tool name matches ``tool`` and whose kind matches ``kind`` (globs)."""

    decision: PermissionDecision
    tool: str | None = None
    kind: str | None = None

    def __post_init__(self) -> None:
        if self.decision not in ("allow", "ask", "deny"):
            raise ValueError(f"a rule's decision must be allow, ask or deny, not {self.decision!r}")
        if self.tool is None and self.kind is None:
            raise ValueError("a rule must name a tool (glob) or a kind")

    def matches(self, tool: str, kind: str) -> bool:
        return (self.tool is None or fnmatchcase(tool, self.tool)) and (
            self.kind is None or fnmatchcase(kind, self.kind)
        )


@dataclass(frozen=True)
class Mode:
    """One session mode. Build variants with :func:`dataclasses.replace`."""

    id: str
    name: str
    description: str | None = None
    system_prompt: str | None = None
    """Added to the agent's system prompt for every model call made in this mode."""
    tools: tuple[str, ...] | None = None
    """Globs of tool names that may run (with ``kinds``); ``None`` with ``kinds`` ``None``: every tool."""
    kinds: tuple[str, ...] | None = None
    """Tool kinds that may run (with ``tools``)."""
    rules: tuple[ModeRule, ...] = field(default=())
    """Permission rules added on top of the base policy while this mode is on."""

    @property
    def restricted(self) -> bool:
        return self.tools is not None or self.kinds is not None

    def permits(self, tool: str, kind: str) -> bool:
        """Whether a call of ``tool`` (of ``kind``) may run at all in this mode."""
        if not self.restricted:
            return True
        if kind in (self.kinds or ()):
            return True
        # A name lets a call through only when its kind is not known to have side effects: a tool
        # called read_file that some plugin (or a project's pin) says edits does not run here.
        return kind not in SIDE_EFFECT_KINDS and any(fnmatchcase(tool, glob) for glob in self.tools or ())

    def refusal(self, tool: str, kind: str) -> str:
        """Why ``tool`` does not run in this mode: the text the model (and the editor) sees."""
        parts = []
        if self.kinds:
            kinds = list(self.kinds)
            parts.append((", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1 else kinds[0]) + " tools")
        if self.tools:
            parts.append(f"{len(self.tools)} named tools" if len(self.tools) > 3 else ", ".join(self.tools))
        shown = " and ".join(parts) or "no tools"
        return (
            f"the session is in {self.name} mode, where `{tool}` (kind {kind}) may not run; "
            f"this mode runs only {shown}. Ask the user to switch mode if it is needed"
        )

    def with_rules(self, *rules: ModeRule) -> Mode:
        return replace(self, rules=(*self.rules, *rules))


BASE_RULES: tuple[ModeRule, ...] = (
    ModeRule("ask", kind="*"),
    *(ModeRule("allow", kind=k) for k in ("read", "search", "think", "fetch")),
)
"""The base policy when ``langacp-permissions`` is not installed, the same safe default it has:
read, search, think and fetch run, every other kind asks."""

READ_ONLY_KINDS: tuple[str, ...] = ("read", "search", "think", "fetch")
SIDE_EFFECT_KINDS = frozenset({"edit", "delete", "move", "execute"})
"""Kinds that change something: a mode's list of tool names never lets these through."""

READ_ONLY_TOOLS: tuple[str, ...] = tuple(
    (
        "read_file read_text_file read_media_file read_multiple_files read_many_files list_files ls list_dir "
        "list_directory list_directory_with_sizes directory_tree get_file_info list_allowed_directories view "
        "view_file cat search_files glob grep file_search find_files codebase_search grep_search search_code "
        "think sequentialthinking sequential_thinking write_todos todo_write update_plan"
    ).split()
)
"""Well-known read-only tool names: they run in ``readonly`` and ``planning`` even when no plugin
maps kinds (every kind is then ``other``, which these modes treat as having side effects)."""

DEFAULT_MODE_ID = "interactive"

DEFAULT_MODES: tuple[Mode, ...] = (
    Mode(
        "agentic",
        "Agentic",
        "Full autonomy: every tool runs without asking (a deny rule still denies).",
        system_prompt="You work autonomously: carry the task through to the end without asking for confirmation.",
        rules=(ModeRule("allow", tool="*"),),
    ),
    Mode(
        "interactive",
        "Interactive",
        "Reads, searches, thinks and fetches without asking; asks before edits, deletes, moves, "
        "commands and any tool of unknown kind (other).",
    ),
    Mode(
        "readonly",
        "Read-only",
        "Only reads, searches, thinks and fetches: nothing is changed; edits, commands and tools of "
        "unknown kind (other) do not run.",
        system_prompt=(
            "You are in read-only mode: only read, search, think and fetch tools run. Do not try to edit, "
            "delete or move files or run commands; describe the changes instead."
        ),
        tools=READ_ONLY_TOOLS,
        kinds=READ_ONLY_KINDS,
    ),
    Mode(
        "planning",
        "Planning",
        "Explores and writes a plan: reads, searches, thinks and fetches; edits, commands and tools of "
        "unknown kind (other) do not run.",
        system_prompt=(
            "You are in planning mode: nothing with side effects runs. Explore with read and search tools, "
            "then write a step-by-step plan for the user to review. When the plan is ready and the user "
            "should let you carry it out, call the switch_mode tool (for example with mode_id "
            '"interactive"); the user decides whether to switch.'
        ),
        tools=READ_ONLY_TOOLS,
        kinds=(*READ_ONLY_KINDS, "switch_mode"),
    ),
)
"""The built-in modes; the default is ``interactive``."""


def decide(
    rules: tuple[ModeRule, ...], tool: str, kind: str, default: PermissionDecision | None = "ask"
) -> PermissionDecision | None:
    """What ``rules`` say about a call: a deny wins, tool rules beat kind rules, the last wins, else ``default``."""
    matching = [rule for rule in rules if rule.matches(tool, kind)]
    if not matching:
        return default
    if any(rule.decision == "deny" for rule in matching):
        return "deny"
    by_tool = [rule for rule in matching if rule.tool is not None]
    return (by_tool or matching)[-1].decision
