"""A scripted agent with file tools working in the session's directory: ``langacp.testing.workspace:agent``.

For tests of rendering plugins (kinds, titles, locations, diffs, images). The model takes the
commands of :mod:`langacp.testing.agent` (``tool NAME {json}``, ``think``, …) plus:

* ``image``: answers with text and an image block;
* ``refuse``: answers with a refusal block;
* ``hologram``: answers with a block of a type nobody knows;
* ``blocks`` (first block of a prompt): answers with what the model received, one line per block.

Tools: ``list_files``, ``read_file``, ``search_files``, ``write_file``, ``edit_file`` (paths
relative to the session cwd, never outside it), ``run_command`` (runs argv-split, no shell),
``screenshot`` (returns an image), ``show_terminal`` (a result carrying a terminal id).
``unguarded_agent`` is the same agent built without ``setup.middleware``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.tools import BaseTool, tool

from langacp import SessionSetup
from langacp.testing.agent import make_model
from langacp.testing.agent import respond as respond_basic
from langacp.testing.model import Reply

__all__ = ["PIXEL_PNG", "agent", "respond", "unguarded_agent", "workspace_tools"]

PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
"""A 1×1 PNG, base64."""


_CANNED: dict[str, Callable[[], Reply]] = {
    "image": lambda: Reply(
        text="Here is a picture.", blocks=[{"type": "image", "base64": PIXEL_PNG, "mime_type": "image/png"}]
    ),
    "refuse": lambda: Reply(blocks=[{"type": "refusal", "refusal": "I can't help with that."}]),
    "hologram": lambda: Reply(text="Look:", blocks=[{"type": "hologram", "text": "a 3D cat"}]),
}
"""Commands answered with fixed content blocks."""


def respond(messages: list[BaseMessage]) -> Reply:
    """The workspace model's reply: its own commands first, then those of :mod:`langacp.testing.agent`."""
    if messages and isinstance(messages[-1], HumanMessage):
        content = messages[-1].content
        if isinstance(content, list) and content and _is_text(content[0], "blocks"):
            return Reply(text="\n".join(_describe(block) for block in content[1:]))
        canned = _CANNED.get(messages[-1].text.strip())
        if canned is not None:
            return canned()
    return respond_basic(messages)


def _is_text(block: Any, text: str) -> bool:
    return isinstance(block, dict) and block.get("text") == text


def _describe(block: Any) -> str:
    if not isinstance(block, dict):
        return repr(block)
    if block.get("type") == "text":
        return f"text: {block['text']}"
    return f"{block.get('type')} {block.get('mime_type')} {len(str(block.get('base64', '')))} chars"


def workspace_tools(cwd: str) -> list[BaseTool]:
    """File tools confined to ``cwd``."""
    root = Path(cwd).resolve()

    def resolve(path: str) -> Path:
        return _inside(root, path)

    @tool
    def list_files(path: str = ".") -> str:
        """List the files in a directory."""
        return "\n".join(sorted(p.name for p in resolve(path).iterdir()))

    @tool
    def read_file(path: str, offset: int = 0, limit: int = 2000) -> str:
        """Read lines of a text file."""
        lines = resolve(path).read_text(encoding="utf-8").splitlines()
        return "\n".join(lines[offset : offset + limit])

    @tool
    def search_files(pattern: str, path: str = ".") -> str:
        """Find lines containing ``pattern``."""
        return "\n".join(_search(root, resolve(path), pattern)) or "no matches"

    @tool
    def write_file(path: str, content: str) -> str:
        """Write a text file."""
        target = resolve(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content)} characters to {path}"

    @tool
    def edit_file(path: str, old_string: str, new_string: str) -> str:
        """Replace the first occurrence of ``old_string``."""
        _replace_once(resolve(path), old_string, new_string)
        return f"edited {path}"

    @tool
    def run_command(command: str) -> str:
        """Run a command (split like a shell would, but without a shell) in the workspace."""
        done = subprocess.run(shlex.split(command), cwd=root, capture_output=True, text=True, timeout=30)
        return done.stdout + done.stderr

    @tool
    def screenshot() -> list[dict[str, Any]]:
        """Take a screenshot."""
        return [
            {"type": "text", "text": "the screen:"},
            {"type": "image", "base64": PIXEL_PNG, "mime_type": "image/png"},
        ]

    @tool(response_format="content_and_artifact")
    def show_terminal(terminal_id: str) -> tuple[str, dict[str, str]]:
        """A result that points at a client terminal."""
        return f"output is in terminal {terminal_id}", {"terminal_id": terminal_id}

    return [list_files, read_file, search_files, write_file, edit_file, run_command, screenshot, show_terminal]


def _inside(root: Path, path: str) -> Path:
    """``path`` resolved against ``root``; an error if it leaves ``root``."""
    full = (root / path).resolve()
    if full != root and root not in full.parents:
        raise ValueError(f"{path} is outside the workspace")
    return full


def _search(root: Path, where: Path, pattern: str) -> list[str]:
    """``file:line: text`` of every line under ``where`` that contains ``pattern``."""
    hits: list[str] = []
    for file in sorted(p for p in where.rglob("*") if p.is_file()):
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        hits.extend(f"{file.relative_to(root)}:{n}: {line}" for n, line in enumerate(lines, 1) if pattern in line)
    return hits


def _replace_once(file: Path, old: str, new: str) -> None:
    text = file.read_text(encoding="utf-8")
    if old not in text:
        raise ValueError(f"{old!r} is not in {file.name}")
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def agent(setup: SessionSetup) -> Any:
    """Per-session factory: the scripted model with file tools in the session's cwd."""
    model = make_model()
    model.responder = respond
    tools = workspace_tools(setup.session.cwd or os.getcwd())
    return setup.create_agent(model, tools=tools, system_prompt="You are a scripted workspace agent.")


def unguarded_agent(setup: SessionSetup) -> Any:
    """The same agent built without ``setup.middleware``: nothing langacp or plugins add runs inside it."""
    from langchain.agents import create_agent

    model = make_model()
    model.responder = respond
    return create_agent(model, tools=workspace_tools(setup.session.cwd), checkpointer=setup.checkpointer)
