"""A human-in-the-loop interrupt nobody answers never leaves a tool call pending."""

from __future__ import annotations

from pathlib import Path

from robustness_support import raw_agent, tool_updates

HITL = "langacp.testing.agent:hitl_agent"


def final_statuses(updates: list[dict[str, object]]) -> dict[object, object]:
    statuses: dict[object, object] = {}
    for update in updates:
        if update.get("status"):
            statuses[update["toolCallId"]] = update["status"]
    return statuses


async def test_no_plugin_answers_the_interrupt(tmp_path: Path) -> None:
    async with raw_agent(tmp_path, HITL) as agent:
        sid = await agent.start(str(tmp_path))
        reply = await agent.prompt(sid, 'tool add {"a": 1, "b": 2}')
        assert reply["result"]["stopReason"] == "cancelled"
        assert set(final_statuses(tool_updates(agent.notifications, sid)).values()) == {"failed"}
        assert (await agent.prompt(sid, "echo next"))["result"]["stopReason"] == "end_turn"


async def test_the_client_never_answers_the_permission_request_then_cancels(tmp_path: Path) -> None:
    async with raw_agent(tmp_path, HITL, plugins=["permissions"]) as agent:
        sid = await agent.start(str(tmp_path))
        await agent.send(agent.prompt_message(70, sid, 'tool add {"a": 1, "b": 2}'))
        while True:  # the agent asks; the client says nothing
            message = await agent.recv()
            if message.get("method") == "session/request_permission":
                break
            agent.notifications.append(message)
        await agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        reply = await agent.reply_to(70)
        assert reply["result"]["stopReason"] == "cancelled"
        statuses = final_statuses(tool_updates(agent.notifications, sid))
        assert statuses and set(statuses.values()) == {"failed"}
        assert (await agent.prompt(sid, "echo next"))["result"]["stopReason"] == "end_turn"
