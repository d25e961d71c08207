"""setup.middleware (``langacp.middleware.core_middleware``): the tool guard first, running the
leading plugin middleware that only wrap model calls in its own hook, then the rest in order."""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware

from langacp.middleware import PluginWrappersMiddleware, ToolGuardMiddleware, core_middleware
from langacp.plugins import load_plugins
from langacp.types import SessionContext


class _Wrapper(AgentMiddleware):  # type: ignore[type-arg]
    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)


class _Before(AgentMiddleware):  # type: ignore[type-arg]
    async def abefore_model(self, state: Any, runtime: Any) -> None:
        return None


def test_the_leading_model_call_wrappers_run_inside_the_tool_guard() -> None:
    plugins, session = load_plugins(autoload=False), SessionContext(session_id="s", cwd="/")
    first, second, before, last = _Wrapper(), _Wrapper(), _Before(), _Wrapper()
    built = core_middleware(plugins, session, [first, second, before, last])
    assert isinstance(built[0], PluginWrappersMiddleware)
    assert built[0].wrappers == [first, second]
    assert built[1:] == [before, last]  # after one that must stay apart, the order is kept as it is
    alone = core_middleware(plugins, session, [before])
    assert type(alone[0]) is ToolGuardMiddleware and alone[1:] == [before]
