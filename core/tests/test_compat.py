"""One pinning test per private dependency name in langacp.compat: an upgrade that moves one fails here."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import itertools
from typing import Any

import pytest
from core_support import delta_graph

from langacp.compat import langchain, langgraph, pydantic, sdk, stdlib


def test_compat_sdk_connection_router_request_runner_and_raw_notification() -> None:
    from acp.connection import Connection
    from acp.core import AgentSideConnection
    from acp.router import MessageRouter

    async def main() -> None:
        agent_end, client_end = sdk.memory_transport_pair()
        conn = AgentSideConnection(object(), agent_end, listening=False)  # type: ignore[arg-type]
        assert isinstance(sdk.sdk_connection(conn), Connection)
        assert isinstance(sdk.sdk_router(conn), MessageRouter)
        assert sdk.sdk_transport(conn) is agent_end
        seen: list[Any] = []

        def wrap(run: Any) -> Any:
            seen.append(run)
            return run

        sdk.wrap_request_runner(conn, wrap)
        assert callable(seen[0]) and list(inspect.signature(seen[0]).parameters) == ["message"]
        await sdk.send_raw_notification(conn, "session/update", {"sessionId": "s", "update": {"x": 1}})
        message = await asyncio.wait_for(client_end.receive(), 5)
        params = {"sessionId": "s", "update": {"x": 1}}
        assert message == {"jsonrpc": "2.0", "method": "session/update", "params": params}

    asyncio.run(main())


def test_compat_sdk_raw_notifications_go_to_the_transport_together_unless_observed() -> None:
    from acp.connection import Connection
    from acp.core import AgentSideConnection

    class Many:
        def __init__(self) -> None:
            self.calls: list[list[dict[str, Any]]] = []

        async def send(self, message: dict[str, Any]) -> None:
            self.calls.append([message])

        async def send_many(self, messages: list[dict[str, Any]]) -> None:
            self.calls.append(messages)

        async def receive(self) -> dict[str, Any] | None:
            return None

        async def close(self) -> None:
            return None

    async def main() -> None:
        for name in ("_transport", "_observers", "_raise_if_unavailable"):
            assert hasattr(Connection(object(), Many(), listening=False), name)  # type: ignore[arg-type]
        transport = Many()
        conn = AgentSideConnection(object(), transport, listening=False)  # type: ignore[arg-type]
        params = [{"sessionId": "s", "update": {"n": n}} for n in range(3)]
        await sdk.send_raw_notifications(conn, "session/update", params)
        expected = [{"jsonrpc": "2.0", "method": "session/update", "params": p} for p in params]
        assert transport.calls == [expected]
        seen: list[Any] = []
        sdk.sdk_connection(conn).add_observer(seen.append)  # an observer sees each message: one by one
        await sdk.send_raw_notifications(conn, "session/update", params)
        assert transport.calls[1:] == [[m] for m in expected] and len(seen) == 3
        await sdk.sdk_connection(conn).close()
        with pytest.raises(ConnectionError):
            await sdk.send_raw_notifications(conn, "session/update", params)

    asyncio.run(main())


def test_compat_sdk_route_incoming_replaces_the_router() -> None:
    from acp.core import AgentSideConnection

    async def main() -> None:
        agent_end, client_end = sdk.memory_transport_pair()
        conn = AgentSideConnection(object(), agent_end)  # type: ignore[arg-type]
        seen: list[Any] = []

        async def handler(method: str, params: Any, is_notification: bool) -> Any:
            seen.append((method, params, is_notification))
            return {"echo": method}

        sdk.route_incoming(conn, handler)
        await client_end.send({"jsonrpc": "2.0", "id": 7, "method": "x/y", "params": {"a": 1}})
        assert await asyncio.wait_for(client_end.receive(), 5) == {"jsonrpc": "2.0", "id": 7, "result": {"echo": "x/y"}}
        assert seen == [("x/y", {"a": 1}, False)]
        await sdk.sdk_connection(conn).close()


def test_compat_sdk_route_and_raw_request() -> None:
    from acp.core import AgentSideConnection
    from acp.router import Route

    async def main() -> None:
        agent_end, client_end = sdk.memory_transport_pair()
        conn = AgentSideConnection(object(), agent_end, listening=False)  # type: ignore[arg-type]
        router = sdk.sdk_router(conn)
        assert isinstance(sdk.sdk_route(router, "session/prompt", "request"), Route)
        assert isinstance(sdk.sdk_route(router, "session/cancel", "notification"), Route)
        assert sdk.sdk_route(router, "no/such", "request") is None
        for _ in range(2):
            expected = sdk.next_request_id(conn)
            asking = asyncio.ensure_future(sdk.send_raw_request(conn, "x/y", {"a": 1}))
            message = await asyncio.wait_for(client_end.receive(), 5)
            assert message["method"] == "x/y" and message["params"] == {"a": 1}
            assert message["id"] == expected, "next_request_id is the id the next request gets"
            asking.cancel()

    asyncio.run(main())


def test_compat_langchain_streaming_handler_is_the_one_langgraph_taps() -> None:
    from langchain_core.tracers import _streaming

    assert langchain.StreamingCallbackHandler is _streaming._StreamingCallbackHandler
    assert hasattr(langchain.StreamingCallbackHandler, "tap_output_aiter")


def test_compat_langgraph_constants() -> None:
    from langgraph._internal import _constants

    assert langgraph.PUSH == _constants.PUSH
    assert langgraph.INTERRUPT_KEY == _constants.INTERRUPT
    assert langgraph.TASKS_CHANNEL == _constants.TASKS


def test_compat_langgraph_delta_markers_mark_every_checkpoint_of_a_delta_channel_graph() -> None:
    """Pins the metadata key LangGraph writes for a ``DeltaChannel`` graph (beta: the name may change)."""
    from typing import get_type_hints

    from langgraph.checkpoint.base import CheckpointMetadata
    from langgraph.checkpoint.memory import InMemorySaver

    assert langgraph.DELTA_MARKERS[0] in get_type_hints(CheckpointMetadata)
    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "t"}}
    delta_graph(saver).invoke({"items": ["a"]}, config)
    saved = list(saver.list(config))
    assert saved and all(langgraph.uses_delta(c.metadata) for c in saved)
    assert not langgraph.uses_delta({"source": "loop", "step": 1, "parents": {}})


def test_compat_langgraph_js_delta_marker_is_the_one_langgraphs_postgres_prune_looks_for() -> None:
    postgres = pytest.importorskip("langgraph.checkpoint.postgres.base")
    assert f"'{langgraph.DELTA_MARKERS[1]}'" in postgres.PRUNE_DELTA_THREADS_SQL
    assert langgraph.uses_delta({langgraph.DELTA_MARKERS[1]: True})


def test_compat_langgraph_task_nesting() -> None:
    assert langgraph.own_graph_task({"langgraph_checkpoint_ns": "tools:1"})
    assert not langgraph.own_graph_task({"langgraph_checkpoint_ns": "tools:1|inner:2"})
    push = (langgraph.PUSH, ("__pregel_pull", "tools"), 0, True)
    assert langgraph.own_graph_task({"langgraph_checkpoint_ns": "tools:1|task:2", "langgraph_path": push})
    assert not langgraph.own_graph_task(None)


def test_compat_langgraph_overwrite() -> None:
    from langgraph.types import Overwrite

    assert langgraph.overwritten(Overwrite(value=[1])) == [1]
    assert langgraph.overwritten([2]) == [2]


def test_compat_langgraph_drop_memory_checkpoints_keeps_every_value_a_kept_checkpoint_needs() -> None:
    """Pins ``InMemorySaver``'s layout (storage, writes, blobs) that the pruning reads."""
    from langgraph.checkpoint.memory import InMemorySaver

    saver = InMemorySaver()
    config: Any = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    ids = ["1", "2", "3"]
    versions = [{"same": 1, "grows": 1}, {"same": 1, "grows": 2}, {"same": 1, "grows": 3}]
    parent = None
    for cid, channel_versions in zip(ids, versions, strict=True):
        checkpoint: Any = {
            "v": 4, "id": cid, "ts": "", "channel_values": {"same": "s", "grows": cid},
            "channel_versions": channel_versions, "versions_seen": {},
        }  # fmt: skip
        new = channel_versions if parent is None else {"grows": channel_versions["grows"]}
        saved = saver.put({"configurable": {**config["configurable"], "checkpoint_id": parent}}, checkpoint, {}, new)
        saver.put_writes(saved, [("grows", cid)], task_id=f"task{cid}")
        parent = cid
    assert langgraph.drop_memory_checkpoints(saver, "t", "", "2") == 1
    assert list(saver.storage["t"][""]) == ["2", "3"]
    assert ("t", "", "1") not in saver.writes and ("t", "", "2") in saver.writes
    assert ("t", "", "grows", 1) not in saver.blobs
    assert ("t", "", "same", 1) in saver.blobs  # still read by the kept checkpoints
    head = saver.get_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})
    assert head is not None and head.checkpoint["channel_values"] == {"same": "s", "grows": "3"}
    assert langgraph.drop_memory_checkpoints(saver, "t", "", "2") == 0
    assert langgraph.drop_memory_checkpoints(saver, "other", "", "9") == 0


def test_compat_argparse_actions() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flag")
    subs = parser.add_subparsers()
    subs.add_parser("serve", help="Serve it")
    actions = stdlib.argparse_actions(parser)
    assert any("--flag" in a.option_strings for a in actions)
    helps = [stdlib.argparse_subcommand_helps(a) for a in actions]
    assert {"serve": "Serve it"} in helps


async def test_compat_langchain_composes_model_call_wrappers_as_create_agent() -> None:
    from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
    from langchain_core.messages import AIMessage
    from langgraph.types import Command

    seen: list[str] = []

    async def outer(request: Any, handler: Any) -> Any:
        seen.append("outer")
        response = await handler(request)
        assert isinstance(response, ModelResponse)  # the inner wrapper's ExtendedModelResponse, unwrapped
        seen.append("outer-after")
        return response

    async def inner(request: Any, handler: Any) -> Any:
        seen.append("inner")
        response = await handler(request)
        return ExtendedModelResponse(response, Command(update={"note": "inner"}))

    async def model(request: Any) -> Any:
        seen.append(f"model {request}")
        return ModelResponse(result=[AIMessage(content="hi")])

    composed = langchain.compose_model_call_wrappers([outer, inner])
    result = await composed("req", model)
    assert seen == ["outer", "inner", "model req", "outer-after"]
    assert [m.text for m in result.model_response.result] == ["hi"]
    assert [c.update for c in result.commands] == [{"note": "inner"}]


_WRAPPER_BEHAVIOURS = ("pass", "message", "command", "no-command", "retry", "retry-fails", "request")


def _behaving(behaviour: str, name: str, seen: list[str]) -> Any:
    """A model-call wrapper that does ``behaviour`` (see :data:`_WRAPPER_BEHAVIOURS`), logging to ``seen``."""
    from langchain.agents.middleware.types import ExtendedModelResponse
    from langchain_core.messages import AIMessage
    from langgraph.types import Command

    async def wrapper(request: Any, handler: Any) -> Any:
        seen.append(f"{name} in {request}")
        if behaviour == "request":
            request = f"{request}+{name}"
        response = await handler(request)
        seen.append(f"{name} got {type(response).__name__} {[m.text for m in response.result]}")
        if behaviour in ("retry", "retry-fails"):
            try:
                response = await handler(f"{request} again" if behaviour == "retry" else "fail")
            except RuntimeError:
                seen.append(f"{name} caught")
        if behaviour == "message":
            return AIMessage(content=f"{name} says", id=name)
        if behaviour in ("command", "no-command"):
            return ExtendedModelResponse(response, Command(update={"by": name}) if behaviour == "command" else None)
        return response

    return wrapper


@pytest.mark.parametrize(
    "behaviours",
    [(b,) for b in _WRAPPER_BEHAVIOURS]
    + list(itertools.product(_WRAPPER_BEHAVIOURS, repeat=2))
    + list(itertools.product(("command", "retry", "retry-fails", "message"), repeat=3)),
)
async def test_compat_langchain_model_call_wrappers_compose_as_langchains_chain(behaviours: tuple[str, ...]) -> None:
    """The same calls, in the same order, and an equal result as LangChain's ``_chain_async_model_call_handlers``."""
    from langchain.agents.factory import _chain_async_model_call_handlers
    from langchain.agents.middleware.types import ModelResponse
    from langchain_core.messages import AIMessage

    async def run(compose: Any) -> tuple[list[str], Any]:
        seen: list[str] = []
        calls = iter(range(100))

        async def model(request: Any) -> Any:
            seen.append(f"model {request}")
            if request == "fail":
                raise RuntimeError("model failed")
            n = next(calls)
            return ModelResponse(result=[AIMessage(content=f"m{n}", id=f"m{n}")])

        wrappers = [_behaving(b, f"w{i}", seen) for i, b in enumerate(behaviours)]
        return seen, await compose(wrappers)("req", model)

    ours, theirs = await run(langchain.compose_model_call_wrappers), await run(_chain_async_model_call_handlers)
    assert ours == theirs
    assert type(ours[1]) is type(theirs[1])


def test_compat_pydantic_made_is_the_validated_model() -> None:
    """An instance pydantic.made makes equals, dumps and copies as the validated one (for values kept as they are)."""
    from acp.schema import AgentMessageChunk, TextContentBlock

    for text in ("", "plain", "\ud800 lone", "é\n"):
        validated = AgentMessageChunk(
            session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
        )
        block = pydantic.made(
            TextContentBlock, {"annotations": None, "text": text, "field_meta": None, "type": "text"}, {"type", "text"}
        )
        values = {"content": block, "message_id": None, "field_meta": None, "session_update": "agent_message_chunk"}
        made = pydantic.made(AgentMessageChunk, values, {"session_update", "content"})
        assert made == validated and type(made) is AgentMessageChunk
        assert made.model_fields_set == validated.model_fields_set
        assert made.content.model_fields_set == validated.content.model_fields_set
        assert made.__pydantic_extra__ is validated.__pydantic_extra__ is None
        assert made.__pydantic_private__ is validated.__pydantic_private__ is None
        for options in ({}, {"mode": "json", "by_alias": True, "exclude_none": True}, {"exclude_unset": True}):
            assert made.model_dump(**options) == validated.model_dump(**options)
        assert _outcome(made.model_dump_json) == _outcome(validated.model_dump_json)  # a lone surrogate: both fail
        copied = made.model_copy(update={"message_id": "m"})
        assert copied == validated.model_copy(update={"message_id": "m"}) and made.message_id is None
        made.message_id = "x"  # assignment as on a validated model: noted as set
        assert "message_id" in made.model_fields_set and "message_id" not in validated.model_fields_set


def _outcome(dump: Any) -> Any:
    try:
        return dump(by_alias=True)
    except Exception as exc:  # noqa: BLE001 - compared: the same failure
        return type(exc), str(exc)


@pytest.mark.parametrize("module", [sdk, langchain, langgraph, stdlib, pydantic])
def test_compat_every_public_name_is_pinned(module: Any) -> None:
    source = inspect.getsource(inspect.getmodule(test_compat_every_public_name_is_pinned))  # type: ignore[arg-type]
    for name in module.__all__:
        assert f".{name}" in source, f"langacp.compat.{module.__name__.rsplit('.', 1)[1]}.{name} has no pinning test"
