"""ACP v2 turns over real pipes: the prompt acknowledged once inserted (its ``messageId``), the turn's
life as ``state_update`` (running → idle with its stop reason), upserts keyed by id, a prompt sent
while a turn runs inserted after it, cancel and close ending the turn ``cancelled``. Every message
the agent sends is validated against the official ``schema/v2/schema.json`` (npm, installed by the test)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from acp_schema import Schema
from v2_client import V2Agent, v2_agent

pytestmark = pytest.mark.asyncio

TARGET = "langacp.testing.agent:agent"


def text(update: dict[str, object]) -> str:
    content = update.get("content")
    return str(content.get("text", "")) if isinstance(content, dict) else ""


async def started(agent: V2Agent, tmp_path: Path) -> str:
    await agent.initialize(2)
    new = await agent.new_session(tmp_path)
    assert isinstance(new["configOptions"], list)
    session_id: str = new["sessionId"]
    return session_id


async def test_v2_tool_turn_is_acknowledged_then_reported(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema) as agent:
        sid = await started(agent, tmp_path)
        ack = await agent.prompt(sid, 'tool add {"a": 1, "b": 2}')
        assert set(ack) == {"messageId"}
        await agent.idle(sid)
        updates = agent.updates(sid)
        assert agent.states(sid) == ["running", "idle:end_turn"]
        kinds = [u["sessionUpdate"] for u in updates]
        assert kinds[0] == "state_update" and kinds[-1] == "state_update"
        users = [u for u in updates if u["sessionUpdate"] == "user_message"]
        assert [u["messageId"] for u in users] == [ack["messageId"]]
        assert users[0]["content"] == [{"type": "text", "text": 'tool add {"a": 1, "b": 2}'}]
        assert "tool_call" not in kinds, "v2 has one tool call upsert: tool_call_update"
        calls = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
        first = calls[0]
        assert first["name"] == "add" and first["title"] and first["status"] == "pending"
        assert {c["toolCallId"] for c in calls} == {first["toolCallId"]}
        assert calls[-1]["status"] == "completed"
        answers = [u for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
        assert answers and all(u["messageId"] for u in answers)
        agent.check()


async def test_v2_prompt_while_a_turn_runs_is_inserted_after_it(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema, env={"LANGACP_TEST_TOKEN_DELAY": "0.01"}) as agent:
        sid = await started(agent, tmp_path)
        first = agent.start("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "long 40"}]})
        second = agent.start("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "echo two"}]})
        one, two = (await asyncio.wait_for(first, 30))["result"], (await asyncio.wait_for(second, 30))["result"]
        await agent.idle(sid, 2)
        assert agent.states(sid) == ["running", "idle:end_turn", "running", "idle:end_turn"]
        updates = agent.updates(sid)
        users = [i for i, u in enumerate(updates) if u["sessionUpdate"] == "user_message"]
        assert [updates[i]["messageId"] for i in users] == [one["messageId"], two["messageId"]]
        idles = [i for i, u in enumerate(updates) if u.get("state") == "idle"]
        assert idles[0] < users[1], "the second prompt is inserted after the first turn ended"
        answer = "".join(text(u) for u in updates[users[1] :] if u["sessionUpdate"] == "agent_message_chunk")
        assert answer == "two"
        agent.check()


async def test_v2_cancel_ends_the_turn_cancelled_and_drops_held_prompts(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema) as agent:
        sid = await started(agent, tmp_path)
        await agent.prompt(sid, "slow 30")
        held = agent.start("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "echo later"}]})
        await agent.wait_for(lambda: any(u["sessionUpdate"] == "tool_call_update" for u in agent.updates(sid)))
        await agent.notify("session/cancel", {"sessionId": sid})
        refused = await asyncio.wait_for(held, 30)
        assert refused["error"]["code"] == -32800, refused
        await agent.idle(sid)
        assert agent.states(sid) == ["running", "idle:cancelled"]
        # The session serves the next prompt.
        await agent.prompt(sid, "echo again")
        await agent.idle(sid, 2)
        assert agent.states(sid)[-1] == "idle:end_turn"
        agent.check()


async def test_v2_close_cancels_the_running_turn_first(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema) as agent:
        sid = await started(agent, tmp_path)
        await agent.prompt(sid, "slow 30")
        await agent.wait_for(lambda: any(u["sessionUpdate"] == "tool_call_update" for u in agent.updates(sid)))
        assert await agent.call("session/close", {"sessionId": sid}, timeout=20) == {}
        assert agent.states(sid) == ["running", "idle:cancelled"], "idle cancelled before the close response"
        gone = await agent.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
        assert gone["error"]["code"] == -32002
        agent.check()


async def test_v2_bad_prompts_are_errors_and_insert_nothing(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema) as agent:
        sid = await started(agent, tmp_path)
        empty = await agent.request("session/prompt", {"sessionId": sid, "prompt": []})
        assert empty["error"]["code"] == -32602
        unknown = await agent.request(
            "session/prompt", {"sessionId": "nope", "prompt": [{"type": "text", "text": "x"}]}
        )
        assert unknown["error"]["code"] == -32002
        assert agent.states(sid) == []
        cancel = await agent.request("tool_call/cancel", {"sessionId": sid, "toolCallId": "t-unknown"})
        assert cancel["error"]["code"] == -32602
        # A model failure after insertion: the prompt was acknowledged, the turn ends idle with an error.
        ack = await agent.prompt(sid, "error the provider is down")
        assert ack["messageId"]
        await agent.idle(sid)
        idle = next(u for u in agent.updates(sid) if u.get("state") == "idle")
        assert idle["stopReason"] == "error" and idle["error"]["code"] and idle["error"]["message"]
        agent.check()


async def test_v2_cancel_request_takes_a_held_prompt_out(v2_schema: Schema, tmp_path: Path) -> None:
    """``$/cancel_request`` of a prompt still waiting for insertion: -32800, and the running turn goes on."""
    async with v2_agent(TARGET, tmp_path, v2_schema, env={"LANGACP_TEST_TOKEN_DELAY": "0.02"}) as agent:
        sid = await started(agent, tmp_path)
        await agent.prompt(sid, "long 40")
        held = agent.start("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "echo never"}]})
        await asyncio.sleep(0.2)
        held_id = max(agent._pending)
        await agent.notify("$/cancel_request", {"requestId": held_id})
        refused = await asyncio.wait_for(held, 30)
        assert refused["error"]["code"] == -32800, refused
        await agent.idle(sid)
        await asyncio.sleep(0.5)
        assert agent.states(sid) == ["running", "idle:end_turn"], "the running turn was not the one cancelled"
        users = [u for u in agent.updates(sid) if u["sessionUpdate"] == "user_message"]
        assert len(users) == 1
        agent.check()


async def test_v2_tool_call_cancel_stops_that_call_and_the_turn_goes_on(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(TARGET, tmp_path, v2_schema) as agent:
        sid = await started(agent, tmp_path)
        await agent.prompt(sid, "slow 30")

        def advertised() -> list[dict[str, object]]:
            return [u for u in agent.updates(sid) if u.get("capabilities") == {"cancel": {}}]

        await agent.wait_for(lambda: bool(advertised()))
        running = advertised()[0]
        assert running["status"] == "in_progress"
        call_id = running["toolCallId"]
        assert await agent.call("tool_call/cancel", {"sessionId": sid, "toolCallId": call_id}, timeout=10) == {}
        await agent.idle(sid)
        assert agent.states(sid) == ["running", "idle:end_turn"], "one tool call stopped, not the turn"
        final = [u for u in agent.updates(sid) if u.get("toolCallId") == call_id][-1]
        assert final["status"] == "cancelled" and final["capabilities"] is None
        answer = "".join(text(u) for u in agent.updates(sid) if u["sessionUpdate"] == "agent_message_chunk")
        assert "Cancelled" in answer, answer
        again = await agent.request("tool_call/cancel", {"sessionId": sid, "toolCallId": call_id})
        assert again["error"]["code"] == -32602, "a final tool call cannot be cancelled"
        agent.check()
