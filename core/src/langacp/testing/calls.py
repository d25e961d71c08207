"""What a client ends up knowing about each tool call, from the ``session/update`` s it received.

calls = tool_calls(agent.client.of(sid))        # per tool call id
call = only_call(agent.client.of(sid))          # the turn made exactly one call
assert call["statuses"][-1] == "completed" and call["title"] == "Read README.md"
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["failed_text", "only_call", "result_text", "tool_calls", "tool_prompt"]


def tool_calls(updates: list[Any]) -> dict[str, dict[str, Any]]:
    """Per tool call id: every field as the client last saw it, plus ``statuses`` and ``contents``."""
    calls: dict[str, dict[str, Any]] = {}
    for update in updates:
        if update.session_update not in ("tool_call", "tool_call_update"):
            continue
        seen = calls.setdefault(update.tool_call_id, {"statuses": [], "contents": []})
        for field in ("title", "kind", "locations", "raw_input", "raw_output"):
            value = getattr(update, field, None)
            if value is not None:
                seen[field] = value
        if update.status is not None:
            seen["statuses"].append(update.status)
        if update.content:
            seen["contents"].append(update.content)
    return calls


def only_call(updates: list[Any]) -> dict[str, Any]:
    """The one tool call in ``updates`` (an assertion error if there are none or several)."""
    calls = tool_calls(updates)
    assert len(calls) == 1, calls
    return next(iter(calls.values()))


def result_text(call: dict[str, Any]) -> str:
    """The text the tool returned (what the model reads), from a call of :func:`tool_calls`."""
    output = call.get("raw_output")
    return output if isinstance(output, str) else json.dumps(output)


def failed_text(updates: list[Any]) -> str:
    """The text of the content of every failed ``tool_call_update`` (why the calls did not run)."""
    return " ".join(
        c.content.text
        for u in updates
        if getattr(u, "session_update", None) == "tool_call_update" and u.status == "failed"
        for c in (u.content or [])
        if getattr(c, "content", None) is not None
    )


def tool_prompt(name: str, **args: Any) -> str:
    """The prompt that makes the scripted test agent (:mod:`langacp.testing.agent`) call tool ``name``."""
    return f"tool {name} {json.dumps(args)}"
