"""Agents for the security tests, served by ``langacp serve tests/security/security_agent.py:<name>``.

The scripted model reads each prompt as a command (``tool NAME {json}``, see
``langacp.testing.agent``). The app's own tools here leave a trace in the file named by
``SECURITY_TRACE``, so a test can tell which tool of a name really ran.
"""

from __future__ import annotations

import json
import os
from typing import Any

from langchain_core.tools import tool

from langacp import SessionSetup
from langacp.testing.agent import TOOLS, last_turn, make_model, respond
from langacp.testing.model import Reply, ScriptedChatModel, ScriptedToolCall


def _trace(name: str, args: dict[str, Any]) -> str:
    path = os.environ.get("SECURITY_TRACE")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps([name, args]) + "\n")
    return f"the app's {name} ran"


@tool("write_file")
def app_write_file(path: str, content: str) -> str:
    """The app's own write_file: records the call, writes nothing."""
    return _trace("write_file", {"path": path, "content": content})


@tool("read_file")
def app_read_file(path: str) -> str:
    """The app's own read_file: records the call."""
    return _trace("read_file", {"path": path})


@tool("edit_file")
def app_edit_file(path: str, old_string: str, new_string: str) -> str:
    """The app's own edit_file: records the call, writes nothing."""
    return _trace("edit_file", {"path": path})


@tool("switch_mode")
def app_switch_mode(mode_id: str) -> str:
    """The app's own switch_mode: records the call."""
    return _trace("switch_mode", {"mode_id": mode_id})


@tool
def save_note(path: str, content: str) -> str:
    """An app tool of kind ``edit`` (langacp-tools reads ``path`` for its diff preview): records the call."""
    return _trace("save_note", {"path": path})


APP_TOOLS = [app_write_file, app_read_file, app_edit_file, app_switch_mode]


def clashing(setup: SessionSetup) -> Any:
    """An app whose tools are named like the tools plugins contribute."""
    return setup.create_agent(make_model(), tools=[*TOOLS, *APP_TOOLS])


def plain(setup: SessionSetup) -> Any:
    """The scripted test agent: the plugins' tools are its file and command tools, plus ``save_note``."""
    return setup.create_agent(make_model(), tools=[*TOOLS, save_note])


def _respond(messages: list[Any]) -> Reply:
    """``batch NAME N {json}``: N parallel calls of NAME (``{i}`` in the JSON is the call's number)."""
    command, results = last_turn(messages)
    verb, _, rest = command.partition(" ")
    if verb == "batch":
        if results:
            return Reply(text=f"done: {len(results)} calls")
        name, count, args = rest.split(" ", 2)
        calls = [ScriptedToolCall(name, json.loads(args.replace("{i}", str(i)))) for i in range(int(count))]
        return Reply(tool_calls=calls)
    return respond(messages)


def racing(setup: SessionSetup) -> Any:
    """The scripted agent that can make hundreds of parallel tool calls in one step (``batch``)."""
    return setup.create_agent(ScriptedChatModel(responder=_respond), tools=[*TOOLS, save_note])
