"""Reading the files edit calls will change, in a worker thread (never on the event loop).

Right after the model answers (before langacp reports its tool calls), a LangChain middleware
learns which path arguments are directories (for the titles: ``src/``) and reads the old text
of every file an ``edit`` call names, so neither the titles nor the proposed diff shown with the
call and in the permission request look at the file system on the event loop. Just before the
tool runs (after the permission check) the ``langacp_tool_starting`` hook reads it again
(:func:`capture`), so the result diff compares with what was really there; right after it ran,
the ``langacp_tool_finished`` hook reads its new text (:func:`capture_after`) for that diff.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware

from langacp.api import SessionContext, ToolCallInfo, model_call_messages, run_off_loop
from langacp_tools.diffs import capture_before, read_after, state
from langacp_tools.kinds import kind_of
from langacp_tools.paths import absolute, first_path, iter_paths

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse

__all__ = ["READ_TIMEOUT", "DiffCapture", "capture", "capture_after"]

log = logging.getLogger("langacp_tools")

READ_TIMEOUT = 10.0
"""Seconds a file read for a diff may take; after that the diff is left out."""


class DiffCapture(AgentMiddleware):  # type: ignore[type-arg]
    """Remembers the old text of every file an ``edit`` tool call is about to change."""

    def __init__(self, session: SessionContext) -> None:
        super().__init__()
        self.session = session

    @property
    def name(self) -> str:
        return "langacp_tools_diff_capture"

    def _kind(self, call: ToolCallInfo) -> str:
        plugins = self.session.plugins
        return plugins.tool_kind(call, self.session) if plugins is not None else kind_of(call.name)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        response = await handler(request)
        calls = [
            ToolCallInfo.from_tool_call(tool_call)
            for message in model_call_messages(response)
            for tool_call in getattr(message, "tool_calls", None) or []
        ]
        await self._learn_directories(calls)
        for call in calls:
            # Only a call that names a file has one to capture (capture_before reads the file its
            # first path argument names), so a call naming none is not asked its kind: six hooks.
            if call.tool_call_id and first_path(call.args) is not None and self._kind(call) == "edit":
                await capture(call, self.session)
        return response

    async def _learn_directories(self, calls: list[ToolCallInfo]) -> None:
        """Which path arguments of ``calls`` are directories (the titles show them with ``/``)."""
        paths = {absolute(path, self.session.cwd) for call in calls for _, path in iter_paths(call.args)}
        if not paths:
            return
        try:
            found = await run_off_loop(_directories, READ_TIMEOUT, paths)
        except TimeoutError:
            log.warning("langacp-tools: the file system did not say in time which paths are directories")
            return
        state(self.session).directories.update(found)


async def capture(call: ToolCallInfo, session: SessionContext) -> None:
    """Read and remember the old text of the file edit ``call`` changes, in a worker thread."""
    state(session).tried.add(call.tool_call_id)  # timed out or not, never read again on the event loop
    try:
        await run_off_loop(capture_before, READ_TIMEOUT, call, session)
    except TimeoutError:
        log.warning("langacp-tools: reading the file of %s for its diff took too long; no diff", call.name)


async def capture_after(call: ToolCallInfo, session: SessionContext) -> None:
    """Read and remember the new text of the file edit ``call`` changed, in a worker thread."""
    try:
        after = await run_off_loop(read_after, READ_TIMEOUT, call, session)
    except TimeoutError:
        log.warning("langacp-tools: reading the file of %s after it ran took too long; no diff", call.name)
        after = None
    state(session).after[call.tool_call_id] = after


def _directories(paths: set[str]) -> set[str]:
    """Those of ``paths`` that are directories (it touches the file system: run in a worker thread)."""
    return {path for path in paths if os.path.isdir(path)}
