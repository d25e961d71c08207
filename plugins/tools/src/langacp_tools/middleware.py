"""LangChain middleware that reads an edited file just before the tool runs, for the result diff."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware

from langacp.api import SessionContext, ToolCallInfo
from langacp_tools.diffs import capture_before
from langacp_tools.kinds import kind_of

if TYPE_CHECKING:
    from langchain.agents.middleware import ToolCallRequest
    from langchain_core.messages import ToolMessage
    from langgraph.types import Command

__all__ = ["DiffCapture"]


class DiffCapture(AgentMiddleware):  # type: ignore[type-arg]
    """Remembers the old text of every file an ``edit`` tool call is about to change."""

    def __init__(self, session: SessionContext) -> None:
        super().__init__()
        self.session = session

    @property
    def name(self) -> str:
        return "langacp_tools_diff_capture"

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        call = ToolCallInfo.from_tool_call(request.tool_call)
        plugins = self.session.plugins
        kind = plugins.tool_kind(call, self.session) if plugins is not None else kind_of(call.name)
        if kind == "edit" and call.tool_call_id:
            capture_before(call, self.session)
        return await handler(request)
