"""ACP v2 updates folded into v1 ones (langacp.client.v2_fold): patch semantics, whole forms, the turn's end.

The end-to-end tests (a real v2 agent over pipes) are in tests/test_client_ts_agent_v2.py.
"""

from __future__ import annotations

import asyncio
import base64

from langacp.client.v2_fold import TERMINAL_META, SessionFold, commands_v1, config_options_v1, modes_v1


def test_whole_messages_replace_and_chunks_append() -> None:
    fold = SessionFold()
    text = {"type": "text", "text": "Hel"}
    assert fold.fold({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": text}) == [
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": text}
    ]
    grown = fold.fold(
        {"sessionUpdate": "agent_message", "messageId": "m", "content": [{"type": "text", "text": "Hello"}]}
    )
    assert [u["content"]["text"] for u in grown] == ["lo"]  # only what is new
    same = fold.fold(
        {"sessionUpdate": "agent_message", "messageId": "m", "content": [{"type": "text", "text": "Hello"}]}
    )
    assert same == []
    replaced = fold.fold(
        {"sessionUpdate": "agent_message", "messageId": "m", "content": [{"type": "text", "text": "Bye"}]}
    )
    assert [u["content"]["text"] for u in replaced] == ["Bye"]  # not a continuation: shown whole
    thought = fold.fold(
        {"sessionUpdate": "agent_thought", "messageId": "t", "content": [{"type": "text", "text": "hm"}]}
    )
    assert thought[0]["sessionUpdate"] == "agent_thought_chunk"
    user = fold.fold({"sessionUpdate": "user_message", "messageId": "u", "content": None})
    assert user == [] and fold.messages["u"] == []


def test_tool_call_patches_omitted_unchanged_null_cleared() -> None:
    fold = SessionFold()
    (start,) = fold.fold(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "title": "Read a",
            "kind": "read",
            "status": "pending",
            "locations": [{"path": "/a"}],
            "_meta": {"x": 1, "y": 2},
        }
    )
    assert start == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c",
        "title": "Read a",
        "kind": "read",
        "status": "pending",
        "locations": [{"path": "/a"}],
    }
    (patch,) = fold.fold(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "status": "cancelled",
            "locations": None,
            "_meta": {"x": None},
        }
    )
    assert patch == {"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "failed", "locations": []}
    assert fold.tool_calls["c"] == {
        "toolCallId": "c",
        "title": "Read a",
        "kind": "read",
        "status": "cancelled",
        "_meta": {"y": 2},
    }


def test_tool_content_chunks_accumulate_and_terminals_show_as_text() -> None:
    fold = SessionFold()
    chunk = {"type": "content", "content": {"type": "text", "text": "a"}}
    (first,) = fold.fold({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c", "content": chunk})
    assert first["sessionUpdate"] == "tool_call" and first["title"] == "" and first["content"] == [chunk]
    (second,) = fold.fold({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c", "content": chunk})
    assert second == {"sessionUpdate": "tool_call_update", "toolCallId": "c", "content": [chunk, chunk]}
    fold.fold(
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "content": [{"type": "terminal", "terminalId": "x"}]}
    )
    data = base64.b64encode(b"out\n").decode()
    (shown,) = fold.fold({"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": data})
    assert shown["toolCallId"] == "t" and shown["content"][0]["content"]["text"] == "out\n"
    (snapshot,) = fold.fold(
        {"sessionUpdate": "terminal_update", "terminalId": "x", "output": {"data": data}, "exitStatus": {"exitCode": 2}}
    )
    assert snapshot["content"][0]["content"]["text"] == "out\n\n[exit 2]"
    assert snapshot["content"][0]["_meta"] == {TERMINAL_META: "x"}  # so a renderer can tell it from a result


def test_the_turn_ends_at_idle_after_running_or_the_acknowledgement() -> None:
    async def main() -> None:
        fold = SessionFold()
        turn = fold.begin()
        fold.fold({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})  # before ours: stale
        assert not turn.done.done()
        fold.fold({"sessionUpdate": "state_update", "state": "running"})
        fold.fold({"sessionUpdate": "state_update", "state": "idle", "stopReason": None})  # a snapshot, no end
        assert not turn.done.done()
        fold.fold({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"})
        assert turn.done.result() == "cancelled"
        acked = fold.begin()
        fold.acknowledged(acked, "m1")
        fold.fold({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        assert acked.done.result() == "end_turn" and acked.message_id == "m1"

    asyncio.run(main())


def test_config_options_modes_and_commands_in_v1_form() -> None:
    mode = {
        "type": "select",
        "configId": "mode",
        "name": "Mode",
        "category": "mode",
        "currentValue": "ask",
        "options": [
            {"group": "g", "name": "G", "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}]}
        ],
    }
    assert config_options_v1([mode])[0]["id"] == "mode"
    assert modes_v1([mode]) == {
        "currentModeId": "ask",
        "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
    }
    assert modes_v1([{**mode, "category": "model"}]) is None
    fold = SessionFold()
    assert [u["sessionUpdate"] for u in fold.set_config([mode])] == ["config_option_update", "current_mode_update"]
    assert [u["sessionUpdate"] for u in fold.set_config([mode])] == ["config_option_update"]  # mode unchanged
    changed = fold.fold({"sessionUpdate": "config_option_update", "configOptions": [{**mode, "currentValue": "code"}]})
    assert changed[1] == {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
    commands = [
        {"type": "command", "name": "plan", "description": "Plan"},
        {"type": "_x", "name": "y", "description": ""},
    ]
    assert commands_v1(commands)["availableCommands"] == [{"name": "plan", "description": "Plan"}]


def test_a_plan_of_entries_is_v1_s_plan() -> None:
    entry = {"content": "Write the page", "status": "pending", "priority": "high"}
    update = {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "plan", "entries": [entry]}}
    assert SessionFold().fold(update) == [{"sessionUpdate": "plan", "entries": [entry]}]
    cancelled = {**entry, "status": "cancelled"}  # no v1 form: as it came
    other = {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p", "entries": [cancelled]}}
    assert SessionFold().fold(other) == [other]
