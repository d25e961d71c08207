"""v1 ``session/update`` s (what the session core and the plugins produce) in v2's shapes.

The core keeps producing v1 updates (SDK models or :mod:`langacp.protocol.models`); on a v2
connection :func:`to_v2` turns each into the v2 updates it stands for:

- message and thought chunks keep their ``messageId`` (v2 requires it: one is made up if missing);
- ``tool_call`` and ``tool_call_update`` are both the ``tool_call_update`` upsert (a start sends
  every field, a progress only what it changes: omitted = unchanged);
- a ``diff`` content becomes v2's ``changes`` with a ``git_patch``;
- ``plan`` is ``plan_update`` (one plan per session, ``planId`` ``plan``);
- config options take ``configId`` / ``groupId``; commands ``type: command`` and a ``text`` input;
- ``current_mode_update`` has no v2 form: modes are config options, and the mode switch sends
  ``config_option_update`` too (see :func:`mode_option` for a mode without one);
- a plugin's :class:`~langacp.terminals.TerminalEvent` (no v1 form) is ``terminal_update`` or
  ``terminal_output_chunk`` (see :func:`terminal_update`).

Anything v2 does not define is dropped (logged at debug), never sent in a shape the client
cannot read.
"""

from __future__ import annotations

import base64
import difflib
import logging
import uuid
from typing import Any

from langacp.protocol.v2.models import Json
from langacp.terminals import TerminalEvent

__all__ = [
    "PLAN_ID",
    "config_options",
    "content_items",
    "mode_option",
    "terminal_update",
    "to_v2",
    "tool_call_fields",
]

log = logging.getLogger("langacp.protocol")

PLAN_ID = "plan"
"""The ``planId`` of the session's one plan (v1's ``plan`` replaces the whole plan every time)."""

_CHUNKS = ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
_SAME = ("session_info_update", "usage_update", "notice", "compaction_update", "compaction_summary_chunk")
_TOOL_FIELDS = ("toolCallId", "name", "title", "kind", "status", "content", "locations", "rawInput", "rawOutput")


def _json(update: Any) -> Json:
    if isinstance(update, dict):
        return dict(update)
    dumped: Json = update.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def to_v2(update: Any) -> list[Json]:
    """The v2 updates (JSON, camelCase) that v1's ``update`` stands for; ``[]`` when v2 has no form for it."""
    if isinstance(update, TerminalEvent):  # detached: listed by the state updates (see .background)
        return [] if update.detached else [terminal_update(update)]
    fields = _json(update)
    kind = fields.get("sessionUpdate")
    if kind in _CHUNKS:
        if not fields.get("messageId"):
            fields["messageId"] = f"langacp-{uuid.uuid4().hex}"
        return [_only(fields, "sessionUpdate", "messageId", "content", "_meta")]
    if kind in ("tool_call", "tool_call_update"):
        return [{"sessionUpdate": "tool_call_update", **tool_call_fields(fields, start=kind == "tool_call")}]
    if kind == "plan":
        plan = {"type": "items", "planId": PLAN_ID, "entries": fields.get("entries", [])}
        return [{"sessionUpdate": "plan_update", "plan": plan}]
    if kind == "available_commands_update":
        commands = [_command(c) for c in fields.get("availableCommands", [])]
        return [{"sessionUpdate": kind, "availableCommands": commands}]
    if kind == "config_option_update":
        return [{"sessionUpdate": kind, "configOptions": config_options(fields.get("configOptions", []))}]
    if kind in _SAME:
        return [fields]
    log.debug("no ACP v2 form for the update %r: not sent", kind)
    return []


def terminal_update(event: TerminalEvent) -> Json:
    """An agent-owned terminal's step: its output chunk, or the ``terminal_update`` upsert of what changed."""
    terminal_id = event.terminal_id
    if event.chunk is not None:
        data = base64.b64encode(event.chunk).decode("ascii")
        return {"sessionUpdate": "terminal_output_chunk", "terminalId": terminal_id, "data": data}
    update: Json = {"sessionUpdate": "terminal_update", "terminalId": terminal_id}
    if event.command is not None:
        update["command"] = event.command
    if event.cwd is not None:
        update["cwd"] = event.cwd
    if event.output is not None:
        update["output"] = {"data": base64.b64encode(event.output).decode("ascii")}
    if event.exited:
        status: Json = {"exitCode": event.exit_code} if event.exit_code is not None else {}
        update["exitStatus"] = {**status, **({"signal": event.signal} if event.signal else {})}
    if event.cancellable is not None:
        update["capabilities"] = {"cancel": {}} if event.cancellable else None
    return update


def _only(fields: Json, *names: str) -> Json:
    return {name: fields[name] for name in names if name in fields}


def tool_call_fields(fields: Json, *, start: bool = False) -> Json:
    """A v1 tool call (start or progress, JSON) as v2's ``ToolCallUpdate`` fields (no ``sessionUpdate``).

    A start is a new tool call: its absent ``status`` is v2's default (``pending``) anyway, and
    ``kind`` / ``title`` are sent as they are. A progress sends what it sets: the rest is unchanged.
    """
    mapped = _only(fields, *_TOOL_FIELDS, "_meta")
    if "content" in mapped and mapped["content"] is not None:
        mapped["content"] = content_items(mapped["content"])
    if start:
        mapped.setdefault("status", "pending")
    return mapped


def content_items(items: list[Json]) -> list[Json]:
    """v1 tool call content in v2's shapes (``content`` and ``terminal`` are the same; ``diff`` differs)."""
    return [_diff(item) if item.get("type") == "diff" else item for item in items]


def _diff(item: Json) -> Json:
    """v1's ``{path, oldText, newText}`` as v2's ``changes`` plus the change as a ``git_patch``."""
    path, old, new = item.get("path", ""), item.get("oldText"), item.get("newText") or ""
    operation = "add" if old is None else "modify"
    lines = list(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile="/dev/null" if old is None else path,
            tofile=path,
        )
    )
    header = f"diff --git {path} {path}\n" + ("new file mode 100644\n" if old is None else "")
    text = header + "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    diff: Json = {"type": "diff", "changes": [{"operation": operation, "path": path}]}
    if lines:
        diff["patch"] = {"format": "git_patch", "text": text}
    if "_meta" in item:
        diff["_meta"] = item["_meta"]
    return diff


def _command(command: Json) -> Json:
    mapped = {"type": "command", **_only(command, "name", "description", "_meta")}
    hint = (command.get("input") or {}).get("hint")
    if isinstance(hint, str):
        mapped["input"] = {"type": "text", "hint": hint}
    return mapped


def config_options(options: list[Any]) -> list[Json]:
    """v1 config options (models or JSON) in v2's shape: ``configId``, and ``groupId`` in grouped selects."""
    mapped = []
    for option in options:
        fields = _json(option)
        fields["configId"] = fields.pop("id")
        choices = fields.get("options")
        if isinstance(choices, list):
            fields["options"] = [_group(c) for c in choices]
        mapped.append(fields)
    return mapped


def _group(choice: Json) -> Json:
    if "group" in choice and "options" in choice:
        choice = dict(choice)
        choice["groupId"] = choice.pop("group")
    return choice


def mode_option(modes: Any) -> Json | None:
    """A v1 session-mode state as a v2 ``mode`` select (for modes no config option of category ``mode`` carries)."""
    if modes is None or not getattr(modes, "available_modes", None):
        return None
    choices = [
        {"value": m.id, "name": m.name, **({"description": m.description} if m.description else {})}
        for m in modes.available_modes
    ]
    return {
        "configId": "mode",
        "name": "Mode",
        "category": "mode",
        "type": "select",
        "currentValue": modes.current_mode_id,
        "options": choices,
    }


def session_options(modes: Any, options: list[Any] | None) -> list[Json]:
    """A session's v1 modes and config options as v2's ``configOptions`` (modes as a ``mode`` select if needed)."""
    mapped = config_options(options or [])
    if not any(o.get("category") == "mode" for o in mapped):
        mode = mode_option(modes)
        if mode is not None:
            mapped.insert(0, mode)
    return mapped
