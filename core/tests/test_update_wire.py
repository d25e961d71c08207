"""Session updates of the SDK's own classes are written as the SDK's ``session_update`` writes them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message,
)
from acp.schema import (
    AvailableCommand,
    AvailableCommandsUpdate,
    CurrentModeUpdate,
    SessionNotification,
    ToolCallLocation,
)
from acp.utils import serialize_params

from langacp.protocol import _sdk_updates, sdk_update_json, send_update


def _updates() -> list[Any]:
    chunk = update_agent_message_text("done: 2").model_copy(update={"message_id": "m1"})
    return [
        chunk,
        update_agent_thought_text("hmm"),
        update_user_message(text_block("look")),
        start_tool_call(
            "c1",
            "Read a.py",
            kind="read",
            status="completed",
            content=[tool_content(text_block("print(1)"))],
            locations=[ToolCallLocation(path="/p/a.py", line=3)],
            raw_input={"path": "a.py", "n": [1, 2.5, None]},
            raw_output="print(1)",
        ),
        update_tool_call("c1", status="failed", raw_output={"error": "boom"}),
        update_plan([plan_entry("step", priority="high", status="pending")]),
        AvailableCommandsUpdate(
            session_update="available_commands_update",
            available_commands=[AvailableCommand(name="clear", description="Start over")],
        ),
        CurrentModeUpdate(session_update="current_mode_update", current_mode_id="ask"),
    ]


@pytest.mark.parametrize("update", _updates(), ids=lambda u: u.session_update)
def test_an_sdk_update_dumps_as_the_sdk_sends_it(update: Any) -> None:
    assert type(update) in _sdk_updates()
    through_sdk = serialize_params(SessionNotification(session_id="s", update=update))
    assert json.dumps({"sessionId": "s", "update": sdk_update_json(update)}) == json.dumps(through_sdk)


class _Connection:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def send_notification(self, method: str, params: Any = None) -> None:
        self.sent.append((method, params))


class _Client:
    """An ``AgentSideConnection`` stand-in: its JSON-RPC connection (``_conn``) and the SDK's own ``session_update``."""

    def __init__(self) -> None:
        self._conn = _Connection()
        self.through_sdk: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.through_sdk.append(update)
        await self._conn.send_notification(
            "session/update", serialize_params(SessionNotification(session_id=session_id, update=update))
        )


def test_what_is_not_exactly_an_sdk_class_goes_through_the_sdk() -> None:
    """A subclass of an SDK update (which the SDK's model would strip) or anything else is the SDK's to send."""
    from acp.schema import AgentMessageChunk

    class Tagged(AgentMessageChunk):
        tag: str = "x"

    client = _Client()
    tagged = Tagged(session_update="agent_message_chunk", content=text_block("hi"))
    plain = update_agent_message_text("hi")
    asyncio.run(send_update(client, "s", tagged))
    asyncio.run(send_update(client, "s", plain))
    assert client.through_sdk == [tagged]
    assert [json.dumps(p) for _, p in client._conn.sent] == [
        json.dumps(serialize_params(SessionNotification(session_id="s", update=u))) for u in (tagged, plain)
    ]
