"""A factory's graph is compiled once per configuration (``langacp.shared_graphs``).

Every session built alike, the first one included, shares one graph holding stand-ins; each turn
runs the session's own model, middleware and tools, and a tool call that cannot be bound to the
session's own tool fails closed. A shared graph run outside a session's turn refuses to guess
whose objects to use; what cannot be keyed gets a graph of its own.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import BaseTool, StructuredTool, tool
from langgraph.checkpoint.memory import InMemorySaver

from langacp.agent import LangacpAgent
from langacp.api import CHECK_KEY
from langacp.plugins import load_plugins
from langacp.shared_graphs import NotShareable, SharedGraphs, configuration_key
from langacp.target import SessionSetup
from langacp.testing.agent import TOOLS, TRACE_TOOLS, make_model
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
    assert graphs[0] is graphs[1] is graphs[2]  # the first session too: the same graph in every session
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
    assert graphs.compiled == 3

    def local() -> str:
        """A plain function holding a closure."""
        return str(graphs)

    with pytest.raises(NotShareable):
        configuration_key(make_model(), [local], None, [], {})
    with pytest.raises(NotShareable):
        configuration_key(make_model(), TOOLS, None, [], {"store": {"a": [set()]}})
    with pytest.raises(NotShareable):  # another tool class may hold anything: no stand-in can copy it
        configuration_key(make_model(), [_ObjectTool()], None, [], {})


class _ObjectTool(BaseTool):
    name: str = "object_tool"
    description: str = "A tool class of its own."

    def _run(self) -> str:
        return "ran"


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
    sids = [(await agent.new_session(cwd=str(tmp_path))).session_id for _ in range(2)]
    assert agent.registry.live[sids[0]].graph is agent.registry.live[sids[1]].graph
    for sid in sids:
        response = await agent.prompt(session_id=sid, prompt=[text_block('tool add {"a": 2, "b": 3}')])
        assert response.stop_reason == "end_turn"
    parts = [next(iter(agent.registry.live[sid].context.scratch(_Bound).by_graph.values())) for sid in sids]
    assert parts[0].model is not parts[1].model
    assert [p.model.calls for p in parts] == [2, 2]  # each session's own model answered its two model calls
    await agent.shutdown()


# -- a shared graph can only run the running session's objects ---------------------------------------


def _confined(cwd: str) -> Any:
    def check(args: dict[str, Any]) -> str | None:
        return None if Path(args["path"]).parent == Path(cwd) else f"{args['path']} is outside {cwd}"

    return check


def checked_agent(setup: SessionSetup) -> Any:
    """The scripted agent with a ``write_file`` per session whose check confines it to the session's directory."""
    write = TRACE_TOOLS[0].model_copy(update={"metadata": {CHECK_KEY: _confined(setup.session.cwd)}})
    return setup.create_agent(make_model(), tools=[*TOOLS, write])


async def _written(agent: LangacpAgent, sid: str, path: Path) -> str:
    command = json.dumps({"path": str(path), "text": "written"})
    response = await agent.prompt(session_id=sid, prompt=[text_block(f"tool write_file {command}")])
    assert response.stop_reason == "end_turn"
    session = agent.registry.live[sid]
    state = await session.graph.aget_state(session.config)
    result = state.values["messages"][-2]
    assert result.type == "tool"
    return str(result.content)


async def test_each_session_of_a_shared_graph_runs_its_own_tool_check(tmp_path: Path) -> None:
    agent = await _agent(f"{__file__}:checked_agent")
    dirs = [tmp_path / "one", tmp_path / "two"]
    for d in dirs:
        d.mkdir()
    sids = [(await agent.new_session(cwd=str(d))).session_id for d in dirs]
    assert agent.registry.live[sids[0]].graph is agent.registry.live[sids[1]].graph
    assert await _written(agent, sids[1], dirs[1] / "mine.txt") == "wrote " + str(dirs[1] / "mine.txt")
    # The second session's own check runs (not the first session's, which would allow dirs[0]).
    refused = await _written(agent, sids[1], dirs[0] / "theirs.txt")
    assert "did not run" in refused and "outside" in refused
    assert not (dirs[0] / "theirs.txt").exists()
    await agent.shutdown()


async def test_a_tool_call_that_cannot_be_bound_fails_closed(tmp_path: Path) -> None:
    """The graph's stand-in never runs in place of the session's tool (whose check it would skip)."""
    from langacp.shared_graphs import _Bound, _Tools

    agent = await _agent(f"{__file__}:checked_agent")
    sids = [(await agent.new_session(cwd=str(tmp_path))).session_id for _ in range(2)]
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    for sid in reversed(sids):
        # The session's own tools, as bound to the shared graph, lack write_file (what a mismatch looks like):
        # its table is replaced (a table is read only, and may be shared with other sessions).
        for parts in agent.registry.live[sid].context.scratch(_Bound).by_graph.values():
            parts.tools = _Tools({name: t for name, t in parts.tools.items() if name != "write_file"})
        result = await _written(agent, sid, outside)
        assert not outside.exists()  # the stand-in did not run, unchecked, in the session tool's place
        assert "did not run" in result and "this session has no such tool" in result
    await agent.shutdown()


def test_the_shared_graph_holds_stand_ins_that_cannot_run(tmp_path: Path) -> None:
    graphs = SharedGraphs()
    sessions = [SessionContext(session_id=f"s{i}", cwd=str(tmp_path)) for i in range(2)]
    saver = InMemorySaver()
    setups = [SessionSetup(s, saver, graphs=graphs) for s in sessions]
    built = [checked_agent(setup) for setup in setups]
    assert built[0] is built[1] and graphs.compiled == 1
    tool_node = built[0].nodes["tools"].bound
    for name, stand_in in tool_node.tools_by_name.items():
        assert not stand_in.metadata, name  # the session's own check runs, on the session's own tool
        with pytest.raises(RuntimeError, match="stand-in ran"):
            if stand_in.func is not None:
                stand_in.func(path="/x", text="t")
            else:
                asyncio.run(stand_in.coroutine(seconds=0))


def test_stand_ins_define_every_hook_agent_middleware_has() -> None:
    """The hooks are read from ``AgentMiddleware`` itself: one LangChain adds is delegated too."""
    import inspect

    from langchain.agents import factory

    from langacp.shared_graphs import _stand_in_class, middleware_hooks

    hooks = middleware_hooks()
    used = set(re.findall(r"is not AgentMiddleware\.(\w+)", inspect.getsource(factory)))  # the hooks it looks for
    assert used and used <= set(hooks), used - set(hooks)

    async def hook(self: Any, *args: Any, **kwargs: Any) -> None:
        return None

    every = type("Every", (AgentMiddleware,), dict.fromkeys(hooks, hook))
    stand_in = _stand_in_class(every)
    assert all(getattr(stand_in, h) is not getattr(AgentMiddleware, h) for h in hooks)


def test_the_hooks_are_worked_out_again_when_agent_middleware_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``middleware_hooks`` is kept between sessions only while ``AgentMiddleware``'s members are the
    same objects: a hook added, replaced or removed is seen at the next call."""
    from langacp.shared_graphs import middleware_hooks

    before = middleware_hooks()
    assert middleware_hooks() is before  # kept: nothing changed

    def awrap_new_hook(self: Any, request: Any, handler: Any) -> Any:
        return handler(request)

    monkeypatch.setattr(AgentMiddleware, "awrap_new_hook", awrap_new_hook, raising=False)
    assert middleware_hooks() == (*before, "awrap_new_hook")
    monkeypatch.setattr(AgentMiddleware, "before_model", property(lambda self: None))  # no longer a function
    assert "before_model" not in middleware_hooks()
    monkeypatch.undo()
    assert middleware_hooks() == before


def test_sessions_given_the_same_tool_objects_share_one_table_of_them(tmp_path: Path) -> None:
    """Tools made once per process cost one table per graph; a session's own tool object, its own table."""
    import gc

    from langacp.shared_graphs import _Bound

    graphs, saver, model = SharedGraphs(), InMemorySaver(), make_model()

    def tables(factory: Any, n: int) -> list[Any]:
        sessions = [SessionContext(session_id=f"s{i}", cwd=str(tmp_path)) for i in range(n)]
        for session in sessions:
            factory(SessionSetup(session, saver, graphs=graphs))
        return [next(iter(s.scratch(_Bound).by_graph.values())).tools for s in sessions]

    shared = tables(lambda setup: setup.create_agent(model, tools=TOOLS), 3)
    assert shared[0] is shared[1] is shared[2] and shared[0] == {t.name: t for t in TOOLS}
    own = tables(checked_agent, 2)  # a write_file of its own per session (its own check)
    assert own[0] is not own[1] and own[0]["write_file"] is not own[1]["write_file"]
    assert all(own[i]["add"] is shared[0]["add"] for i in range(2))
    table = shared[0]
    assert graphs._tools_of(1, dict(table)) is table
    assert graphs._tools_of(1, {**table, "add": TRACE_TOOLS[0]}) is not table  # not the same objects: a new one
    again = graphs._tools_of(1, dict(table))
    assert again is not table and again == table  # (the last session's table is the one reused)
    del shared, table, again
    gc.collect()
    assert graphs._tools[1]() is None  # gone with the sessions that used it


def test_a_table_of_tools_refuses_every_change() -> None:
    """A table may be shared by sessions: every mutating method of ``dict`` raises, the table unchanged."""
    import copy
    import pickle
    import weakref

    from langacp.shared_graphs import _Tools

    table = _Tools({t.name: t for t in TOOLS})
    before = dict(table)
    changes: list[Any] = [
        lambda: table.__setitem__("x", 1),
        lambda: table.__delitem__("add"),
        lambda: table.update(x=1),
        lambda: table.update({}),
        lambda: table.pop("add"),
        lambda: table.pop("x", None),
        lambda: table.popitem(),
        lambda: table.clear(),
        lambda: table.setdefault("x", 1),
        lambda: table.setdefault("add"),
        lambda: table.__ior__({"x": 1}),
        lambda: table.fromkeys(["x"]),
    ]
    for change in changes:
        with pytest.raises(TypeError, match="read only"):
            change()
    with pytest.raises(TypeError, match="read only"):
        table |= {"x": 1}
    table.__init__({"x": 1})  # type: ignore[misc]  # filled once, when made: initialising again adds nothing
    assert table == before and type(table) is _Tools
    # Every method of dict that can change one is overridden (a method a later Python adds fails this).
    reads = {"copy", "fromkeys", "get", "items", "keys", "values", "__getitem__", "__contains__", "__iter__",
             "__len__", "__reversed__", "__or__", "__ror__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
             "__ge__", "__repr__", "__sizeof__", "__hash__", "__class_getitem__", "__getattribute__", "__new__",
             "__init__", "__reduce__", "__reduce_ex__", "__format__", "__dir__", "__str__", "__delattr__",
             "__setattr__", "__init_subclass__", "__subclasshook__"}  # fmt: skip
    for name, value in vars(dict).items():
        if callable(value) and name not in reads:
            assert getattr(_Tools, name) is not value, f"dict.{name} is not refused by _Tools"
    # Reads are dict's own (the tool guard reads per call); copies are new tables; weakly referenceable.
    assert _Tools.__getitem__ is dict.__getitem__ and _Tools.get is dict.get
    copied, deep, loaded = copy.copy(table), copy.deepcopy(table), pickle.loads(pickle.dumps(_Tools({"a": 1})))
    assert copied == table and deep.keys() == table.keys() and loaded == {"a": 1}
    assert all(type(made) is _Tools and made is not table for made in (copied, deep, loaded))
    assert weakref.ref(table)() is table and _Tools() == {}


def test_a_session_keeps_a_record_of_left_out_tools_only_when_there_are_some(tmp_path: Path) -> None:
    from langacp.tool_names import LeftOut, left_out, merge_tools

    session = SessionContext(session_id="s", cwd=str(tmp_path))
    theirs = TRACE_TOOLS[0].model_copy()  # a plugin's write_file, named like the app's
    assert merge_tools(TOOLS, [TRACE_TOOLS[1]], session)
    assert session.scratch_if_any(LeftOut) is None and not left_out(session, TRACE_TOOLS[1])
    assert not left_out(session, theirs) and session.scratch_if_any(LeftOut) is None  # asking makes nothing either
    merge_tools(TRACE_TOOLS[:1], [theirs], session)
    assert left_out(session, theirs) and not left_out(session, TRACE_TOOLS[0])
    merge_tools(TOOLS, [theirs], session)  # built again: the name is free now
    assert not left_out(session, theirs)
