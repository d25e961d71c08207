"""``langacp plugins``: every plugin and target driver with its distribution, status and hooks."""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["kinds_note", "list_plugins"]

USED = ("loaded", "builtin")


def list_plugins(blocked: set[str], enabled: set[str], *, as_json: bool) -> int:
    """Print the plugins (``as_json``: with the protocol report, as JSON); the exit status."""
    from langacp.plugins import driver_records, load_plugins

    plugins = load_plugins(blocked=blocked, enabled=enabled)
    records = [r.as_dict() for r in [*plugins.records, *driver_records()]]
    if as_json:
        from langacp.protocol import protocol_report

        json.dump({"protocol": protocol_report(), "plugins": records}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    group = None
    for r in records:
        if r["group"] != group:
            group = r["group"]
            print(f"[{group}]" if group == "langacp" else f"\n[{group}] (drivers, chosen by name)")
        where = f"{r['distribution'] or '?'} {r['version'] or ''}".strip()
        line = f"{r['name']:<32} {r['status']:<10} {where}"
        if r["error"]:
            line += f"  error: {r['error']}"
        print(line)
        if r["source"]:
            print(f"    from: {r['source']}")
        if r["hooks"]:
            print(f"    hooks: {', '.join(r['hooks'])}")
    print(kinds_note(records))
    return 0


def kinds_note(records: list[dict[str, Any]]) -> str:
    """Who gives tool calls their kind, and what becomes of a tool none of them knows."""
    mappers = [r["name"] for r in records if "langacp_tool_kind" in (r["hooks"] or ()) and r["status"] in USED]
    return (
        f"\ntool kinds: {', '.join(mappers) or 'none'} (langacp_tool_kind, the first answer wins). A tool none of "
        "them knows is 'other': the default permission policy asks before every call of it, read-only modes do not "
        "run it. Give it a kind "
        "with [tools.kinds] (langacp-tools) or a plugin's langacp_tool_kind: docs/tool-kinds.md#your-own-tools"
    )
