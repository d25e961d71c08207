"""The offline demo model: what the default agent runs when no model is configured.

It is not a language model. It recognises a few requests and answers them deterministically,
so every protocol feature can be seen without an API key: streamed text and a short reasoning,
tool calls (``list files``, ``read README.md``, ``search for TODO``), a plan (``make a plan for
…``) a long answer to cancel (``count to 200``) and a call of any of the agent's tools
(``call TOOL {"arg": "value"}``). When the agent has tools that change
files and run commands (langacp-client-tools), also ``write hello to notes.txt``,
``replace hello with bye in notes.txt`` and ``run ls -la``. Every turn's answer starts with
:data:`LABEL`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import Field

from langacp.default_agent.scripted_model import Reply, ScriptedChatModel, ScriptedToolCall

__all__ = ["LABEL", "MODEL_NAME", "DemoChatModel", "demo_reply"]

MODEL_NAME = "langacp-offline-demo"
LABEL = "[offline demo model — set --model or LANGACP_MODEL for a real one]"
HELP = (
    "I am not a language model: I only understand a few requests. Try:\n"
    "- `list files` (or `list files in docs`)\n"
    "- `read README.md`\n"
    "- `search for TODO`\n"
    "- `make a plan for adding a feature`\n"
    "- `count to 100` (press Ctrl-C to cancel)\n"
    '- `call TOOL {"argument": "value"}`: call one of the agent\'s tools'
)
HELP_WRITE = "\n- `write hello to notes.txt`\n- `replace hello with bye in notes.txt`\n- `run ls -la`"


def _no_write() -> str:
    from langacp.hints import install_command

    return (
        f"This agent can only read files. Install langacp-client-tools ({install_command('langacp-client-tools')}) "
        "to let it write files and run commands."
    )


MAX_COUNT = 1000

_PLAN = re.compile(
    r"^(?:please\s+)?(?:make|create|write|draw up|give me)\s+(?:me\s+)?(?:a\s+)?plan\s+(?:for|to|of)\s+(.+)$"
)
_PLAN_SHORT = re.compile(r"^plan\s+(.+)$")
_LIST = re.compile(
    r"^(?:please\s+)?(?:list|ls|show)(?:\s+(?:the|all|my))?(?:\s+files?)?(?:\s+(?:in|under|of)\s+(.+))?$"
)
_READ = re.compile(r"^(?:please\s+)?(?:read|open|cat|view|show)\s+(?:me\s+)?(?:the\s+)?(?:file\s+)?(\S+)$")
_SEARCH = re.compile(r"^(?:please\s+)?(?:search|grep|look|find)\s+(?:for\s+)?(.+?)(?:\s+(?:in|under)\s+(\S+))?$")
_COUNT = re.compile(r"^count\s+to\s+(\d+)$")
_WRITE = re.compile(r"^(?:please\s+)?write\s+(.+?)\s+(?:to|into)\s+(?:the\s+)?(?:file\s+)?(\S+)$", re.DOTALL)
_REPLACE = re.compile(r"^(?:please\s+)?replace\s+(.+?)\s+with\s+(.+?)\s+in\s+(?:the\s+)?(?:file\s+)?(\S+)$", re.DOTALL)
_RUN = re.compile(r"^(?:please\s+)?(?:run|execute)\s+(?:the\s+command\s+)?(.+)$", re.DOTALL)
_CALL = re.compile(r"^(?:please\s+)?(?:call|use)\s+(?:the\s+tool\s+)?([A-Za-z_][\w.-]*)(?:\s+(\{.*\}))?$", re.I | re.S)
WRITE_TOOLS = ("write_file", "edit_file", "run_command")


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        return text[1:-1]
    return text


def _turn(messages: list[BaseMessage]) -> tuple[str, list[ToolMessage], dict[str, dict[str, Any]]]:
    """The last user request, the tool results after it, and the args of every tool call by id."""
    results: list[ToolMessage] = []
    request = ""
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            results.append(message)
        elif isinstance(message, HumanMessage):
            request = message.text.strip()
            break
    calls = {tc["id"] or "": tc["args"] for m in messages if isinstance(m, AIMessage) for tc in m.tool_calls}
    return request, list(reversed(results)), calls


def _call(name: str, args: dict[str, Any], intro: str, reasoning: str) -> Reply:
    return Reply(reasoning=f"{reasoning}\n", text=f"{LABEL}\n\n{intro}\n\n", tool_calls=[ScriptedToolCall(name, args)])


def _plan_todos(goal: str) -> list[dict[str, str]]:
    return [
        {"content": f"Explore the code involved in {goal}", "status": "in_progress"},
        {"content": f"Make the changes for {goal}", "status": "pending"},
        {"content": f"Test {goal} and update the docs", "status": "pending"},
    ]


def _write_request(text: str, lower: str, tools: AbstractSet[str]) -> Reply | None:
    """``write … to FILE``, ``replace … with … in FILE``, ``run CMD``; ``None`` for anything else."""
    call: tuple[str, dict[str, Any], str, str] | None = None
    if match := _WRITE.match(lower):
        content, path = _unquote(_span(text, match, 1)), _unquote(_span(text, match, 2))
        content += "" if content.endswith("\n") else "\n"
        call = ("write_file", {"path": path, "content": content}, f"Let me write `{path}`.", f"write {path}")
    elif match := _REPLACE.match(lower):
        old, new, path = (_unquote(_span(text, match, i)) for i in (1, 2, 3))
        args = {"path": path, "old_string": old, "new_string": new}
        call = ("edit_file", args, f"Let me edit `{path}`.", f"replace {old!r} with {new!r} in {path}")
    elif match := _RUN.match(lower):
        command = _unquote(_span(text, match, 1))
        call = ("run_command", {"command": command}, f"Let me run `{command}`.", f"run {command!r}")
    if call is None:
        return None
    name, args, intro, goal = call
    if name not in tools:
        return Reply(
            reasoning=f"The user wants me to {goal}, but I have no {name} tool.\n", text=f"{LABEL}\n\n{_no_write()}\n"
        )
    return _call(name, args, intro, f"The user wants me to {goal}: I will call {name}.")


def _tool_request(name: str, arguments: str | None) -> Reply:
    """``call NAME {json}``: a call of any of the agent's tools, with the arguments as written."""
    import json

    try:
        args = json.loads(arguments) if arguments else {}
    except ValueError as exc:
        return Reply(
            text=f'{LABEL}\n\nThe arguments of {name} are not JSON ({exc}): write them as {{"name": value}}.\n'
        )
    if not isinstance(args, dict):
        return Reply(text=f'{LABEL}\n\nThe arguments of {name} must be a JSON object: {{"name": value}}.\n')
    return _call(name, args, f"Let me call `{name}`.", f"The user asked for the tool {name}: I will call it.")


def _span(text: str, match: re.Match[str], group: int) -> str:
    """A group of a match on the lower-cased text, taken from the original text."""
    return text[match.start(group) : match.end(group)]


def _first_request(request: str, tools: AbstractSet[str] = frozenset()) -> Reply:
    """The first answer of a turn: a tool call, or text. ``tools``: which of :data:`WRITE_TOOLS` the agent has."""
    text = re.sub(r"(?<=\w)[.!?]+$", "", request.strip())  # a sentence's full stop, not a path's ".."
    lower = text.lower()
    if match := _CALL.match(request.strip()):
        return _tool_request(match.group(1), match.group(2))
    if not (_PLAN.match(lower) or _PLAN_SHORT.match(lower)) and (reply := _write_request(text, lower, tools)):
        return reply
    if match := _PLAN.match(lower) or _PLAN_SHORT.match(lower):
        goal = text[match.start(1) : match.end(1)]
        return _call(
            "write_todos",
            {"todos": _plan_todos(goal)},
            f"Here is a plan for {goal}.",
            f"The user wants a plan for {goal}; I will write it as a todo list.",
        )
    if match := _COUNT.match(lower):
        n = min(int(match.group(1)), MAX_COUNT)
        numbers = " ".join(str(i) for i in range(1, n + 1))
        return Reply(reasoning=f"Counting from 1 to {n}, slowly.", text=f"{LABEL}\n\n{numbers}\n")
    if match := _LIST.match(lower):
        path = _unquote(text[match.start(1) : match.end(1)]) if match.group(1) else "."
        return _call(
            "list_files",
            {"path": path},
            f"Let me list the files in `{path}`.",
            f"The user wants to see the files in {path}: I will call list_files.",
        )
    if match := _SEARCH.match(lower):
        pattern = _unquote(text[match.start(1) : match.end(1)])
        args = {"pattern": pattern}
        if match.group(2):
            args["path"] = _unquote(text[match.start(2) : match.end(2)])
        return _call(
            "search_files",
            args,
            f"Let me search for `{pattern}`.",
            f"The user is looking for {pattern!r}: I will call search_files.",
        )
    if match := _READ.match(lower):
        path = _unquote(text[match.start(1) : match.end(1)])
        return _call(
            "read_file",
            {"path": path},
            f"Let me read `{path}`.",
            f"The user wants to read {path}: I will call read_file.",
        )
    help_text = HELP + (HELP_WRITE if tools else "")
    if lower in ("", "hi", "hello", "hey", "help", "?"):
        return Reply(reasoning="A greeting: I will say what I can do.", text=f"{LABEL}\n\nHello! {help_text}\n")
    return Reply(
        reasoning="I do not recognise this request, so I will explain what I can do.",
        text=f"{LABEL}\n\nYou said: {request}\n\n{help_text}\n",
    )


def _summarise(result: ToolMessage, args: dict[str, Any]) -> Reply:
    """The answer once a tool has run."""
    name = result.name or "the tool"
    text = result.text
    if result.status == "error":
        return Reply(
            reasoning=f"{name} failed; I will tell the user why.\n",
            text=f"{name} failed: {text}",
        )
    summarise: Callable[[str, dict[str, Any]], str] = _SUMMARIES.get(name, _summarise_other)
    return Reply(reasoning=f"{name} returned; I will summarise what it found.\n", text=summarise(text, args))


def _summarise_list(text: str, args: dict[str, Any]) -> str:
    path = args.get("path", ".")
    entries = [line for line in text.splitlines() if line and not line.startswith("…")]
    if len(entries) == 1 and entries[0].endswith("(empty directory)"):
        return f"`{path}` is empty."
    dirs = [e for e in entries if e.endswith("/")]
    shown = ", ".join(f"`{e}`" for e in entries[:12])
    more = f" and {len(entries) - 12} more" if len(entries) > 12 else ""
    return (
        f"`{path}` has {_count(len(entries), 'entry', 'entries')} ({_count(len(dirs), 'directory', 'directories')}, "
        f"{_count(len(entries) - len(dirs), 'file')}): {shown}{more}."
    )


def _summarise_read(text: str, args: dict[str, Any]) -> str:
    path = args.get("path", "the file")
    lines = text.splitlines()
    first = [line for line in lines if not line.startswith("… (")][:5]
    quoted = "\n".join(f"> {line}" if line else ">" for line in first)
    return f"`{path}` starts with:\n\n{quoted}\n\n({_count(len(lines), 'line')} read.)"


def _count(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 file``, ``2 files``."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def _summarise_search(text: str, args: dict[str, Any]) -> str:
    pattern = args.get("pattern", "")
    lines = text.splitlines()
    if not lines or lines[0].startswith("No matches"):
        return f"No matches for `{pattern}`."
    matches = [line for line in lines[1:] if not line.startswith("…")]
    files = {m.split(":", 1)[0] for m in matches}
    first = "\n".join(f"- {m}" for m in matches[:5])
    more = " (and more, not shown)" if lines[-1].startswith("…") else ""
    found = f"{_count(len(matches), 'match', 'matches')}{more} for `{pattern}` in {_count(len(files), 'file')}"
    return f"Found {found}. The first:\n\n{first}"


def _summarise_todos(text: str, args: dict[str, Any]) -> str:
    todos = args.get("todos") or []
    steps = "\n".join(f"{i}. {t.get('content', '')} ({t.get('status', 'pending')})" for i, t in enumerate(todos, 1))
    return f"The plan has {len(todos)} steps:\n\n{steps}"


def _summarise_change(text: str, args: dict[str, Any]) -> str:
    return f"Done. {text}"


def _summarise_command(text: str, args: dict[str, Any]) -> str:
    lines = text.splitlines()
    status = lines[-1] if lines else ""
    output = "\n".join(lines[:-1][-20:])
    return f"`{args.get('command', '')}` finished ({status}). Its output:\n\n```\n{output}\n```"


def _summarise_other(text: str, args: dict[str, Any]) -> str:
    return f"The tool returned: {text[:500]}"


_SUMMARIES: dict[str, Callable[[str, dict[str, Any]], str]] = {
    "list_files": _summarise_list,
    "read_file": _summarise_read,
    "search_files": _summarise_search,
    "write_todos": _summarise_todos,
    "write_file": _summarise_change,
    "edit_file": _summarise_change,
    "run_command": _summarise_command,
}


def demo_reply(messages: list[BaseMessage]) -> Reply:
    """The demo model's deterministic answer to a conversation."""
    request, results, calls = _turn(messages)
    if results:
        last = results[-1]
        return _summarise(last, calls.get(last.tool_call_id, {}))
    system = messages[0].text if messages and isinstance(messages[0], SystemMessage) else ""
    return _first_request(request, {name for name in WRITE_TOOLS if name in system})


def _default_delay() -> float:
    try:
        return float(os.environ.get("LANGACP_DEMO_DELAY", "0.02"))
    except ValueError:
        return 0.02


class DemoChatModel(ScriptedChatModel):
    """The offline demo model: a real chat model (tools, streaming) with canned answers."""

    responder: Callable[[list[BaseMessage]], Reply | str] | None = demo_reply
    chunk_size: int = 2
    token_delay: float = Field(default_factory=_default_delay)
    """Seconds between streamed chunks (``LANGACP_DEMO_DELAY``; default 0.02) so streaming is visible."""
    record: bool = False
    """No record of the calls: nobody inspects a served demo, and a long chat would keep ~N² messages."""

    @property
    def _llm_type(self) -> str:
        return MODEL_NAME

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": MODEL_NAME}

    def _chunks(self, messages: list[BaseMessage], run_manager: Any) -> list[AIMessageChunk]:
        chunks = super()._chunks(messages, run_manager)
        chunks[-1].response_metadata["model_name"] = MODEL_NAME
        return chunks
