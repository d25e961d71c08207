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


class _AsyncWrapper(AgentMiddleware):  # type: ignore[type-arg]
    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)


class _SyncToolWrapper(AgentMiddleware):  # type: ignore[type-arg]
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


class _Before(AgentMiddleware):  # type: ignore[type-arg]
    async def abefore_model(self, state: Any, runtime: Any) -> None:
        return None


def test_the_first_stand_in_wrapping_a_call_binds_it_to_the_session() -> None:
    """No separate binding middleware when a stand-in can bind: each middleware hook costs a LangSmith span."""
    from langacp.shared_graphs import BINDING_NAME, _middleware_stand_ins

    def shape(middleware: list[Any], *, bind_model: bool = True) -> list[tuple[str, set[str]]]:
        return [
            (m.name, set(getattr(m, "_binds", ()))) for m in _middleware_stand_ins(middleware, 1, bind_model=bind_model)
        ]

    before, wrapper = _Before(), _AsyncWrapper()
    assert shape([before, wrapper]) == [(before.name, set()), (wrapper.name, {"awrap_model_call", "awrap_tool_call"})]
    assert shape([before, wrapper], bind_model=False) == [(before.name, set()), (wrapper.name, {"awrap_tool_call"})]
    # The first tool-call wrapper is sync only: a binding middleware binds tool calls, first of all.
    sync = _SyncToolWrapper()
    assert shape([sync, wrapper]) == [(BINDING_NAME, set()), (sync.name, set()), (wrapper.name, {"awrap_model_call"})]
    # Nothing wraps the calls: a binding middleware binds them all.
    binding = _middleware_stand_ins([before], 1, bind_model=True)[0]
    assert binding.name == BINDING_NAME
    assert hasattr(binding, "awrap_model_call") and hasattr(binding, "awrap_tool_call")


async def test_each_session_of_a_shared_graph_runs_its_own_model_and_tool(tmp_path: Path) -> None:
    from langacp.shared_graphs import _Bound

    agent = await _agent("langacp.testing.agent:agent")
    sids = [(await agent.new_session(cwd=str(tmp_path))).session_id for _ in range(3)]
    assert agent.registry.live[sids[1]].graph is agent.registry.live[sids[2]].graph
    for sid in sids[1:]:
        response = await agent.prompt(session_id=sid, prompt=[text_block('tool add {"a": 2, "b": 3}')])
        assert response.stop_reason == "end_turn"
    parts = [next(iter(agent.registry.live[sid].context.scratch(_Bound).by_graph.values())) for sid in sids[1:]]
    assert parts[0].model is not parts[1].model
    assert [p.model.calls for p in parts] == [2, 2]  # each session's own model answered its two model calls
    await agent.shutdown()
