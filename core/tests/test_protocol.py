"""The core agent over real pipes: lifecycle, streaming, tool calls, cancel, errors."""

from __future__ import annotations

import asyncio
import subprocess
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from core_support import REPO, RawAgent, Running, StartAgent, agent_env, serve_command


def statuses(agent: Running, sid: str, call_id: str) -> list[str]:
    return [
        u.status
        for u in agent.client.of(sid)
        if u.session_update in ("tool_call", "tool_call_update") and u.tool_call_id == call_id and u.status
    ]


def tool_calls(agent: Running, sid: str) -> list[Any]:
    return agent.client.of(sid, "tool_call")


def assert_lifecycle(seen: list[str], final: str = "completed") -> None:
    order = ["pending", "in_progress", "completed", "failed"]
    assert seen and seen[-1] == final, seen
    assert [order.index(s) for s in seen] == sorted(order.index(s) for s in seen), seen


async def test_a_slow_tool_is_reported_in_progress_while_it_runs(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "slow 0.5"))
        await agent.client.wait_for(lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups))
        [call] = tool_calls(agent, sid)
        assert statuses(agent, sid, call.tool_call_id)[-1] == "in_progress"  # not finished yet
        assert await turn == "end_turn"
        assert statuses(agent, sid, call.tool_call_id)[-2:] == ["in_progress", "completed"]


async def test_initialize_answers_version_1_and_real_agent_info(start_agent: StartAgent) -> None:
    async with start_agent(args=["--store", "memory"]) as agent:
        response = await agent.conn.initialize(protocol_version=99)
        assert response.protocol_version == 1
        assert response.agent_info is not None
        assert response.agent_info.name == "langacp"
        assert response.agent_info.version == version("langacp")
        caps = response.agent_capabilities
        assert caps is not None
        assert caps.load_session is False  # the memory store is not persistent
        assert caps.prompt_capabilities is not None and caps.prompt_capabilities.image is False
        assert caps.session_capabilities is not None and caps.session_capabilities.list is not None


async def test_text_streams_as_chunks_before_the_response(start_agent: StartAgent) -> None:
    async with start_agent(env={"LANGACP_TEST_TOKEN_DELAY": "0.01"}) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "long 30") == "end_turn"
        chunks = agent.client.of(sid, "agent_message_chunk")
        assert len(chunks) > 5, "tokens must be streamed as they arrive, not sent as one message"
        assert agent.client.text(sid) == "".join(f"w{i} " for i in range(30))


async def test_reasoning_becomes_thought_chunks(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "think the answer") == "end_turn"
        assert agent.client.text(sid, "agent_thought_chunk") == "Let me think about that."
        assert agent.client.text(sid) == "the answer"
        kinds = [u.session_update for u in agent.client.of(sid)]
        assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")


async def test_tool_call_lifecycle(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 2, "b": 3}') == "end_turn"
        [start] = tool_calls(agent, sid)
        assert start.title == "add" and start.kind == "other"
        # Updates of one call waiting together are folded into one message: a fast tool may
        # skip the separate in_progress, but the order never goes backwards.
        assert_lifecycle(statuses(agent, sid, start.tool_call_id))
        updates = [u for u in agent.client.of(sid, "tool_call_update") if u.tool_call_id == start.tool_call_id]
        assert any(u.raw_input == {"a": 2, "b": 3} for u in updates)
        final = updates[-1]
        assert final.raw_output == "5"
        assert final.content is not None and final.content[0].content.text == "5"
        assert agent.client.text(sid) == "done: 5"


async def test_parallel_tool_calls_each_complete(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "parallel") == "end_turn"
        calls = tool_calls(agent, sid)
        assert len(calls) == 2
        outputs = sorted(u.raw_output for u in agent.client.of(sid, "tool_call_update") if u.status == "completed")
        assert outputs == ["3", "7"]


async def test_failing_tool_fails_its_call_and_the_turn_goes_on(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "fail kaboom") == "end_turn"
        [call] = tool_calls(agent, sid)
        assert statuses(agent, sid, call.tool_call_id)[-1] == "failed"
        assert "kaboom" in agent.client.text(sid)  # the model saw the error and answered
        assert await agent.prompt(sid, "echo still alive") == "end_turn"


async def test_model_error_is_a_json_rpc_error_and_the_session_goes_on(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "error provider down")
        assert err.value.code == -32603
        assert "provider down" in str(err.value.data)
        assert await agent.prompt(sid, "echo next") == "end_turn"


async def test_cancel_stops_a_slow_async_tool_and_repairs_the_thread(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["events"]) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "slow 60"))
        await agent.client.wait_for(
            lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups), timeout=20
        )
        for _ in range(3):  # repeated cancels must not interrupt the clean-up or lose the answer
            await agent.conn.cancel(session_id=sid)
            await asyncio.sleep(0.001)
        # The tool sleeps 60 s: an answer within 10 s means it was stopped, not waited for.
        assert await asyncio.wait_for(turn, 10) == "cancelled"
        [call] = tool_calls(agent, sid)
        assert statuses(agent, sid, call.tool_call_id)[-1] == "failed"
        # The checkpoint was repaired: no tool call is left without a result.
        agent.client.updates.clear()
        assert await agent.prompt(sid, "dangling") == "end_turn"
        assert agent.client.text(sid) == "dangling: 0"
        finished = [e for e in agent.events() if e["event"] == "prompt_finished"]
        assert [e["stop_reason"] for e in finished] == ["cancelled", "end_turn"]


async def test_cancel_during_streaming(start_agent: StartAgent) -> None:
    async with start_agent(env={"LANGACP_TEST_TOKEN_DELAY": "0.05"}) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "long 2000"))
        await agent.client.wait_for(lambda ups: len(ups) >= 3)
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
        seen = agent.client.text(sid)
        assert 0 < len(seen.split()) < 2000
        # What the user already read stays in the thread: the model will remember it.
        agent.client.updates.clear()
        assert await agent.prompt(sid, "transcript") == "end_turn"
        assert agent.client.text(sid).startswith(f"human: long 2000 | ai: {seen.strip()}")


async def test_second_prompt_while_one_runs_is_refused_and_the_first_goes_on(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        first = asyncio.create_task(agent.prompt(sid, "slow 1"))
        await agent.client.wait_for(lambda ups: any(u.session_update == "tool_call" for _, u in ups))
        with pytest.raises(RequestError) as err:
            await agent.prompt(sid, "echo too soon")
        assert err.value.code == -32602
        assert "already running" in str(err.value.data)
        assert await asyncio.wait_for(first, 20) == "end_turn"
        assert agent.client.text(sid).endswith("done: slept 1.0s")


async def test_unknown_session_and_relative_cwd_are_clear_errors(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        await agent.conn.initialize(protocol_version=1)
        with pytest.raises(RequestError) as err:
            await agent.conn.prompt(session_id="nope", prompt=[text_block("hi")])
        assert err.value.code == -32002
        with pytest.raises(RequestError) as err:
            await agent.conn.new_session(cwd="relative/path")
        assert err.value.code == -32602
        with pytest.raises(RequestError) as err:
            await agent.conn.set_session_mode(session_id="nope", mode_id="x")
        assert err.value.code == -32002
        sid = await agent.start()  # still serving
        assert await agent.prompt(sid, "echo ok") == "end_turn"


async def test_methods_not_offered_answer_method_not_found(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        with pytest.raises(RequestError) as err:
            await agent.conn.ext_method("acme/unknown", {})
        assert err.value.code == -32601
        # set_mode with no modes plugin installed is not offered either
        with pytest.raises(RequestError) as err:
            await agent.conn.set_session_mode(session_id=sid, mode_id="code")
        assert err.value.code == -32601


async def test_two_sessions_run_concurrently_and_independently(start_agent: StartAgent) -> None:
    async with start_agent(env={"LANGACP_TEST_TOKEN_DELAY": "0.005"}) as agent:
        await agent.conn.initialize(protocol_version=1)
        a = (await agent.conn.new_session(cwd=str(agent.cwd))).session_id
        b = (await agent.conn.new_session(cwd=str(agent.cwd))).session_id
        ra, rb = await asyncio.gather(agent.prompt(a, "long 100"), agent.prompt(b, "echo b says hi"))
        assert (ra, rb) == ("end_turn", "end_turn")
        assert agent.client.text(a) == "".join(f"w{i} " for i in range(100))
        assert agent.client.text(b) == "b says hi"
        # Each session keeps its own thread.
        agent.client.updates.clear()
        await agent.prompt(b, "history")
        assert agent.client.text(b) == "echo b says hi | history"


async def test_meta_keys_cannot_overwrite_parameters(start_raw: Any) -> None:
    async with start_raw() as agent:
        await agent.request(1, "initialize", {"protocolVersion": 1})
        cwd = str(REPO)
        a = (await agent.request(2, "session/new", {"cwd": cwd, "mcpServers": []}))["result"]["sessionId"]
        b = (await agent.request(3, "session/new", {"cwd": cwd, "mcpServers": []}))["result"]["sessionId"]
        # The SDK merges _meta keys into handler kwargs: "session_id" here must not redirect the prompt.
        params = {"sessionId": a, "prompt": [{"type": "text", "text": "echo mine"}], "_meta": {"session_id": b}}
        reply = await agent.request(4, "session/prompt", params)
        assert reply["result"]["stopReason"] == "end_turn"
        targets = {n["params"]["sessionId"] for n in agent.notifications if n.get("method") == "session/update"}
        assert targets == {a}


async def test_stdout_carries_only_protocol_even_when_a_tool_or_a_plugin_prints(start_agent: StartAgent) -> None:
    """Over real pipes: what a tool prints, and a plugin while it loads and from a hook, lands on stderr."""
    async with start_agent(testplug=["print"], subprocess=True) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tool noisy {}") == "end_turn"
        assert agent.client.text(sid) == "done: printed"
        assert "NOISY TOOL OUTPUT ON STDOUT" in agent.stderr()
        assert "testplug writes to stdout while it loads" in agent.stderr()
        assert "testplug writes to stdout in a hook" in agent.stderr()


async def test_precompiled_graph_is_served_with_a_warning(start_agent: StartAgent) -> None:
    async with start_agent("graph") as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 1}') == "end_turn"
        assert agent.client.text(sid) == "done: 2"
        assert await agent.prompt(sid, "history") == "end_turn"
        assert "precompiled graph" in agent.stderr()


async def test_list_close_and_load_replay(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["events"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, 'tool add {"a": 2, "b": 2}')
        listed = await agent.conn.list_sessions(cwd=str(agent.cwd))
        assert [s.session_id for s in listed.sessions] == [sid]
        assert listed.sessions[0].title is None  # titles are a plugin's job (langacp-titles)
        assert (await agent.conn.list_sessions(cwd="/elsewhere")).sessions == []
        await agent.conn.close_session(session_id=sid)
        with pytest.raises(RequestError):
            await agent.prompt(sid, "echo closed")
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid)
        kinds = [u.session_update for u in agent.client.of(sid)]
        assert kinds[0] == "user_message_chunk"
        [call] = tool_calls(agent, sid)
        assert call.status == "completed" and call.raw_input == {"a": 2, "b": 2}
        assert agent.client.text(sid) == "done: 4"
        with pytest.raises(RequestError) as err:
            await agent.conn.load_session(cwd=str(agent.cwd), session_id="missing")
        assert err.value.code == -32002
        events = [e["event"] for e in agent.events()]
        assert events.count("session_closed") == 1 and "session_loaded" in events


async def test_fork_copies_the_conversation_and_the_two_diverge(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["events"], args=["--store", "memory"]) as agent:
        response = await agent.initialize()
        caps = response.agent_capabilities
        assert caps is not None and caps.session_capabilities is not None
        assert caps.session_capabilities.fork is not None
        sid = await agent.new_session()
        await agent.prompt(sid, "echo one")
        fork = (await agent.conn.fork_session(session_id=sid, cwd=str(agent.cwd))).session_id
        assert fork != sid
        await agent.prompt(fork, "echo fork only")
        await agent.prompt(sid, "echo source only")
        agent.client.updates.clear()
        await agent.prompt(fork, "history")
        await agent.prompt(sid, "history")
        assert agent.client.text(fork) == "echo one | echo fork only | history"
        assert agent.client.text(sid) == "echo one | echo source only | history"
        assert {s.session_id for s in (await agent.conn.list_sessions()).sessions} == {sid, fork}
        with pytest.raises(RequestError) as err:
            await agent.conn.fork_session(session_id="missing", cwd=str(agent.cwd))
        assert err.value.code == -32002
        assert [e["event"] for e in agent.events()].count("session_created") == 2


async def test_load_replays_user_images_through_the_content_hooks(start_agent: StartAgent) -> None:
    from acp import image_block, text_block

    async with start_agent(testplug=["images", "shout"]) as agent:
        sid = await agent.start()
        prompt = [text_block("echo look at this"), image_block("iVBORw0KGgo=", "image/png")]
        assert (await agent.conn.prompt(session_id=sid, prompt=prompt)).stop_reason == "end_turn"
        await agent.conn.close_session(session_id=sid)
        agent.client.updates.clear()
        await agent.conn.load_session(cwd=str(agent.cwd), session_id=sid)
        text, image = [u.content for u in agent.client.of(sid, "user_message_chunk")]
        assert text.text == "echo look at this"  # a user's text is not an agent's output: not shouted
        assert (image.type, image.data, image.mime_type) == ("image", "iVBORw0KGgo=", "image/png")
        assert agent.client.text(sid) == "LOOK AT THIS"


async def test_stdin_eof_cancels_prompts_closes_sessions_and_exits_0(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["events"], subprocess=True) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "slow 60"))
        await agent.client.wait_for(lambda ups: any(u.session_update == "tool_call" for _, u in ups))
        assert agent.process.stdin is not None
        agent.process.stdin.close()
        code = await asyncio.wait_for(agent.process.wait(), 10)
        assert code == 0
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)
        events = [e["event"] for e in agent.events()]
        assert "session_closed" in events


async def test_stdin_eof_with_a_sync_tool_running_still_exits(start_agent: StartAgent) -> None:
    async with start_agent(subprocess=True) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "sync_slow 60"))
        await agent.client.wait_for(lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups))
        assert agent.process.stdin is not None
        agent.process.stdin.close()
        assert await asyncio.wait_for(agent.process.wait(), 10) == 0
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)


# -- raw JSON-RPC input ---------------------------------------------------------------------------


async def test_malformed_json_gets_parse_error_and_serving_goes_on(start_raw: Any) -> None:
    agent: RawAgent
    async with start_raw() as agent:
        await agent.send_raw(b"{this is not json\n")
        reply = await agent.recv()
        assert reply["error"]["code"] == -32700 and reply["id"] is None
        ok = await agent.request(1, "initialize", {"protocolVersion": 1})
        assert ok["result"]["protocolVersion"] == 1


async def test_non_object_and_invalid_envelopes_get_invalid_request(start_raw: Any) -> None:
    async with start_raw() as agent:
        for bad in (b"[]\n", b"42\n", b'"text"\n', b'{"jsonrpc": "2.0", "id": [1], "method": "initialize"}\n'):
            await agent.send_raw(bad)
            reply = await agent.recv()
            assert reply["error"]["code"] == -32600, bad
        await agent.send({"jsonrpc": "2.0", "id": 7, "method": 12})
        assert (await agent.recv())["error"]["code"] == -32600
        # A response with an unhashable id is dropped, not fatal.
        await agent.send({"jsonrpc": "2.0", "id": {"x": 1}, "result": {}})
        ok = await agent.request(2, "initialize", {"protocolVersion": 1})
        assert "result" in ok


async def test_invalid_params_and_unknown_method(start_raw: Any) -> None:
    async with start_raw() as agent:
        reply = await agent.request(1, "session/new", {"cwd": 5})
        assert reply["error"]["code"] == -32602
        reply = await agent.request(2, "session/prompt", {"sessionId": "x"})
        assert reply["error"]["code"] == -32602
        reply = await agent.request(3, "no/such/method", {})
        assert reply["error"]["code"] == -32601
        reply = await agent.request(4, "initialize", {"protocolVersion": 1})
        assert reply["result"]["protocolVersion"] == 1


async def test_meta_key_named_self_is_harmless(start_raw: Any) -> None:
    async with start_raw() as agent:
        reply = await agent.request(1, "initialize", {"protocolVersion": 1, "_meta": {"self": 1, "x": 2}})
        assert reply["result"]["protocolVersion"] == 1


async def test_unknown_store_driver_stops_serve_at_once_with_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [*serve_command("agent"), "--store", "nosuch:///tmp/x.db"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=agent_env(),
        timeout=60,
    )
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert line == (
        "langacp: --store nosuch:///tmp/x.db: no session store driver 'nosuch' is installed; "
        "fix: pip install langacp-nosuch"
    )


async def test_recursion_limit_stops_with_max_turn_requests(start_agent: StartAgent) -> None:
    async with start_agent(args=["--recursion-limit", "8"]) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, "tools 50") == "max_turn_requests"
        agent.client.updates.clear()
        assert await agent.prompt(sid, "dangling") == "end_turn"
        assert agent.client.text(sid) == "dangling: 0"


async def test_factory_ignoring_setup_middleware_is_warned_about(start_agent: StartAgent) -> None:
    async with start_agent("unguarded_agent") as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, 'tool add {"a": 1, "b": 2}') == "end_turn"
        [call] = tool_calls(agent, sid)
        assert_lifecycle(statuses(agent, sid, call.tool_call_id))
        assert "does not use setup.middleware" in agent.stderr()


BAD_REQUESTS: list[tuple[str, Any]] = [
    ("initialize", None),
    ("initialize", []),
    ("session/new", {}),
    ("session/new", {"cwd": None, "mcpServers": "all"}),
    ("session/load", {"sessionId": 5, "cwd": "/tmp"}),
    ("session/list", {"cwd": 12}),
    ("session/list", {"cwd": "relative"}),
    ("session/prompt", {"sessionId": "s", "prompt": "hi"}),
    ("session/prompt", {"sessionId": "s", "prompt": [{"type": "nope"}]}),
    ("session/prompt", {"sessionId": None, "prompt": []}),
    ("session/set_mode", {"sessionId": "s"}),
    ("session/set_config_option", {"sessionId": "s", "configId": 3, "value": {}}),
    ("session/close", {"sessionId": ["s"]}),
    ("session/resume", {"sessionId": "s", "cwd": "/tmp"}),
    ("session/fork", {"sessionId": "s", "cwd": "relative"}),
    ("session/list", {"cursor": "not-a-cursor"}),
    ("authenticate", {"methodId": None}),
    ("session/cancel", {"sessionId": {}}),
    ("_acme/ext", {"x": 1}),
    ("", {}),
]


async def test_bad_params_to_every_method_get_errors_and_the_agent_keeps_serving(start_raw: Any) -> None:
    async with start_raw() as agent:
        for n, (method, params) in enumerate(BAD_REQUESTS, start=1):
            reply = await agent.request(n, method, params)
            assert "error" in reply, (method, params, reply)
            assert reply["error"]["code"] in (-32600, -32601, -32602, -32002), (method, reply)
        ok = await agent.request(999, "initialize", {"protocolVersion": 1})
        assert ok["result"]["protocolVersion"] == 1
        assert agent.process.returncode is None


async def test_closing_a_session_cancels_its_running_prompt(start_agent: StartAgent) -> None:
    async with start_agent(testplug=["events"]) as agent:
        sid = await agent.start()
        turn = asyncio.create_task(agent.prompt(sid, "slow 60"))
        await agent.client.wait_for(lambda ups: any(getattr(u, "status", None) == "in_progress" for _, u in ups))
        await agent.conn.close_session(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
        assert [e["event"] for e in agent.events()][-2:] == ["prompt_finished", "session_closed"]


async def test_empty_prompt_is_invalid_params(start_agent: StartAgent) -> None:
    async with start_agent() as agent:
        sid = await agent.start()
        with pytest.raises(RequestError) as err:
            await agent.conn.prompt(session_id=sid, prompt=[])
        assert err.value.code == -32602
        assert await agent.prompt(sid, "echo fine") == "end_turn"
