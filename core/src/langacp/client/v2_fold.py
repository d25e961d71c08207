"""ACP v2 session updates folded into what a v1 client sees, so callers see one shape whatever the version.

v2 sends upserts keyed by id with patch semantics (an omitted field is unchanged, ``null``
clears it): messages and thoughts by ``messageId`` (chunks append, whole forms replace), tool
calls by ``toolCallId``. :class:`SessionFold` keeps each entity as it stands and turns every v2
update into the v1 updates (wire form) that say the same: a chunk with the new text, a
``tool_call`` the first time a tool call is seen and ``tool_call_update`` after, an agent-owned
terminal's output as the text of the tool calls that show it. It also follows
``state_update`` to end a prompt turn when ``idle`` arrives with its stop reason.
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass, field
from typing import Any

from langacp.client.v2_diff import diffs_v1

__all__ = ["TERMINAL_META", "SessionFold", "Turn", "config_options_v1", "modes_v1", "plan_v1", "tool_call_v1"]

_MESSAGE_KINDS = {
    "agent_message": "agent_message_chunk",
    "agent_message_chunk": "agent_message_chunk",
    "agent_thought": "agent_thought_chunk",
    "agent_thought_chunk": "agent_thought_chunk",
    "user_message": "user_message_chunk",
    "user_message_chunk": "user_message_chunk",
}
TERMINAL_META = "langacp/terminal"
"""The ``_meta`` key (the terminal's id) of the text content that shows an agent-owned terminal's output."""
_TOOL_FIELDS = ("title", "kind", "status", "content", "locations", "rawInput", "rawOutput")
_FINAL = {"completed", "failed", "cancelled"}
_STATUS_V1 = {"cancelled": "failed", "paused": "in_progress"}
"""v2 tool call statuses v1 does not have, as the v1 status that says the most."""


@dataclass
class Turn:
    """A prompt turn waiting for its ``idle`` state (with the stop reason)."""

    done: asyncio.Future[str]
    message_id: str | None = None
    """The inserted prompt's id, from the acknowledgement."""
    running: bool = False
    """A ``running`` (or ``requires_action``) state arrived since the prompt was sent."""


def _patch(stored: dict[str, Any], patch: dict[str, Any]) -> None:
    """Apply an upsert: omitted keys stay, ``None`` clears, ``_meta`` is patched key by key."""
    for key, value in patch.items():
        if key == "sessionUpdate":
            continue
        if key == "_meta" and isinstance(value, dict):
            meta = {**(stored.get("_meta") or {}), **value}
            stored["_meta"] = {k: v for k, v in meta.items() if v is not None}
        elif value is None:
            stored.pop(key, None)
        else:
            stored[key] = value


def _text(blocks: Any) -> str:
    if not isinstance(blocks, list):
        return ""
    return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def _content_v1(item: Any, terminals: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """A v2 tool call content item in v1 form: a v2 diff as a v1 diff per path (:mod:`.v2_diff`), an
    agent-owned terminal (v1 terminals are the client's) as text."""
    if not isinstance(item, dict):
        return []
    if item.get("type") == "content":
        return [item]
    if item.get("type") == "terminal":
        terminal = (terminals or {}).get(str(item.get("terminalId")))
        if terminal is None:
            return [_text_content(f"terminal {item.get('terminalId')}", str(item.get("terminalId")))]
        text = terminal_text(terminal)
        return [_text_content(text, str(item.get("terminalId")))] if text else []
    if item.get("type") == "diff" and "newText" in item:  # v1's form
        return [item]
    if item.get("type") == "diff":
        return diffs_v1(item)
    return []


def _text_content(text: str, terminal_id: str | None = None) -> dict[str, Any]:
    content: dict[str, Any] = {"type": "content", "content": {"type": "text", "text": text}}
    if terminal_id is not None:  # an agent-owned terminal's output, so a renderer can tell
        content["_meta"] = {TERMINAL_META: terminal_id}
    return content


def terminal_text(terminal: dict[str, Any]) -> str:
    """What an agent-owned terminal shows: its output so far, and how it exited."""
    text = str(terminal.get("text", ""))
    status = terminal.get("exitStatus")
    if isinstance(status, dict):
        code, sig = status.get("exitCode"), status.get("signal")
        text += f"\n[exit {code if code is not None else sig or '?'}]"
    return text


def _decode(data: Any) -> str:
    try:
        return base64.b64decode(str(data)).decode(errors="replace")
    except ValueError:
        return ""


def tool_call_v1(
    call: dict[str, Any], kind: str, fields: Any = _TOOL_FIELDS, terminals: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A v2 tool call (or the ``fields`` of a patch to one) as a v1 ``tool_call`` / ``tool_call_update``."""
    update: dict[str, Any] = {"sessionUpdate": kind, "toolCallId": call["toolCallId"]}
    for key in fields:
        value = call.get(key)
        if key == "content" and value is not None:
            value = [c for item in value for c in _content_v1(item, terminals)]
        elif key == "status" and isinstance(value, str):
            value = _STATUS_V1.get(value, value)
        if value is not None:
            update[key] = value
    if kind == "tool_call":
        update.setdefault("title", "")
    return update


def config_options_v1(options: Any) -> list[dict[str, Any]]:
    """v2 config options (``configId``) in v1 form (``id``)."""
    converted = []
    for option in options or []:
        if isinstance(option, dict) and "configId" in option:
            v1 = {k: v for k, v in option.items() if k != "configId"}
            converted.append({"id": option["configId"], **v1})
        elif isinstance(option, dict) and "id" in option:  # already in v1 form
            converted.append(option)
    return converted


def mode_option(options: Any) -> dict[str, Any] | None:
    """The v2 config option that holds the session's mode (category ``mode``), if any."""
    for option in options or []:
        if isinstance(option, dict) and option.get("category") == "mode" and option.get("type") == "select":
            return option
    return None


def modes_v1(options: Any) -> dict[str, Any] | None:
    """v1 ``modes`` (``SessionModeState`` wire form) from a v2 mode config option."""
    option = mode_option(options)
    if option is None:
        return None
    values: list[dict[str, Any]] = []
    for entry in option.get("options", []):
        values.extend(entry.get("options", []) if "group" in entry else [entry])
    modes = [{"id": v["value"], "name": v.get("name", v["value"])} for v in values if "value" in v]
    return {"currentModeId": option.get("currentValue"), "availableModes": modes}


@dataclass
class SessionFold:
    """One v2 session's entities as they stand, its config options, and the turn waiting to end."""

    messages: dict[str, list[Any]] = field(default_factory=dict)
    """``messageId`` → its content blocks."""
    tool_calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``toolCallId`` → the tool call (v2 wire form) as patched so far."""
    terminals: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``terminalId`` → the agent-owned terminal (``text``: its output decoded, ``exitStatus``, …)."""
    config_options: list[dict[str, Any]] = field(default_factory=list)
    state: str | None = None
    turn: Turn | None = None

    def begin(self) -> Turn:
        """A new turn: it ends at the first ``idle`` after it is running or acknowledged."""
        self.turn = Turn(asyncio.get_running_loop().create_future())
        return self.turn

    def acknowledged(self, turn: Turn, message_id: str | None) -> None:
        turn.message_id = message_id

    def cancellable(self, tool_call_id: str) -> bool:
        """Whether the tool call advertises ``capabilities.cancel`` and has not ended."""
        call = self.tool_calls.get(tool_call_id)
        if call is None or call.get("status") in _FINAL:
            return False
        return isinstance(call.get("capabilities"), dict) and call["capabilities"].get("cancel") is not None

    def running_cancellable(self) -> list[str]:
        return [tool_call_id for tool_call_id in self.tool_calls if self.cancellable(tool_call_id)]

    def fold(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply one v2 update; the v1 updates (wire form) it amounts to."""
        kind = update.get("sessionUpdate")
        if kind in _MESSAGE_KINDS:
            return self._message(str(kind), update)
        if kind in ("tool_call_update", "tool_call"):  # tool_call: v1's create, from an agent still half in v1
            return self._tool_call(update)
        if kind == "tool_call_content_chunk":
            return self._tool_content(update)
        if kind == "state_update":
            self._state(update)
            return []
        if kind == "config_option_update":
            return self.set_config(update.get("configOptions"))
        if kind == "available_commands_update":
            return [commands_v1(update.get("availableCommands"))]
        if kind == "plan_update":
            return [plan_v1(update)]
        if kind in ("terminal_update", "terminal_output_chunk"):
            return self._terminal(update)
        # the same in both (usage, session info, plans by id, notices, compaction), v1 kinds from an
        # agent still half in v1; a kind of a later draft has no v1 form and is dropped on delivery
        return [update]

    def _message(self, kind: str, update: dict[str, Any]) -> list[dict[str, Any]]:
        message_id = str(update.get("messageId", ""))
        v1_kind = _MESSAGE_KINDS[kind]
        known = self.messages.get(message_id)
        if kind.endswith("_chunk"):
            content = update.get("content")
            self.messages.setdefault(message_id, []).append(content)
            return [{"sessionUpdate": v1_kind, "messageId": message_id, "content": content}]
        blocks = [b for b in update.get("content") or [] if isinstance(b, dict)]
        self.messages[message_id] = list(blocks)
        old, new = _text(known), _text(blocks)
        if known is not None and new.startswith(old):  # the usual whole form: more of the same text
            added = new[len(old) :]
            pieces = [{"type": "text", "text": added}] if added else []
            pieces += [b for b in blocks if b.get("type") != "text" and b not in known]
        else:  # new, or replaced: shown whole
            pieces = blocks
        return [{"sessionUpdate": v1_kind, "messageId": message_id, "content": b} for b in pieces]

    def _tool_call(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        tool_call_id = str(update.get("toolCallId", ""))
        stored = self.tool_calls.get(tool_call_id)
        if stored is None:
            stored = self.tool_calls[tool_call_id] = {"toolCallId": tool_call_id}
            _patch(stored, update)
            return [tool_call_v1(stored, "tool_call", terminals=self.terminals)]
        _patch(stored, update)
        changed = [k for k in _TOOL_FIELDS if k in update]
        cleared: dict[str, Any] = {k: [] for k in ("content", "locations") if k in update and update[k] is None}
        return [{**tool_call_v1(stored, "tool_call_update", changed, self.terminals), **cleared}]

    def _terminal(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        """An agent-owned terminal's output or state: the tool calls showing it get their content again."""
        terminal_id = str(update.get("terminalId", ""))
        terminal = self.terminals.setdefault(terminal_id, {"text": ""})
        if update.get("sessionUpdate") == "terminal_output_chunk":
            terminal["text"] += _decode(update.get("data"))
        else:
            output = update.get("output")
            _patch(terminal, {k: v for k, v in update.items() if k != "output"})
            if isinstance(output, dict):  # a replacement snapshot
                terminal["text"] = _decode(output.get("data"))
        showing = [
            call
            for call in self.tool_calls.values()
            if any(isinstance(c, dict) and c.get("terminalId") == terminal_id for c in call.get("content") or [])
        ]
        return [tool_call_v1(call, "tool_call_update", ["content"], self.terminals) for call in showing]

    def _tool_content(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        tool_call_id = str(update.get("toolCallId", ""))
        stored = self.tool_calls.get(tool_call_id)
        first = stored is None
        if stored is None:
            stored = self.tool_calls[tool_call_id] = {"toolCallId": tool_call_id}
        stored["content"] = [*(stored.get("content") or []), update.get("content")]
        fields = _TOOL_FIELDS if first else ["content"]
        return [tool_call_v1(stored, "tool_call" if first else "tool_call_update", fields, self.terminals)]

    def _state(self, update: dict[str, Any]) -> None:
        state = update.get("state")
        self.state = state if isinstance(state, str) else None
        turn = self.turn
        if turn is None or turn.done.done():
            return
        if state in ("running", "requires_action"):
            turn.running = True
        elif state == "idle" and update.get("stopReason") is not None and (turn.running or turn.message_id is not None):
            turn.done.set_result(str(update["stopReason"]))

    def set_config(self, options: Any) -> list[dict[str, Any]]:
        before = mode_option(self.config_options)
        self.config_options = [o for o in options or [] if isinstance(o, dict)]
        updates: list[dict[str, Any]] = [
            {"sessionUpdate": "config_option_update", "configOptions": config_options_v1(self.config_options)}
        ]
        after = mode_option(self.config_options)
        if after is not None and (before is None or before.get("currentValue") != after.get("currentValue")):
            updates.append({"sessionUpdate": "current_mode_update", "currentModeId": after.get("currentValue")})
        return updates


_PLAN_STATUSES = ("pending", "in_progress", "completed")


def plan_v1(update: dict[str, Any]) -> dict[str, Any]:
    """A v2 ``plan_update`` of entries as v1's ``plan`` (the session's one plan, replaced whole).

    A plan v1 cannot say (another content type, a ``cancelled`` entry, no priority) stays as it came.
    """
    plan = update.get("plan")
    entries = plan.get("entries") if isinstance(plan, dict) and plan.get("type") == "items" else None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and e.get("status") in _PLAN_STATUSES and "priority" in e for e in entries
    ):
        return update
    return {"sessionUpdate": "plan", "entries": entries}


def commands_v1(commands: Any) -> dict[str, Any]:
    """A v1 ``available_commands_update`` from v2 commands (``type: command`` entries)."""
    available = [
        {k: v for k, v in c.items() if k != "type"}
        for c in commands or []
        if isinstance(c, dict) and c.get("type", "command") == "command"
    ]
    return {"sessionUpdate": "available_commands_update", "availableCommands": available}
