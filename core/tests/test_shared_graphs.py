"""A factory's graph is compiled once per configuration (``langacp.shared_graphs``).

The second and later sessions built alike share one graph holding stand-ins; each turn runs the
session's own model, middleware and tools. A shared graph run outside a session's turn refuses
to guess whose objects to use; what cannot be keyed gets a graph of its own, as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import StructuredTool, tool
from langgraph.checkpoint.memory import InMemorySaver

from langacp.agent import LangacpAgent
from langacp.plugins import load_plugins
from langacp.shared_graphs import NotShareable, SharedGraphs, configuration_key
from langacp.target import SessionSetup
from langacp.testing.agent import TOOLS, make_model
from langacp.types import SessionContext


class _Quiet:
    async def session_update(self, **_: Any) -> None:
        pass


async def _agent(target: str) -> LangacpAgent:
    agent = LangacpAgent(target, load_plugins(autoload=False), store_url="memory")
    agent.on_connect(_Quiet())  # type: ignore[arg-type]
    await agent.initialize(protocol_version=1)
    return agent


async def test_sessions_built_alike_share_one_graph_and_run_their_own_turns(tmp_path: Path) -> None:
    agent = await _agent("langacp.testing.agent:agent")
    sids = [(await agent.new_session(cwd=str(tmp_path))).session_id for _ in range(3)]
    graphs = [agent.registry.live[sid].graph for sid in sids]
    assert graphs[0] is not graphs[1]  # a configuration's first session: a graph of its own
    assert graphs[1] is graphs[2]
    assert agent.registry.graphs.compiled == 1
    for sid in sids:
        response = await agent.prompt(session_id=sid, prompt=[text_block('tool add {"a": 2, "b": 3}')])
        assert response.stop_reason == "end_turn"
        state = await agent.registry.live[sid].graph.aget_state(agent.registry.live[sid].config)
        assert state.values["messages"][-1].text == "done: 5"
    await agent.shutdown()


async def test_a_shared_graph_run_outside_a_turn_refuses(tmp_path: Path) -> None:
    agent = await _agent("langacp.testing.agent:agent")
    for _ in range(2):
        sid = (await agent.new_session(cwd=str(tmp_path))).session_id
    session = agent.registry.live[sid]
    with pytest.raises(RuntimeError, match="outside a session's turn"):
        await session.graph.ainvoke({"messages": [("user", 'tool add {"a": 1, "b": 1}')]}, session.config)
    await agent.shutdown()


def _setup(graphs: SharedGraphs, tools: list[Any]) -> SessionSetup:
    return SessionSetup(SessionContext(session_id="s", cwd="/"), InMemorySaver(), tools=tools, graphs=graphs)


def test_what_cannot_be_compared_gets_a_graph_of_its_own() -> None:
    graphs = SharedGraphs()
    for _ in range(3):

        @tool
        def closure() -> str:
            """Made for one session."""
            return "mine"

        _setup(graphs, [closure]).create_agent(make_model(), tools=TOOLS)
    # The @tool made inside the loop has a new argument schema each time: three configurations.
    assert graphs.compiled == 0

    def local() -> str:
        """A plain function holding a closure."""
        return str(graphs)

    with pytest.raises(NotShareable):
        configuration_key(make_model(), [local], None, [], {})
    with pytest.raises(NotShareable):
        configuration_key(make_model(), TOOLS, None, [], {"store": {"a": [set()]}})


def test_the_key_follows_the_prompt_the_tools_and_the_middleware() -> None:
    def key(prompt: str | None = "p", tools: list[Any] = TOOLS, middleware: list[Any] | None = None) -> Any:
        return configuration_key(make_model(), tools, prompt, middleware or [], {"checkpointer": None})

    class One(AgentMiddleware):  # type: ignore[type-arg]
        async def abefore_model(self, state: Any, runtime: Any) -> None:
            return None

    assert key() == key()  # a new model object of the same class, new middleware of the same class
    assert key(middleware=[One()]) == key(middleware=[One()])
    assert key() != key(prompt="q")
    assert key() != key(tools=TOOLS[:2])
    assert key() != key(middleware=[One()])

    async def run(x: int) -> str:
        return str(x)

    schema = StructuredTool.from_function(coroutine=run, name="run", description="d").args_schema
    same = [StructuredTool.from_function(coroutine=run, name="run", description="d", args_schema=schema) for _ in "ab"]
    assert key(tools=[same[0]]) == key(tools=[same[1]])
    other = StructuredTool.from_function(coroutine=run, name="run", description="other", args_schema=schema)
    assert key(tools=[same[0]]) != key(tools=[other])


def test_share_graph_false_compiles_for_the_session_alone() -> None:
    graphs = SharedGraphs()
    built = [_setup(graphs, []).create_agent(make_model(), tools=TOOLS, share_graph=False) for _ in range(3)]
    assert graphs.compiled == 0
    assert len({id(g) for g in built}) == 3
