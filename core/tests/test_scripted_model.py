"""Tests for `langacp.testing.model.ScriptedChatModel` (real LangChain, no mocks)."""

from __future__ import annotations

import asyncio
import operator
import time
from functools import reduce
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.messages.content import KNOWN_BLOCK_TYPES
from langchain_core.tools import tool

from langacp.testing.model import (
    Reply,
    ScriptedChatModel,
    ScriptedToolCall,
    echo_last_human,
)


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def mul(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def _stream(model: ScriptedChatModel, prompt: str = "hi") -> list[AIMessageChunk]:
    return list(model.stream(prompt))


def _merge(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    merged = reduce(operator.add, chunks)
    assert isinstance(merged, AIMessageChunk)
    return merged


# -- streaming shape ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Hello brave new world",
        "  leading and trailing  ",
        "line one\nline  two\n\n",
        "x",
    ],
)
def test_text_streams_in_chunks_that_join_exactly(text: str) -> None:
    chunks = _stream(ScriptedChatModel(replies=[text]))
    pieces = [c.content for c in chunks if c.content]
    assert all(isinstance(p, str) for p in pieces)
    assert "".join(str(p) for p in pieces) == text
    if len(text.split()) > 1:
        assert len(pieces) == len(text.split())
    assert _merge(chunks).text == text
    for chunk in chunks:
        for block in chunk.content_blocks:
            assert block["type"] == "text"


def test_chunk_size_groups_words() -> None:
    chunks = _stream(ScriptedChatModel(replies=["a b c d e"], chunk_size=2))
    assert [c.content for c in chunks if c.content] == ["a b ", "c d ", "e"]


def test_reasoning_streams_first_as_reasoning_content_blocks() -> None:
    model = ScriptedChatModel(replies=[Reply(reasoning="Let me think hard", text="Answer here")])
    chunks = _stream(model)
    kinds = [b["type"] for c in chunks for b in c.content_blocks]
    assert kinds == ["reasoning"] * 4 + ["text"] * 2
    reasoning = "".join(str(b.get("reasoning", "")) for c in chunks for b in c.content_blocks)
    assert reasoning == "Let me think hard"
    merged = _merge(chunks)
    assert merged.text == "Answer here"
    blocks = merged.content_blocks
    assert [b["type"] for b in blocks] == ["reasoning", "text"]
    assert blocks[0].get("reasoning") == "Let me think hard"


def test_extra_blocks_stream_after_the_text_with_their_own_index() -> None:
    image = {"type": "image", "base64": "aGk=", "mime_type": "image/png"}
    model = ScriptedChatModel(replies=[Reply(text="Look here", blocks=[image, {"type": "refusal", "refusal": "no"}])])
    chunks = _stream(model)
    # langchain-core < 1.7.7 wraps a refusal in a ``non_standard`` block; later versions keep it as it is.
    refusal = "refusal" if "refusal" in KNOWN_BLOCK_TYPES else "non_standard"
    kinds = [b["type"] for c in chunks for b in c.content_blocks]
    assert kinds == ["text", "text", "image", refusal]
    merged = _merge(chunks).content_blocks
    assert [b["type"] for b in merged] == ["text", "image", refusal]
    refused = merged[2] if refusal == "refusal" else merged[2]["value"]
    assert merged[1]["base64"] == "aGk=" and refused["refusal"] == "no"
    assert [b.get("index") for b in merged[:2]] == [0, 1]


def test_tool_call_streams_in_pieces_and_reassembles() -> None:
    call = ScriptedToolCall("add", {"a": 1, "b": 2, "note": "some longer text"}, id="call_x")
    chunks = _stream(ScriptedChatModel(replies=[Reply(text="Adding.", tool_calls=[call])]))
    tc_chunks = [tc for c in chunks for tc in c.tool_call_chunks]
    assert len(tc_chunks) >= 2
    assert (tc_chunks[0]["id"], tc_chunks[0]["name"]) == ("call_x", "add")
    assert all(tc["id"] is None and tc["name"] is None for tc in tc_chunks[1:])
    assert len({tc["index"] for tc in tc_chunks}) == 1
    assert tc_chunks[0]["index"] is not None
    # content_blocks exposes them as tool_call_chunk blocks
    blocks = [b for c in chunks for b in c.content_blocks if b["type"] == "tool_call_chunk"]
    assert len(blocks) == len(tc_chunks)
    merged = _merge(chunks)
    assert merged.text == "Adding."
    assert [(t["name"], t["args"], t["id"]) for t in merged.tool_calls] == [("add", call.args, "call_x")]


def test_tool_call_ids_are_generated_and_unique() -> None:
    model = ScriptedChatModel(
        replies=[
            Reply(tool_calls=[ScriptedToolCall("add", {}), ScriptedToolCall("add", {})]),
            Reply(tool_calls=[ScriptedToolCall("add", {})]),
        ]
    )
    ids = [t["id"] for t in model.invoke("x").tool_calls]
    ids += [t["id"] for t in _merge(_stream(model)).tool_calls]
    assert all(i and i.startswith("call_") for i in ids)
    assert len(set(ids)) == 3


def test_parallel_tool_calls_stream_with_distinct_indexes() -> None:
    calls = [
        ScriptedToolCall("add", {"a": 1, "b": 2}),
        ScriptedToolCall("mul", {"a": 3, "b": 4}),
    ]
    chunks = _stream(ScriptedChatModel(replies=[Reply(tool_calls=calls)]))
    firsts = [tc for c in chunks for tc in c.tool_call_chunks if tc["id"] is not None]
    assert [tc["name"] for tc in firsts] == ["add", "mul"]
    assert firsts[0]["index"] != firsts[1]["index"]
    merged = _merge(chunks)
    assert [(t["name"], t["args"]) for t in merged.tool_calls] == [
        ("add", {"a": 1, "b": 2}),
        ("mul", {"a": 3, "b": 4}),
    ]


def test_last_chunk_carries_metadata() -> None:
    reply = Reply(text="cut off", finish_reason="length", stop_reason="max_tokens", usage=(7, 3))
    chunks = _stream(ScriptedChatModel(replies=[reply]))
    last = chunks[-1]
    assert last.chunk_position == "last"
    assert last.response_metadata["finish_reason"] == "length"
    assert last.response_metadata["stop_reason"] == "max_tokens"
    assert last.usage_metadata == {
        "input_tokens": 7,
        "output_tokens": 3,
        "total_tokens": 10,
    }
    assert all(c.chunk_position is None and not c.response_metadata.get("finish_reason") for c in chunks[:-1])
    assert sum(1 for c in chunks if c.usage_metadata) == 1
    merged = _merge(chunks)
    assert merged.response_metadata["finish_reason"] == "length"
    assert merged.usage_metadata is not None
    assert merged.usage_metadata["total_tokens"] == 10


def test_default_finish_reason_and_estimated_usage() -> None:
    model = ScriptedChatModel(
        replies=[
            "12345678",
            Reply(tool_calls=[ScriptedToolCall("add", {"a": 1, "b": 2})]),
        ]
    )
    first = _stream(model, "abcd")[-1]
    assert first.response_metadata["finish_reason"] == "stop"
    assert "stop_reason" not in first.response_metadata
    assert first.usage_metadata == {
        "input_tokens": 1,
        "output_tokens": 2,
        "total_tokens": 3,
    }
    second = model.invoke("x")
    assert second.response_metadata["finish_reason"] == "tool_calls"


def test_invoke_and_stream_agree_and_ids_are_stable() -> None:
    reply = Reply(
        reasoning="hmm",
        text="the answer",
        tool_calls=[ScriptedToolCall("add", {"a": 1}, "c1")],
    )
    model = ScriptedChatModel(replies=[reply, reply])
    invoked = model.invoke("q")
    chunks = _stream(model, "q")
    ids = {c.id for c in chunks}
    assert len(ids) == 1 and None not in ids
    assert invoked.id and invoked.id not in ids
    merged = _merge(chunks)
    assert merged.content == invoked.content
    assert merged.tool_calls == invoked.tool_calls
    assert merged.response_metadata["finish_reason"] == invoked.response_metadata["finish_reason"]


# -- script handling ---------------------------------------------------------


def test_exhausted_replies_fall_back_to_default() -> None:
    model = ScriptedChatModel(replies=["one"], default=Reply(text="fallback"))
    assert model.invoke("a").text == "one"
    assert model.invoke("b").text == "fallback"
    assert _merge(_stream(model)).text == "fallback"
    assert ScriptedChatModel().invoke("x").text == "(no more scripted replies)"


def test_responder_used_after_replies() -> None:
    model = ScriptedChatModel(replies=["scripted"], responder=echo_last_human)
    assert model.invoke("first").text == "scripted"
    assert model.invoke("echo me").text == "echo me"
    seen_lengths: list[int] = []

    def responder(messages: list[BaseMessage]) -> str:
        seen_lengths.append(len(messages))
        return f"got {len(messages)}"

    counting = ScriptedChatModel(responder=responder)
    out = counting.invoke([HumanMessage("a"), AIMessage("b"), HumanMessage("c")])
    assert out.text == "got 3"
    assert seen_lengths == [3]


async def _astream_all(model: ScriptedChatModel, prompt: str = "hi") -> list[AIMessageChunk]:
    return [c async for c in model.astream(prompt)]


def test_error_is_raised_sync() -> None:
    model = ScriptedChatModel(replies=[Reply(error=RuntimeError("boom")), Reply(error=ValueError())])
    with pytest.raises(RuntimeError, match="boom"):
        model.invoke("x")
    with pytest.raises(ValueError):
        _stream(model)
    assert model.calls == 2
    assert model.invoke("x").text == "(no more scripted replies)"


@pytest.mark.asyncio
async def test_error_is_raised_async() -> None:
    model = ScriptedChatModel(replies=[Reply(error=RuntimeError("boom")), Reply(error=KeyError("k"))])
    with pytest.raises(RuntimeError, match="boom"):
        await model.ainvoke("x")
    received: list[AIMessageChunk] = []
    with pytest.raises(KeyError):
        async for chunk in model.astream("x"):
            received.append(chunk)
    assert received == []
    assert model.calls == 2


def test_calls_and_seen_are_shared_across_bind_tools() -> None:
    model = ScriptedChatModel(replies=["r1", "r2", "r3", "r4"])
    bound = model.bind_tools([add, mul], tool_choice="auto")
    assert bound.invoke("a").text == "r1"
    assert model.invoke("b").text == "r2"
    streamed = [c for c in bound.stream("c") if isinstance(c, AIMessageChunk)]
    assert _merge(streamed).text == "r3"
    assert model.bind_tools([add]).invoke("d").text == "r4"
    assert model.calls == 4
    assert [m[-1].text for m in model.seen] == ["a", "b", "c", "d"]


def test_a_model_without_record_counts_its_calls_and_keeps_no_messages() -> None:
    """A served model (``record=False``) keeps nothing per call: each call's messages are the whole conversation."""
    import gc
    import weakref

    from langacp.default_agent.demo_model import DemoChatModel
    from langacp.testing.agent import make_model

    model = ScriptedChatModel(replies=["r1", "r2"], record=False)
    message = HumanMessage("a")
    assert model.invoke([message]).text == "r1"
    assert model.bind_tools([add]).invoke("b").text == "r2"
    assert model.calls == 2
    assert model.seen == []
    kept = weakref.ref(message)
    del message
    gc.collect()
    assert kept() is None
    assert make_model().record is False and DemoChatModel().record is False


@pytest.mark.asyncio
async def test_concurrent_calls_consume_each_reply_once() -> None:
    n = 20
    model = ScriptedChatModel(replies=[f"r{i}" for i in range(n)], token_delay=0.001)

    async def invoke_text() -> str:
        return (await model.ainvoke("x")).text

    async def stream_text() -> str:
        return _merge(await _astream_all(model)).text

    results = await asyncio.gather(
        *[invoke_text() for _ in range(n // 2)],
        *[stream_text() for _ in range(n // 2)],
    )
    texts = set(results)
    assert len(results) == n
    assert texts == {f"r{i}" for i in range(n)}
    assert model.calls == n


def test_token_delay_sync() -> None:
    delay = 0.02
    model = ScriptedChatModel(replies=["a b c d", "a b c d"], token_delay=delay)
    start = time.perf_counter()
    chunks = _stream(model)
    elapsed = time.perf_counter() - start
    assert len(chunks) == 5  # four words + final metadata chunk
    assert elapsed >= 0.8 * len(chunks) * delay
    start = time.perf_counter()
    model.invoke("x")
    assert time.perf_counter() - start >= 0.8 * len(chunks) * delay


@pytest.mark.asyncio
async def test_token_delay_async() -> None:
    delay = 0.02
    model = ScriptedChatModel(replies=["a b c d"], token_delay=delay)
    start = time.perf_counter()
    stamps: list[float] = []
    async for _ in model.astream("x"):
        stamps.append(time.perf_counter() - start)
    assert len(stamps) == 5
    assert stamps[0] >= 0.8 * delay
    assert stamps[-1] >= 0.8 * len(stamps) * delay


def test_v3_event_stream_bridges_chunks() -> None:
    """The (beta) protocol event stream built from our chunks is well formed."""
    calls = [ScriptedToolCall("add", {"a": 1}), ScriptedToolCall("mul", {"a": 2})]
    model = ScriptedChatModel(replies=[Reply(reasoning="hm", text="ok then", tool_calls=calls, usage=(1, 2))])
    events: list[dict[str, Any]] = [dict(e) for e in model.stream_events("x", version="v3")]
    starts = [e["content"]["type"] for e in events if e["event"] == "content-block-start"]
    assert starts == ["reasoning", "text", "tool_call_chunk", "tool_call_chunk"]
    finishes = [e["content"] for e in events if e["event"] == "content-block-finish"]
    assert [f["type"] for f in finishes] == [
        "reasoning",
        "text",
        "tool_call",
        "tool_call",
    ]
    assert finishes[2]["args"] == {"a": 1} and finishes[3]["args"] == {"a": 2}
    assert events[-1]["event"] == "message-finish"
    assert events[-1]["metadata"]["finish_reason"] == "tool_calls"
    assert model.calls == 1


# -- with create_agent -------------------------------------------------------


def _agent(replies: list[Reply | str], tools: list[Any]) -> tuple[Any, ScriptedChatModel]:
    model = ScriptedChatModel(replies=replies)
    return create_agent(model=model, tools=tools), model


@pytest.mark.asyncio
async def test_agent_ainvoke_runs_tool_and_finishes() -> None:
    agent, model = _agent([Reply(tool_calls=[ScriptedToolCall("add", {"a": 1, "b": 2})]), "done"], [add])
    result = await agent.ainvoke({"messages": [HumanMessage("1+2?")]})
    messages = result["messages"]
    tool_messages = [m for m in messages if isinstance(m, ToolMessage)]
    assert [m.text for m in tool_messages] == ["3"]
    assert isinstance(messages[-1], AIMessage) and messages[-1].text == "done"
    assert model.calls == 2
    # the second model call saw the tool result
    assert isinstance(model.seen[1][-1], ToolMessage)


@pytest.mark.asyncio
async def test_agent_astream_messages_runs_tool_and_finishes() -> None:
    agent, model = _agent(
        [
            Reply(
                reasoning="I should add",
                text="Let me add.",
                tool_calls=[ScriptedToolCall("add", {"a": 1, "b": 2})],
            ),
            "all done now",
        ],
        [add],
    )
    ai_chunks: list[AIMessageChunk] = []
    tool_messages: list[ToolMessage] = []
    async for message, _meta in agent.astream({"messages": [HumanMessage("1+2?")]}, stream_mode="messages"):
        if isinstance(message, AIMessageChunk):
            ai_chunks.append(message)
        elif isinstance(message, ToolMessage):
            tool_messages.append(message)
    assert [m.text for m in tool_messages] == ["3"]
    by_id: dict[str, list[AIMessageChunk]] = {}
    for chunk in ai_chunks:
        assert chunk.id is not None
        by_id.setdefault(chunk.id, []).append(chunk)
    assert len(by_id) == 2
    first, second = (_merge(chs) for chs in by_id.values())
    assert first.text == "Let me add."
    assert [(t["name"], t["args"]) for t in first.tool_calls] == [("add", {"a": 1, "b": 2})]
    assert first.content_blocks[0]["type"] == "reasoning"
    assert second.text == "all done now"
    assert len(by_id[second.id or ""]) > 1  # really streamed token by token
    assert model.calls == 2


def test_agent_sync_parallel_tool_calls_both_run() -> None:
    agent, model = _agent(
        [
            Reply(
                tool_calls=[
                    ScriptedToolCall("add", {"a": 1, "b": 2}),
                    ScriptedToolCall("mul", {"a": 3, "b": 4}),
                ]
            ),
            "done",
        ],
        [add, mul],
    )
    result = agent.invoke({"messages": [HumanMessage("go")]})
    tool_messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert sorted((m.name, m.text) for m in tool_messages) == [
        ("add", "3"),
        ("mul", "12"),
    ]
    assert result["messages"][-1].text == "done"
    assert len(model.seen[1]) == 4  # human, ai, 2 tool messages


@pytest.mark.asyncio
async def test_agent_with_responder() -> None:
    model = ScriptedChatModel(responder=echo_last_human)
    agent = create_agent(model=model, tools=[add])
    result = await agent.ainvoke({"messages": [HumanMessage("parrot this")]})
    assert result["messages"][-1].text == "parrot this"
