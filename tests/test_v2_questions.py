"""A graph's ``interrupt()`` question on a v2 connection, over the agent's real pipes (langacp-elicitation).

While the question (``elicitation/create``) waits for the user the session's ``state_update`` is
``requires_action``; the answer brings it back to ``running``, then ``idle``. A turn cancelled
while the question (or a permission request) is open withdraws it (``$/cancel_request``) and ends
``idle`` ``cancelled``. Every message the agent
sends is validated against the official ``schema/v2/schema.json`` (npm, installed by the test).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from acp_schema import Schema
from v2_client import V2Agent, v2_agent

pytestmark = pytest.mark.asyncio

GRAPHS = Path(__file__).parents[1] / "plugins" / "elicitation" / "tests" / "elicitation_graphs.py"
ASKER = f"{GRAPHS}:asker"


async def asking(agent: V2Agent, tmp_path: Path) -> str:
    """A v2 session of a client that shows forms."""
    await agent.initialize(2, elicitation={"form": {}})
    session_id: str = (await agent.new_session(tmp_path))["sessionId"]
    return session_id


def answer_text(agent: V2Agent, session_id: str) -> str:
    return "".join(
        u["content"].get("text", "") for u in agent.updates(session_id) if u["sessionUpdate"] == "agent_message_chunk"
    )


async def test_v2_question_requires_action_until_answered(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(ASKER, tmp_path, v2_schema, plugins=["elicitation"]) as agent:
        sid = await asking(agent, tmp_path)
        asked: list[dict[str, Any]] = []

        async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
            asked.append({"method": method, "params": params, "states": agent.states(sid)})
            return {"action": "accept", "content": {"answer": "production"}}

        agent.on_request = answer
        await agent.prompt(sid, "options")
        await agent.idle(sid)
        assert [a["method"] for a in asked] == ["elicitation/create"]
        assert asked[0]["params"]["message"] == "Which environment should I deploy to?"
        assert asked[0]["params"]["sessionId"] == sid
        assert asked[0]["states"] == ["running", "requires_action"], "waiting on the user while asked"
        assert agent.states(sid) == ["running", "requires_action", "running", "idle:end_turn"]
        assert 'resumed with "production"' in answer_text(agent, sid)
        agent.check()


async def test_v2_question_withdrawn_on_cancel(v2_schema: Schema, tmp_path: Path) -> None:
    async with v2_agent(ASKER, tmp_path, v2_schema, plugins=["elicitation"]) as agent:
        sid = await asking(agent, tmp_path)
        never = asyncio.Event()

        async def unanswered(method: str, params: dict[str, Any]) -> dict[str, Any]:
            await never.wait()  # the user never answers
            return {"action": "cancel"}

        agent.on_request = unanswered
        await agent.prompt(sid, "string")
        await agent.wait_for(lambda: bool(agent.requests))
        assert [r["method"] for r in agent.requests] == ["elicitation/create"]
        assert agent.states(sid) == ["running", "requires_action"]
        await agent.notify("session/cancel", {"sessionId": sid})
        await agent.idle(sid)
        assert agent.states(sid) == ["running", "requires_action", "idle:cancelled"], "work ends without resuming"
        withdrawn = [n for n in agent.notifications if n["method"] == "$/cancel_request"]
        assert [n["params"]["requestId"] for n in withdrawn] == [agent.requests[0]["id"]], "the question is withdrawn"
        # The graph stays paused on the question: the next prompt answers it.
        agent.on_request = None
        await agent.prompt(sid, "feature-x")
        await agent.idle(sid, 2)
        assert agent.states(sid)[-1] == "idle:end_turn"
        assert 'resumed with "feature-x"' in answer_text(agent, sid)
        agent.check()


MODES_TARGET = f"{Path(__file__).parents[1] / 'plugins' / 'modes' / 'tests' / 'modes_agent.py'}:agent"


async def test_v2_permission_request_withdrawn_on_cancel(v2_schema: Schema, tmp_path: Path) -> None:
    from langacp.testing import calls

    project = tmp_path / "project"
    project.mkdir()
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    async with v2_agent(MODES_TARGET, tmp_path, v2_schema, plugins=["modes", "tools"], env=env) as agent:
        await agent.initialize(2)
        sid = (await agent.new_session(project))["sessionId"]
        never = asyncio.Event()

        async def unanswered(method: str, params: dict[str, Any]) -> dict[str, Any]:
            await never.wait()
            return {}

        agent.on_request = unanswered
        await agent.prompt(sid, calls.tool_prompt("write_file", path=str(project / "out.txt"), text="one"))
        await agent.wait_for(lambda: bool(agent.requests))
        assert [r["method"] for r in agent.requests] == ["session/request_permission"]
        await agent.notify("session/cancel", {"sessionId": sid})
        await agent.idle(sid)
        assert agent.states(sid) == ["running", "requires_action", "idle:cancelled"]
        withdrawn = [n["params"]["requestId"] for n in agent.notifications if n["method"] == "$/cancel_request"]
        assert withdrawn == [agent.requests[0]["id"]]
        assert not (project / "out.txt").exists()
        agent.check()
