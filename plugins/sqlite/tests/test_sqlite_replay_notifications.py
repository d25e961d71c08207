"""Human messages the agent harness added (LangChain's notification metadata: a summary, a background
task's news) are the agent's thoughts for the client, never the user's words: live and on session/load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage, add_notification_metadata
from langchain_core.runnables import RunnableLambda

from langacp.testing.harness import serve, store_thread
from langacp.testing.model import ScriptedChatModel


def _replayed(update: Any) -> tuple[Any, ...]:
    kind = update.session_update
    if kind in ("tool_call", "tool_call_update"):
        return (kind, update.tool_call_id, update.status)
    return (kind, update.content.text)


SUMMARIZING_AGENT = """
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.runnables import RunnableLambda

from langacp.testing.agent import TOOLS, make_model


def agent(setup):
    summarize = SummarizationMiddleware(
        make_model(),
        summarizer=RunnableLambda(lambda _: "The user added numbers."),
        trigger=("messages", TRIGGER),
        keep=("messages", KEEP),
    )
    return setup.create_agent(make_model(), tools=TOOLS, middleware=[summarize])
"""
"""An agent whose ``SummarizationMiddleware`` summarizes before a model call that would see TRIGGER messages,
keeping the last KEEP (more when they start inside a tool call's answer)."""


SUMMARY = ("agent_thought_chunk", "Here is a summary of the conversation to date:\n\nThe user added numbers.")


def _summarized(messages: list[Any]) -> list[Any]:
    """``messages`` as LangChain's ``SummarizationMiddleware`` leaves them: a summary, then the last two."""
    middleware = SummarizationMiddleware(
        ScriptedChatModel(),
        summarizer=RunnableLambda(lambda _: "The user added 2 and 3: 5."),
        trigger=("messages", 4),
        keep=("messages", 2),
    )
    update = middleware.before_model({"messages": messages}, None)  # type: ignore[arg-type]
    assert update is not None
    return [m for m in update["messages"] if not isinstance(m, RemoveMessage)]


async def test_a_summary_and_a_notification_are_replayed_as_the_agents_thoughts(store_url: str, tmp_path: Path) -> None:
    add = {"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1", "type": "tool_call"}
    again = {"name": "add", "args": {"a": 5, "b": 2}, "id": "call_2", "type": "tool_call"}
    history = _summarized(
        [
            HumanMessage("add two and three"),
            AIMessage("", tool_calls=[add]),
            ToolMessage("5", tool_call_id="call_1", name="add"),
            AIMessage("It is 5."),
            HumanMessage("and now?"),
            AIMessage("Still 5."),
        ]
    )
    messages = [
        *history,
        HumanMessage("add two more"),
        AIMessage("", tool_calls=[again]),
        ToolMessage("7", tool_call_id="call_2", name="add"),
        # A harness feature's news, added before the next model call of the same turn.
        add_notification_metadata(HumanMessage("Background task t_42 finished."), source="async_subagent"),
        AIMessage("It is 7."),
    ]
    session_id = await store_thread(store_url, tmp_path, messages)
    async with serve(args=["--store", store_url]) as agent:
        await agent.initialize()
        await agent.conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
        replayed = [
            _replayed(u) for u in agent.client.of(session_id) if u.session_update != "available_commands_update"
        ]
        assert replayed == [
            ("agent_thought_chunk", "Here is a summary of the conversation to date:\n\nThe user added 2 and 3: 5."),
            ("user_message_chunk", "and now?"),
            ("agent_message_chunk", "Still 5."),
            ("user_message_chunk", "add two more"),
            ("tool_call", "call_2", "completed"),
            ("agent_thought_chunk", "Background task t_42 finished."),
            ("agent_message_chunk", "It is 7."),
        ]


async def test_a_summary_made_in_a_turn_is_shown_as_a_thought_live_and_on_load(store_url: str, tmp_path: Path) -> None:
    (tmp_path / "summarizing_agent.py").write_text(SUMMARIZING_AGENT.replace("TRIGGER", "7").replace("KEEP", "3"))
    env = {"PYTHONPATH": str(tmp_path)}
    async with serve("summarizing_agent:agent", args=["--store", store_url], env=env, cwd=tmp_path) as agent:
        await agent.initialize()
        session_id = (await agent.conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        assert await agent.prompt(session_id, 'tool add {"a": 1, "b": 2}') == "end_turn"
        agent.client.updates.clear()
        # 7 messages before the second answer: the middleware summarizes the first turn.
        assert await agent.prompt(session_id, 'tool add {"a": 3, "b": 4}') == "end_turn"
        live = [_replayed(u) for u in agent.client.of(session_id) if u.session_update != "tool_call_update"]
        assert live == [("tool_call", "call_2", "pending"), SUMMARY, ("agent_message_chunk", "done: 7")]
        await agent.conn.close_session(session_id=session_id)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
        replayed = [
            _replayed(u) for u in agent.client.of(session_id) if u.session_update != "available_commands_update"
        ]
        # The summary stands where the middleware put it: in place of the messages it summarized.
        assert replayed == [
            SUMMARY,
            ("user_message_chunk", 'tool add {"a": 3, "b": 4}'),
            ("tool_call", "call_2", "completed"),
            ("agent_message_chunk", "done: 7"),
        ]


async def test_a_summary_keeping_an_earlier_turns_tool_call_does_not_show_it_again(tmp_path: Path) -> None:
    """The middleware rewrites the history (a summary, then what it keeps): a kept tool call of an
    earlier turn is not a new one of this turn."""
    (tmp_path / "summarizing_agent.py").write_text(SUMMARIZING_AGENT.replace("TRIGGER", "9").replace("KEEP", "4"))
    async with serve("summarizing_agent:agent", env={"PYTHONPATH": str(tmp_path)}, cwd=tmp_path) as agent:
        await agent.initialize()
        session_id = (await agent.conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        assert await agent.prompt(session_id, 'tool add {"a": 1, "b": 2}') == "end_turn"
        assert await agent.prompt(session_id, 'tool add {"a": 3, "b": 4}') == "end_turn"
        agent.client.updates.clear()
        # 9 messages before this answer: the first turn is summarized, the second's call (call_2) kept.
        assert await agent.prompt(session_id, "echo hi") == "end_turn"
        shown = [_replayed(u) for u in agent.client.of(session_id)]
        assert shown == [SUMMARY, ("agent_message_chunk", "hi")]
