"""The chat's own slash commands: what ``/help`` lists and what Tab completes.

``/help``, ``/mode``, ``/exit`` and ``/quit`` are the chat's; every other slash command the agent
advertises (``available_commands_update``) goes to the agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["KEYS", "LOCAL_COMMANDS", "completions", "help_lines"]

LOCAL_COMMANDS = {
    "help": "this help",
    "mode": "show the session's mode, or switch to mode ID (/mode ID)",
    "exit": "end the chat (also /quit, Ctrl-D)",
    "quit": "end the chat",
}
KEYS = (
    "keys: ↑/↓ earlier prompts · Tab completes a command · Ctrl-L clears the screen · "
    "Ctrl-C cancels an answer (at the prompt: exits)"
)


def help_lines(modes: Any, agent_commands: Mapping[str, str], *, keys: bool) -> list[str]:
    """``/help``: the chat's commands, the agent's (``agent_commands``), the keys when ``keys``.

    ``modes`` is the session's ``SessionModeState``, ``None`` when the agent has no modes.
    """
    lines = ["chat commands:"]
    for name, what in LOCAL_COMMANDS.items():
        if name == "mode" and modes is None:
            what = "(this agent has no modes)"
        lines.append(f"  /{name:<8} {what}")
    agent = {n: d for n, d in agent_commands.items() if n not in LOCAL_COMMANDS}
    if agent:
        lines.append("the agent's commands:")
        lines.extend(f"  /{name:<8} {what}".rstrip() for name, what in agent.items())
    elif "help" not in agent_commands:
        lines.append("the agent has no slash commands of its own (langacp-commands adds /model, /tools, /clear)")
    if keys:
        lines.append(KEYS)
    lines.append("anything else is sent to the agent")
    return lines


def completions(line: str, modes: Any, agent_commands: Mapping[str, str]) -> list[str]:
    """What Tab may complete ``line`` (typed so far) with: a command, or a mode id after ``/mode``."""
    if " " not in line:
        return sorted({f"/{n}" for n in (*LOCAL_COMMANDS, *agent_commands)})
    if line.startswith("/mode ") and modes is not None and line.count(" ") == 1:
        return [m.id for m in modes.available_modes]
    return []
