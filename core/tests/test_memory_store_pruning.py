"""The ``memory`` store keeps each thread's latest checkpoints: a long session's memory grows with its history.

LangGraph's ``InMemorySaver`` keeps every checkpoint (about five a turn, each the whole
conversation). These run a real ``create_agent`` graph turn after turn on the store's saver and
on a plain ``InMemorySaver``, and check that the conversation is the same while what is kept
stays bounded; and that what a session does next (a turn, a fork, an answer to ``interrupt()``)
still works from what is kept.
"""

from __future__ import annotations

from typing import Any

from core_support import delta_graph
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

from langacp.stores import copy_thread
from langacp.stores.memory import MemoryStore, PruningMemorySaver
from langacp.testing.agent import TOOLS, make_model


def _config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


async def _turns(saver: Any, thread: str, n: int, first: int = 0) -> Any:
    graph = create_agent(make_model(), tools=TOOLS, checkpointer=saver)
    for i in range(first, first + n):
        await graph.ainvoke({"messages": [HumanMessage(f'tool add {{"a": {i}, "b": 1}}')]}, _config(thread))
    return graph


def _kept(saver: InMemorySaver, thread: str) -> tuple[int, int, int]:
    checkpoints = sum(len(ns) for ns in saver.storage[thread].values())
    writes = sum(1 for key in saver.writes if key[0] == thread)
    blobs = sum(1 for key in saver.blobs if key[0] == thread)
    return checkpoints, writes, blobs


def test_the_memory_store_uses_the_pruning_saver() -> None:
    assert isinstance(MemoryStore().checkpointer, PruningMemorySaver)


async def test_a_long_session_keeps_two_checkpoints_and_the_same_conversation() -> None:
    pruned, plain = PruningMemorySaver(), InMemorySaver()
    await _turns(pruned, "t", 3)
    early = _kept(pruned, "t")
    await _turns(pruned, "t", 27, first=3)
    await _turns(plain, "t", 30)
    checkpoints, writes, blobs = _kept(pruned, "t")
    assert checkpoints == 2
    assert (writes, blobs) <= (early[1], early[2])  # bounded: not one more per turn
    assert _kept(plain, "t")[0] > 100  # what LangGraph's own saver keeps: every step of every turn
    head = await pruned.aget_tuple(_config("t"))
    bare = await plain.aget_tuple(_config("t"))
    assert head is not None and bare is not None
    got = [(m.type, m.content) for m in head.checkpoint["channel_values"]["messages"]]
    want = [(m.type, m.content) for m in bare.checkpoint["channel_values"]["messages"]]
    assert len(got) == 30 * 4 and got == want


async def test_threads_are_pruned_apart_and_a_fork_continues() -> None:
    saver = PruningMemorySaver()
    await _turns(saver, "a", 4)
    await _turns(saver, "b", 2)
    assert await copy_thread(saver, "a", "fork")
    graph = await _turns(saver, "fork", 2)
    state = await graph.aget_state(_config("fork"))
    assert len(state.values["messages"]) == 6 * 4
    assert len((await graph.aget_state(_config("a"))).values["messages"]) == 4 * 4
    assert len((await graph.aget_state(_config("b"))).values["messages"]) == 2 * 4
    assert [_kept(saver, t)[0] for t in ("a", "b", "fork")] == [2, 2, 2]


async def test_an_interrupted_turn_resumes_from_what_is_kept() -> None:
    def ask(state: MessagesState) -> dict[str, Any]:
        answer = interrupt("which file?")
        return {"messages": [HumanMessage(f"answered {answer}")]}

    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    graph = builder.compile(checkpointer=PruningMemorySaver())
    for turn in range(3):
        await graph.ainvoke({"messages": [HumanMessage(f"turn {turn}")]}, _config("q"))
        assert (await graph.aget_state(_config("q"))).interrupts
        await graph.ainvoke(Command(resume=f"a{turn}.py"), _config("q"))
    messages = (await graph.aget_state(_config("q"))).values["messages"]
    assert [m.content for m in messages][-2:] == ["turn 2", "answered a2.py"]
    assert len(messages) == 6


def test_a_delta_channel_thread_keeps_its_history() -> None:
    """Its checkpoints are read through their ancestors: pruning them would lose the conversation."""
    saver = PruningMemorySaver()
    graph = delta_graph(saver)
    config: Any = {"configurable": {"thread_id": "t"}}
    for item in "abc":
        graph.invoke({"items": [item]}, config)
    assert len(list(saver.list(config))) > 2
    assert graph.get_state(config).values == {"items": ["a", "x", "b", "x", "c", "x"]}
