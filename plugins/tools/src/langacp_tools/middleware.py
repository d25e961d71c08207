"""Reading the files edit calls will change, in a worker thread (never on the event loop).

Right after the model answers (before langacp reports its tool calls), a LangChain middleware
reads the old text of every file an ``edit`` call names, so the proposed diff shown with the
call and in the permission request needs no read on the event loop. Just before the tool runs
(after the permission check) the ``langacp_tool_starting`` hook reads it again (:func:`capture`),
so the result diff compares with what was really there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware

from langacp.api import SessionContext, ToolCallInfo, model_call_messages
from langacp_tools.diffs import capture_before
from langacp_tools.kinds import kind_of

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse

__all__ = ["READ_TIMEOUT", "DiffCapture", "capture"]

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
        for message in model_call_messages(response):
            for tool_call in getattr(message, "tool_calls", None) or []:
                call = ToolCallInfo.from_tool_call(tool_call)
                if call.tool_call_id and self._kind(call) == "edit":
                    await capture(call, self.session)
        return response


async def capture(call: ToolCallInfo, session: SessionContext) -> None:
    """Read and remember the old text of the file edit ``call`` changes, in a worker thread."""
    try:
        await asyncio.wait_for(asyncio.to_thread(capture_before, call, session), READ_TIMEOUT)
    except TimeoutError:
        log.warning("langacp-tools: reading the file of %s for its diff took too long; no diff", call.name)
