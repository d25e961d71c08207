"""How ``langacp chat`` prints: :class:`TerminalRenderer` (rich) or :class:`JsonRenderer` (JSON lines)."""

from __future__ import annotations

import ast
import difflib
import json
import re
import sys
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Protocol

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from acp.schema import PermissionOption, ToolCallUpdate

__all__ = ["JsonRenderer", "Renderer", "TerminalRenderer", "dump"]

PREVIEW_LINES = 4
DIFF_LINES = 80
STATUS_MARK = {"pending": "…", "in_progress": "⋯", "completed": "✓", "failed": "✗"}
PLAN_MARK = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
QUOTE_MARK = "│ "
"""What a markdown quote line (``> text``) starts with here: ``> `` is the prompt's own marker."""
TODOS = re.compile(r"Updated todo list to (\[.*\])\s*", re.DOTALL)
"""The result text of LangChain's ``write_todos`` (a Python list of dicts)."""


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 line``, ``2 lines`` (``nouns``: an irregular plural)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def dump(model: Any) -> Any:
    """An ACP schema model as JSON-ready data, with the protocol's camelCase names."""
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return model


class Renderer(Protocol):
    """What the chat client reports; both renderers implement it."""

    def update(self, session_id: str, update: Any) -> None: ...
    def permission(self, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> None: ...
    def permission_answer(self, tool_call: ToolCallUpdate, option: PermissionOption | None, how: str) -> None: ...
    def turn_end(self, session_id: str, stop_reason: str) -> None: ...
    def mode_changed(self, mode_id: str) -> None: ...
    def info(self, text: str) -> None: ...
    def error(self, text: str) -> None: ...
    def agent_log(self, line: str) -> None: ...


@dataclass
class _Call:
    title: str = ""
    kind: str = "other"
    status: str = "pending"
    locations: set[str] = field(default_factory=set)
    shown: set[str] = field(default_factory=set)
    """The diffs already shown for this call: each is shown once."""
    text: str = ""
    """The text content last shown for this call."""


class TerminalRenderer:
    """Streams text, dims thoughts, shows tool calls, plans, modes and usage for a human."""

    def __init__(self, console: Console | None = None, err: Console | None = None) -> None:
        self.console = console or Console(highlight=False, soft_wrap=True)
        self.err = err or Console(stderr=True, highlight=False, soft_wrap=True)
        self.calls: dict[str, _Call] = {}
        self.usage: Any = None
        self.mode: str | None = None
        self._stream: str | None = None  # the kind of chunk being streamed
        self._at_line_start = True
        self._held = ""  # a message's ">" at a line start, until the next chunk says whether it quotes

    # -- text ----------------------------------------------------------------------------------

    def end_stream(self) -> None:
        """Close a streamed line so the next output starts on its own line."""
        if self._held:
            held, self._held = self._held, ""
            self.console.print(Text(held), end="")
            self._at_line_start = False
        if not self._at_line_start:
            self.console.print()
            self._at_line_start = True
        self._stream = None

    def _unquote(self, text: str) -> str:
        """A message's markdown quote lines start with :data:`QUOTE_MARK` instead of ``> ``."""
        text, self._held = self._held + text, ""
        lines = text.splitlines(keepends=True)
        at_start = self._at_line_start
        for n, line in enumerate(lines):
            if at_start and line == ">" and n == len(lines) - 1:  # the chunk ends before we know
                self._held = ">"
                lines[n] = ""
            elif at_start and line.startswith("> "):
                lines[n] = QUOTE_MARK + line[2:]
            elif at_start and line.rstrip("\r\n") == ">":
                lines[n] = QUOTE_MARK.rstrip() + line[1:]
            at_start = line.endswith("\n")
        return "".join(lines)

    def _chunk(self, kind: str, text: str, style: str | None) -> None:
        if self._stream != kind:
            self.end_stream()
            if kind == "agent_thought_chunk" and self.console.color_system is None:
                self.console.print(Text("thinking: ", style="dim"), end="")  # dim text does not show here
                self._at_line_start = False
        self._stream = kind
        if kind == "agent_message_chunk":
            text = self._unquote(text)
        if text:
            self.console.print(Text(text, style=style or ""), end="")
            self._at_line_start = text.endswith("\n")

    def line(self, text: str | Text, style: str | None = None) -> None:
        self.end_stream()
        self.console.print(text if isinstance(text, Text) else Text(text, style=style or ""))

    # -- updates -------------------------------------------------------------------------------

    def update(self, session_id: str, update: Any) -> None:
        kind = update.session_update
        if kind == "agent_message_chunk":
            self._chunk(kind, _content_text(update.content), None)
        elif kind == "agent_thought_chunk":
            self._chunk(kind, _content_text(update.content), "dim italic")
        elif kind == "user_message_chunk":
            self._chunk(kind, _content_text(update.content), "bold")
        elif kind in ("tool_call", "tool_call_update"):
            self._tool_call(update, started=kind == "tool_call")
        elif kind == "plan":
            self._plan(update.entries)
        elif kind == "plan_update":
            self.line(f"plan: {json.dumps(dump(update.plan))[:400]}", "cyan")
        elif kind == "current_mode_update":
            self.mode_changed(update.current_mode_id)
        elif kind == "usage_update":
            self.usage = update
        elif kind == "available_commands_update":
            names = ", ".join(f"/{c.name}" for c in update.available_commands)
            self.line(f"commands: {names}" if names else "commands: none", "dim")
        elif kind == "session_info_update":
            if getattr(update, "title", None):
                self.line(f"session: {update.title}", "dim")
        elif kind == "notice":
            self._notice(update)
        elif kind == "config_option_update":
            options = ", ".join(f"{o.name}={getattr(o, 'current_value', '?')}" for o in update.config_options)
            self.line(f"config: {options}", "dim")
        else:
            self.line(f"{kind}: {json.dumps(dump(update))[:200]}", "dim")

    def _notice(self, notice: Any) -> None:
        """News from the agent that is not conversation (ACP's ``notice``: what it could not apply, …), whole."""
        style = {"error": "bold red", "warning": "yellow"}.get(str(notice.severity), "dim")
        text = notice.title + (f": {notice.description}" if notice.description else "")
        self.line(f"{'! ' if notice.severity in ('error', 'warning') else ''}{text}", style)

    def _tool_call(self, update: Any, *, started: bool) -> None:
        call = self.calls.setdefault(update.tool_call_id, _Call(title=update.tool_call_id))
        new_title = bool(update.title) and update.title != call.title
        if update.title:
            call.title = update.title
        if update.kind:
            call.kind = update.kind
        status_changed = bool(update.status) and update.status != call.status
        if update.status:
            call.status = update.status
        if started:
            head = Text("● ", style="cyan")
            head.append(call.title, style="bold")
            head.append(f" ({call.kind})", style="cyan")
            head.append(f" {call.status}", style="dim")
            self.line(head)
        elif new_title:
            self.line(Text(f"  ↳ {call.title} ({call.kind})", style="cyan"))
        for location in update.locations or []:
            where = location.path + (f":{location.line}" if location.line is not None else "")
            if where not in call.locations:
                call.locations.add(where)
                self.line(f"  at {where}", "dim")
        for content in update.content or []:
            self._tool_content(content, call)
        if status_changed and not started:
            style = {"completed": "green", "failed": "red"}.get(call.status, "dim")
            self.line(Text(f"  {STATUS_MARK.get(call.status, '·')} {call.title} {call.status}", style=style))

    def _tool_content(self, content: Any, call: _Call) -> None:
        """Show one content of a call, once: a pending call, its permission question and its
        progress often carry the same diff."""
        if content.type == "diff":
            key = json.dumps(["diff", content.path, content.old_text, content.new_text])
            if key in call.shown:
                return
            call.shown.add(key)
            self._diff(content.path, content.old_text, content.new_text, _hunks(content))
        elif content.type == "terminal":
            self.line(f"  terminal {content.terminal_id}", "dim")
        elif not _terminal_output(content):
            self._tool_text(_content_text(content.content), call)

    def _tool_text(self, text: str, call: _Call) -> None:
        todos = _todos(text)
        if todos is not None:
            self._plan(todos)
            return
        if text.startswith(call.text) and call.text:  # the same text, grown (a sub-agent's answer)
            text, call.text = text[len(call.text) :], text
            if not text.strip():
                return
            text = text.lstrip("\n")
        else:
            call.text = text
        lines = text.splitlines()
        for line in lines[:PREVIEW_LINES]:
            self.line(Text(f"  │ {line}", style="dim"))
        if len(lines) > PREVIEW_LINES:
            self.line(Text(f"  │ … {plural(len(lines) - PREVIEW_LINES, 'more line')}", style="dim"))

    def _diff(self, path: str, old: str | None, new: str, hunks: list[str] | None = None) -> None:
        """The change as a unified diff: of the two texts, or the agent's own ``hunks`` (ACP v2's patch)."""
        self.line(Text(f"  diff {path}", style="bold"))
        # ``a/`` + a relative path, ``a`` + an absolute one (never ``a//abs``), as git prints them
        a, b = ("a", "b") if path.startswith("/") else ("a/", "b/")
        if hunks is not None:
            diff = [f"--- {a}{path}", f"+++ {b}{path}", *hunks] if hunks else []
        else:
            diff = list(
                difflib.unified_diff((old or "").splitlines(), new.splitlines(), a + path, b + path, lineterm="")
            )
        for line in diff[:DIFF_LINES]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
            self.line(Text(f"  {line}", style=style))
        if len(diff) > DIFF_LINES:
            self.line(f"  … {plural(len(diff) - DIFF_LINES, 'more diff line')}", "dim")

    def _plan(self, entries: list[Any]) -> None:
        """Plan entries (ACP's, or ``{"content": …, "status": …}`` dicts) as a checklist."""
        self.line(Text("Plan:", style="bold cyan"))
        for entry in entries:
            status, content = (
                (entry.get("status"), entry.get("content"))
                if isinstance(entry, dict)
                else (entry.status, entry.content)
            )
            mark = PLAN_MARK.get(str(status), "[?]")
            style = {"completed": "green", "in_progress": "yellow"}.get(str(status), "")
            self.line(Text(f"  {mark} {content}", style=style))

    def mode_changed(self, mode_id: str) -> None:
        """Show a mode change once (the agent's update and our own request may both report it)."""
        if mode_id != self.mode:
            self.mode = mode_id
            self.line(f"mode → {mode_id}", "magenta")

    # -- permissions ---------------------------------------------------------------------------

    def permission(self, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> None:
        title = tool_call.title or tool_call.tool_call_id
        head = Text("? ", style="bold yellow")
        head.append(f"Allow {title}", style="bold")
        if tool_call.kind:
            head.append(f" ({tool_call.kind})", style="yellow")
        head.append("?")
        self.line(head)
        if tool_call.raw_input is not None:
            self.line(f"  input: {json.dumps(tool_call.raw_input, ensure_ascii=False)[:300]}", "dim")
        for location in tool_call.locations or []:
            self.line(f"  at {location.path}" + (f":{location.line}" if location.line is not None else ""), "dim")
        call = self.calls.setdefault(tool_call.tool_call_id, _Call(title=title))
        for content in tool_call.content or []:
            if (
                content.type == "diff"
                and json.dumps(["diff", content.path, content.old_text, content.new_text]) in call.shown
            ):
                self.line(f"  (the diff of {content.path} above)", "dim")
            else:
                self._tool_content(content, call)
        choices = "   ".join(f"{n}) {o.name}" for n, o in enumerate(options, 1))
        self.line(Text(f"  {choices}", style="yellow"))

    def permission_answer(self, tool_call: ToolCallUpdate, option: PermissionOption | None, how: str) -> None:
        answer = option.name if option is not None else "cancelled"
        self.line(f"  → {answer}{f' ({how})' if how else ''}", "dim")

    # -- turn, messages ------------------------------------------------------------------------

    def turn_end(self, session_id: str, stop_reason: str) -> None:
        self.end_stream()
        parts = [] if stop_reason == "end_turn" else [f"stop: {stop_reason}"]
        if self.usage is not None:
            parts.append(f"context {self.usage.used}/{self.usage.size} tokens")
            cost = getattr(self.usage, "cost", None)
            if cost is not None:
                parts.append(f"{cost.amount} {cost.currency}")
            self.usage = None
        if parts:
            self.line(" · ".join(parts), "dim")

    def info(self, text: str) -> None:
        self.line(text, "dim")

    def error(self, text: str) -> None:
        self.end_stream()
        self.err.print(Text(text, style="bold red"))

    def agent_log(self, line: str) -> None:
        self.err.print(Text(f"agent: {line}", style="dim"))


class JsonRenderer:
    """One JSON object per line on stdout: every update, permission request and stop reason."""

    def __init__(self, out: IO[str] | None = None, err: Console | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or Console(stderr=True, highlight=False, soft_wrap=True)

    def _emit(self, data: dict[str, Any]) -> None:
        self.out.write(json.dumps(data, ensure_ascii=False) + "\n")
        self.out.flush()

    def update(self, session_id: str, update: Any) -> None:
        self._emit({"sessionId": session_id, "update": dump(update)})

    def permission(self, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> None:
        self._emit({"requestPermission": {"toolCall": dump(tool_call), "options": [dump(o) for o in options]}})

    def permission_answer(self, tool_call: ToolCallUpdate, option: PermissionOption | None, how: str) -> None:
        outcome = {"outcome": "selected", "optionId": option.option_id} if option else {"outcome": "cancelled"}
        self._emit({"permissionOutcome": {"toolCallId": tool_call.tool_call_id, **outcome}})
        if how:
            self.info(f"permission for {tool_call.title or tool_call.tool_call_id}: {outcome['outcome']} ({how})")

    def turn_end(self, session_id: str, stop_reason: str) -> None:
        self._emit({"sessionId": session_id, "stopReason": stop_reason})

    def mode_changed(self, mode_id: str) -> None:
        self.info(f"mode → {mode_id}")

    def info(self, text: str) -> None:
        self.err.print(Text(text, style="dim"))

    def error(self, text: str) -> None:
        self.err.print(Text(text, style="bold red"))

    def agent_log(self, line: str) -> None:
        self.err.print(Text(f"agent: {line}", style="dim"))


def _todos(text: str) -> list[dict[str, Any]] | None:
    """The entries of ``write_todos``'s result text (``Updated todo list to [{...}]``), else ``None``."""
    match = TODOS.fullmatch(text)
    if match is None:
        return None
    try:
        entries = ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(entries, list) and all(isinstance(e, dict) and "content" in e for e in entries):
        return entries
    return None


def _terminal_output(content: Any) -> bool:
    """An ACP v2 agent-owned terminal's output so far: not shown, the tool's result shows it (as over v1)."""
    from langacp.client.v2_fold import TERMINAL_META

    meta = getattr(content, "field_meta", None)
    return isinstance(meta, dict) and TERMINAL_META in meta


def _hunks(diff: Any) -> list[str] | None:
    """The hunks of the agent's own patch a diff folded from ACP v2 carries (``None``: a v1 diff)."""
    from langacp.client.v2_diff import PATCH_META, hunk_lines

    meta = getattr(diff, "field_meta", None)
    entry = meta.get(PATCH_META) if isinstance(meta, dict) else None
    return hunk_lines(entry.get("hunks")) if isinstance(entry, dict) else None


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    text = getattr(content, "text", None)
    if isinstance(text, str):
        return text
    kind = getattr(content, "type", "content")
    uri = getattr(content, "uri", None) or getattr(getattr(content, "resource", None), "uri", None)
    return f"[{kind}{' ' + uri if uri else ''}]"
