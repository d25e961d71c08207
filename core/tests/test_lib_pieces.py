"""The ``langacp.lib`` pieces one by one, in process, with the core's plugins and a recording connection.

The connection stands in for the SDK's ``AgentSideConnection`` (the pieces only call its
``session_update``, ``request_permission`` and ``ext_notification``); the agents are real
``create_agent`` graphs on the scripted model. The over-the-pipes proofs are
``test_lib_callbacks.py`` and the top-level ``tests/test_library_vs_server.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, image_block, text_block
from acp.schema import AllowedOutcome, RequestPermissionResponse
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.types import Command

from langacp import PermissionVerdict, ToolCallInfo, hookimpl
from langacp.lib import (
    ACPCallbackHandler,
    ACPPermissionMiddleware,
    ACPSessionMiddleware,
    ACPToolMiddleware,
    finish_turn,
    from_acp_blocks,
    get_session,
    open_session,
    restore_state,
    resume_interrupts,
    serialize_state,
    session_id_from,
    start_turn,
    stop_reason,
    to_request_error,
)
from langacp.plugins import Plugins
from langacp.testing.agent import TOOLS, make_model


class Conn:
    """Records what the pieces send; allows every permission request."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.notifications: list[tuple[str, dict[str, Any]]] = []
        self.permission_requests: list[Any] = []
        self.sent: list[Any] = []
        """Updates and permission requests, in the order they were sent."""

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)
        self.sent.append(update)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        self.notifications.append((method, params))

    async def request_permission(self, session_id: str, tool_call: Any, options: Any, **_: Any) -> Any:
        self.permission_requests.append(tool_call)
        self.sent.append(tool_call)
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))

    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]


class AskForAdd:
    """A policy plugin: ask before every call to ``add``."""

    @hookimpl
    def langacp_permission(self, call: ToolCallInfo, kind: str, session: Any) -> PermissionVerdict | None:
        return PermissionVerdict("ask") if call.name == "add" else None


def plugins(*extra: object) -> Plugins:
    loaded = Plugins()
    loaded.load_entry_points(autoload=False)
    for plugin in extra:
        loaded.register(plugin)
    return loaded


async def turn(conn: Conn, sid: str, graph: Any, text: str, **config: Any) -> tuple[str, Any]:
    content = await start_turn(conn, sid, [text_block(text)])
    run_config = {"configurable": {"thread_id": sid}, **config}
    state = await graph.ainvoke({"messages": [HumanMessage(content=content)]}, run_config)
    response = await finish_turn(conn, sid, state=state, graph=graph, config=run_config)
    return str(response.stop_reason), state


def agent(conn: Conn, *middleware: Any) -> Any:
    return create_agent(make_model(), tools=TOOLS, middleware=list(middleware), checkpointer=InMemorySaver())


async def test_tool_middleware_reports_the_lifecycle_and_contains_errors(tmp_path: Path) -> None:
    conn = Conn()
    await open_session(conn, "s1", str(tmp_path), plugins=plugins())
    graph = agent(conn, ACPSessionMiddleware(conn), ACPToolMiddleware(conn))
    assert (await turn(conn, "s1", graph, 'tool add {"a": 1, "b": 2}'))[0] == "end_turn"
    calls = [u for u in conn.updates if u.session_update in ("tool_call", "tool_call_update")]
    assert [(u.session_update, u.status) for u in calls] == [
        ("tool_call", "pending"),
        ("tool_call_update", "in_progress"),
        ("tool_call_update", "completed"),
    ]
    assert calls[0].raw_input == {"a": 1, "b": 2} and calls[2].raw_output == "3"
    conn.updates.clear()
    stop, state = await turn(conn, "s1", graph, "fail")
    assert stop == "end_turn" and state["messages"][-1].text == "done: Error: ValueError: boom"
    assert [u.status for u in conn.updates if u.session_update == "tool_call_update"] == ["in_progress", "failed"]


@pytest.mark.parametrize(("start", "result"), [(False, True), (True, False)])
async def test_tool_middleware_events_can_be_turned_off(tmp_path: Path, start: bool, result: bool) -> None:
    conn = Conn()
    await open_session(conn, "s1", str(tmp_path), plugins=plugins())
    graph = agent(conn, ACPSessionMiddleware(conn), ACPToolMiddleware(conn, report_start=start, report_result=result))
    await turn(conn, "s1", graph, 'tool add {"a": 1, "b": 2}')
    statuses = [u.status for u in conn.updates if u.session_update in ("tool_call", "tool_call_update")]
    if start:
        assert statuses == ["pending", "in_progress"]
    else:  # the result alone announces the call
        assert statuses == ["pending", "completed"]


async def test_session_middleware_counts_turns_and_sends_snapshots(tmp_path: Path) -> None:
    conn = Conn()
    await open_session(conn, "s1", str(tmp_path), plugins=plugins())
    graph = agent(conn, ACPSessionMiddleware(conn, snapshots="final"))
    await turn(conn, "s1", graph, "echo one")
    _stop, state = await turn(conn, "s1", graph, "echo two")
    assert state["acp_turns"] == 2
    assert [(m, p["kind"], p["turn"]) for m, p in conn.notifications] == [
        ("langacp/state_snapshot", "final", 1),
        ("langacp/state_snapshot", "final", 2),
    ]
    restored = restore_state(conn.notifications[-1][1]["state"])
    assert [m.text for m in restored["messages"]] == ["echo one", "one", "echo two", "two"]
    with pytest.raises(ValueError, match="snapshots"):
        ACPSessionMiddleware(conn, snapshots="sometimes")  # type: ignore[arg-type]


async def test_permission_middleware_asks_through_the_client(tmp_path: Path) -> None:
    conn = Conn()
    await open_session(conn, "s1", str(tmp_path), plugins=plugins(AskForAdd()))
    graph = agent(conn, ACPPermissionMiddleware(conn), ACPToolMiddleware(conn))
    _stop, state = await turn(conn, "s1", graph, 'tool add {"a": 1, "b": 2}')
    assert [c.title for c in conn.permission_requests] == ["add"]
    assert state["messages"][-1].text == "done: 3"


async def test_a_streamed_call_shows_its_arguments_before_the_permission_request(tmp_path: Path) -> None:
    """With the callback handler the call is announced from its first chunk; asked about, it gets its
    arguments first, then the request, then ``in_progress`` and the result."""
    conn = Conn()
    await open_session(conn, "s1", str(tmp_path), plugins=plugins(AskForAdd()))
    graph = agent(conn, ACPSessionMiddleware(conn), ACPPermissionMiddleware(conn), ACPToolMiddleware(conn))
    await turn(conn, "s1", graph, 'tool add {"a": 1, "b": 2}', callbacks=[ACPCallbackHandler(conn)])
    sent = [
        (getattr(u, "session_update", "request"), u.status, u.raw_input)
        for u in conn.sent
        if getattr(u, "session_update", "request") in ("tool_call", "tool_call_update", "request")
    ]
    assert sent == [
        ("tool_call", "pending", None),
        ("tool_call_update", None, {"a": 1, "b": 2}),
        ("request", None, {"a": 1, "b": 2}),
        ("tool_call_update", "in_progress", None),
        ("tool_call_update", "completed", None),
    ]


async def test_permission_middleware_interrupt_form_resumes_with_decisions(tmp_path: Path) -> None:
    conn = Conn()
    await open_session(conn, "s1", str(tmp_path), plugins=plugins(AskForAdd()))
    graph = agent(conn, ACPPermissionMiddleware(conn, interrupt=True), ACPToolMiddleware(conn))
    config = {"configurable": {"thread_id": "s1"}}
    await start_turn(conn, "s1", [text_block('tool add {"a": 1, "b": 2}')])
    state = await graph.ainvoke({"messages": [HumanMessage('tool add {"a": 1, "b": 2}')]}, config)
    (request,) = [i.value for i in state["__interrupt__"]]
    assert request["action_requests"][0]["args"] == {"a": 1, "b": 2}
    assert request["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]
    edit = {"type": "edit", "edited_action": {"name": "add", "args": {"a": 20, "b": 22}}}
    state = await graph.ainvoke(Command(resume={"decisions": [edit]}), config)
    assert state["messages"][-1].text == "done: 42"  # the edited call ran

    await start_turn(conn, "s1", [text_block('tool add {"a": 1, "b": 2}')])
    state = await graph.ainvoke({"messages": [HumanMessage('tool add {"a": 1, "b": 2}')]}, config)
    reject = {"type": "reject", "message": "not now: use 1 + 2 = 3"}
    state = await graph.ainvoke(Command(resume={"decisions": [reject]}), config)
    assert state["messages"][-1].text == "done: not now: use 1 + 2 = 3"  # the model got the rejection
    assert isinstance(state["messages"][-2], ToolMessage) and state["messages"][-2].status == "error"
    # Without langacp-permissions nobody answers interrupts: the user is told so.
    assert await resume_interrupts(conn, "s1", state.get("__interrupt__") or ["x"]) is None
    await get_session(conn, "s1").flush()
    assert "no installed langacp plugin answers interrupts" in _text(conn.updates)


async def test_callback_handler_streams_tokens_and_thoughts(tmp_path: Path) -> None:
    conn = Conn()
    await open_session(conn, "s1", str(tmp_path), plugins=plugins())
    graph = agent(conn)
    await turn(conn, "s1", graph, "think deeply", callbacks=[ACPCallbackHandler(conn)])
    assert "agent_thought_chunk" in conn.kinds() and conn.kinds()[-1] == "agent_message_chunk"
    assert _text(conn.updates) == "deeply"


def _text(updates: list[Any]) -> str:
    return "".join(
        u.content.text for u in updates if u.session_update == "agent_message_chunk" and hasattr(u.content, "text")
    )


async def test_mappers(tmp_path: Path) -> None:
    conn = Conn()
    session = await open_session(conn, "s1", str(tmp_path), plugins=plugins())
    assert from_acp_blocks(session, [text_block("hi")]) == "hi"
    with pytest.raises(RequestError) as refused:
        from_acp_blocks(session, [image_block("AAAA", "image/png")])  # the core alone takes no images
    assert refused.value.code == -32602
    assert stop_reason(session, state={"messages": [AIMessage("ok")]}) == "end_turn"
    assert stop_reason(session, error=GraphRecursionError("too deep")) == "max_turn_requests"
    assert to_request_error(session, ValueError("bad cwd"), "session/new").code == -32602
    assert to_request_error(session, RuntimeError("down")).code == -32603
    state = {"messages": [HumanMessage("q"), AIMessage("a", tool_calls=[])], "acp_turns": 3, "odd": object()}
    data = serialize_state(state)
    assert data["acp_turns"] == 3 and data["odd"].startswith("<object")
    assert restore_state(data)["messages"] == state["messages"]
    with pytest.raises(RequestError) as missing:
        get_session(conn, "nope")
    assert missing.value.code == -32002


def test_session_id_comes_from_config_or_context() -> None:
    assert session_id_from({"configurable": {"thread_id": "t", "session_id": "s"}}) == "s"
    assert session_id_from({"configurable": {"thread_id": "t"}}, {"session_id": "c"}) == "c"
    assert session_id_from({"configurable": {"thread_id": "t"}}) == "t"
    assert session_id_from({}) is None


class SharedModes:
    """A modes plugin that hands every session the same ``SessionModeState`` (as langacp-modes shares
    one per configuration)."""

    def __init__(self) -> None:
        from acp.schema import SessionMode, SessionModeState

        modes = [SessionMode(id="ask", name="Ask"), SessionMode(id="code", name="Code")]
        self.state = SessionModeState(current_mode_id="ask", available_modes=modes)

    @hookimpl
    def langacp_session_modes(self, session: Any) -> Any:
        return self.state


async def test_mode_middleware_hands_each_caller_a_state_of_its_own(tmp_path: Path) -> None:
    from langacp.lib import ACPModeMiddleware

    conn, shared = Conn(), SharedModes()
    loaded = plugins(shared)
    await open_session(conn, "s1", str(tmp_path), plugins=loaded)
    await open_session(conn, "s2", str(tmp_path), plugins=loaded)
    middleware = ACPModeMiddleware(conn)
    first, second = middleware.modes("s1"), middleware.modes("s2")
    assert first == shared.state and second == shared.state
    first.current_mode_id = "code"  # the agent's own bookkeeping, say
    first.available_modes.pop()
    assert second.current_mode_id == "ask" and len(second.available_modes) == 2
    assert shared.state.current_mode_id == "ask" and len(shared.state.available_modes) == 2
