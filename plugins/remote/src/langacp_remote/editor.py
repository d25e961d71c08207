"""Editor tools for graphs that run on a LangGraph Server.

Give them to the server's agent::

    from langacp_remote.editor import editor_tools

    graph = create_agent(model, tools=[*my_tools, *editor_tools()])

Each tool pauses the run with a typed interrupt (:data:`EDITOR_REQUEST`) naming an operation on
the user's machine: read a file, write one, replace text in one, run a command. The
``langacp serve --remote`` process that streams the run fulfils it through the editor
(``fs/read_text_file``, ``fs/write_text_file``, ``terminal/*``), after the local permission
policy, confined to the session's directories, and resumes the run with the result. Without a
langacp client (a run started from Studio or the SDK) the interrupt stays pending: resume it
with ``Command(resume={"status": "error", "content": "..."})``.

This module imports only LangChain core and LangGraph: the server needs ``langacp-remote``
installed, not the ACP SDK.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, tool

__all__ = ["EDITOR_REQUEST", "editor_tools"]

EDITOR_REQUEST = "langacp.editor_request"
"""``type`` of the interrupt value an editor tool raises: ``{"type", "op", "args", "tool_call_id"}``.

It is resumed with ``{"status": "success" | "error", "content": str, "artifact": dict | None}``;
the artifact (``{"diff": {"path", "old_text", "new_text"}}``, ``{"terminal_id": ...}``) lets the
editor show the change or the terminal in the tool call."""


def _ask(op: str, args: dict[str, Any], tool_call_id: str) -> ToolMessage:
    """Interrupt for the editor; the answer is ``{"status": "success" | "error", "content": str}``."""
    from langgraph.types import interrupt

    answer = interrupt({"type": EDITOR_REQUEST, "op": op, "args": args, "tool_call_id": tool_call_id})
    if not isinstance(answer, dict):
        answer = {"status": "error", "content": f"unexpected answer to an editor request: {answer!r}"}
    status = "error" if answer.get("status") == "error" else "success"
    artifact = answer.get("artifact") if isinstance(answer.get("artifact"), dict) else None
    return ToolMessage(
        content=str(answer.get("content") or ""), tool_call_id=tool_call_id, status=status, name=op, artifact=artifact
    )


@tool
def read_file(path: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> ToolMessage:
    """Read a text file in the user's workspace (absolute path, or relative to its root), as the editor has it."""
    return _ask("read_file", {"path": path}, tool_call_id)


@tool
def write_file(path: str, content: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> ToolMessage:
    """Create or overwrite a text file in the user's workspace with ``content``."""
    return _ask("write_file", {"path": path, "content": content}, tool_call_id)


@tool
def edit_file(
    path: str, old_string: str, new_string: str, tool_call_id: Annotated[str, InjectedToolCallId]
) -> ToolMessage:
    """Replace the one occurrence of ``old_string`` in a text file of the user's workspace with ``new_string``."""
    return _ask("edit_file", {"path": path, "old_string": old_string, "new_string": new_string}, tool_call_id)


@tool
def run_command(command: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> ToolMessage:
    """Run a shell command in the user's workspace (its root directory); returns its output and exit status."""
    return _ask("run_command", {"command": command}, tool_call_id)


def editor_tools() -> list[BaseTool]:
    """The editor tools: ``read_file``, ``write_file``, ``edit_file``, ``run_command``."""
    return [read_file, write_file, edit_file, run_command]
