"""The diff a write or an edit proposes, computed from the editor's buffer.

The proposed diff is shown with the tool call and in the permission request, before the tool
runs, by the ``langacp_tool_start_content`` hook, which cannot wait for the editor. So when
the model asks for ``write_file`` or ``edit_file`` and the editor reads files for us, a
middleware around the model call reads the buffers those calls touch right away, before
langacp reports the calls; the hook then diffs against what the user sees in the editor,
unsaved changes included. Without ``fs.readTextFile`` this plugin proposes nothing and
langacp-tools diffs against the disk.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import ToolException

from langacp.api import SessionContext, ToolCallInfo, model_call_messages
from langacp_client_tools.access import Target
from langacp_client_tools.files import FileOps, off_loop, replace_exact

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse

__all__ = ["BufferPreview", "proposed_diff"]

log = logging.getLogger("langacp_client_tools")

PREVIEWED = ("write_file", "edit_file")
Seen = tuple[Target, str | None]
"""(the file, its text in the editor; ``None`` for a file that does not exist yet)."""


class BufferPreview(AgentMiddleware):  # type: ignore[type-arg]
    """Reads, right after the model answers, the editor buffers its writes and edits will change."""

    def __init__(self, files: FileOps, seen: dict[str, Seen], runs: Callable[[str], bool] = lambda _: True) -> None:
        super().__init__()
        self.files = files
        self.seen = seen
        self.runs = runs
        """Whether the agent's tool of a name is ours (an app's own ``write_file`` is not previewed)."""

    @property
    def name(self) -> str:
        return "langacp_client_tools_buffer_preview"

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        response = await handler(request)
        for message in model_call_messages(response):
            for call in getattr(message, "tool_calls", None) or []:
                if call.get("name") in PREVIEWED and call.get("id") and self.runs(call["name"]):
                    await self._read(call["id"], call.get("args") or {})
        return response

    async def _read(self, call_id: str, args: dict[str, Any]) -> None:
        path = args.get("path")
        if not isinstance(path, str):
            return
        try:
            where, mode = await self.files.locate(path, "edited")
        except ToolException:
            return  # refused when it runs (or the file system did not answer); nothing outside is read
        if mode is not None and stat.S_ISDIR(mode):
            return
        try:
            self.seen[call_id] = (where, await self.files.read_all(where, path))
        except ToolException:
            if mode is None and not await off_loop(os.path.lexists, where.real):
                self.seen[call_id] = (where, None)  # a new file
        except Exception as exc:  # noqa: BLE001 - a preview must never fail the model call
            log.warning("langacp-client-tools: could not read %s for the proposed diff: %s", path, exc)


def proposed_diff(call: ToolCallInfo, session: SessionContext, seen: dict[str, Seen]) -> list[Any] | None:
    """The diff ``call`` proposes against the buffer read for it, or ``None`` (not read: not ours)."""
    from acp import tool_diff_content

    before = seen.get(call.tool_call_id)
    if before is None:
        return None
    where, old = before
    args = call.args
    if call.name == "write_file":
        new = args.get("content")
        if not isinstance(new, str):
            return None
    else:
        old_string, new_string = args.get("old_string"), args.get("new_string")
        if old is None or not isinstance(old_string, str) or not isinstance(new_string, str):
            return None
        try:
            new, _ = replace_exact(old, old_string, new_string, replace_all=args.get("replace_all") is True)
        except ToolException:
            return []  # the edit will fail: propose nothing (not the disk's diff either)
    return [tool_diff_content(where.sent, new, old)] if new != old else []
