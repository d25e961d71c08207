"""Helpers of the langacp-tools tests: what a client ends up knowing about each tool call."""

from __future__ import annotations

from typing import Any

WORKSPACE = "langacp.testing.workspace:agent"


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
    calls = tool_calls(updates)
    assert len(calls) == 1, calls
    return next(iter(calls.values()))
