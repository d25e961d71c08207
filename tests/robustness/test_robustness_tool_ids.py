"""A model that reuses a tool call id across turns: each call keeps its own id and result, live and replayed."""

from __future__ import annotations

from pathlib import Path

from robustness_support import raw_agent, tool_updates

TARGET = "robust_targets:same_id_agent"


async def test_reused_model_ids_are_unique_live_and_in_the_replay(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    sums = [(1, 2), (3, 4), (5, 6)]
    async with raw_agent(tmp_path, TARGET, "--store", url, name="first") as agent:
        sid = await agent.start(str(tmp_path))
        for a, b in sums:
            reply = await agent.prompt(sid, f'tool add {{"a": {a}, "b": {b}}}')
            assert reply["result"]["stopReason"] == "end_turn"
        live = tool_updates(agent.notifications, sid)
    starts = [u for u in live if u["sessionUpdate"] == "tool_call"]
    assert [u["toolCallId"] for u in starts] == ["call_0", "call_0#2", "call_0#3"]
    finished = {u["toolCallId"]: u["rawOutput"] for u in live if u.get("status") == "completed"}
    assert finished == {"call_0": "3", "call_0#2": "7", "call_0#3": "11"}

    async with raw_agent(tmp_path, TARGET, "--store", url, name="second") as agent:
        assert "result" in await agent.request("initialize", {"protocolVersion": 1})
        loaded = await agent.request("session/load", {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []})
        assert "result" in loaded
        replayed = {u["toolCallId"]: (u["status"], u["rawOutput"]) for u in tool_updates(agent.notifications, sid)}
        assert replayed == {
            "call_0": ("completed", "3"),
            "call_0#2": ("completed", "7"),
            "call_0#3": ("completed", "11"),
        }
        # A new turn after the load (the model numbers from call_0 again) does not reuse an id either.
        agent.notifications.clear()
        reply = await agent.prompt(sid, 'tool add {"a": 7, "b": 8}')
        assert reply["result"]["stopReason"] == "end_turn"
        ids = {u["toolCallId"] for u in tool_updates(agent.notifications, sid)}
        assert ids == {"call_0#4"}
