"""``SessionContext.request_permission``: the one way a plugin asks the client, as the core's default policy does."""

from __future__ import annotations

from typing import Any

import pytest
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from langacp import PromptCancelled, SessionContext

OPTIONS = [PermissionOption(option_id="go", name="Go", kind="allow_once")]
TOOL_CALL = ToolCallUpdate(tool_call_id="c1", title="add")


class Client:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[dict[str, Any]] = []

    async def request_permission(self, **kwargs: Any) -> Any:
        self.asked.append(kwargs)
        return self.answer


async def test_the_chosen_option_id_is_returned() -> None:
    client = Client(RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="go")))
    session = SessionContext(session_id="s", cwd="/tmp", client=client)
    assert await session.request_permission(TOOL_CALL, OPTIONS) == "go"
    assert client.asked == [{"session_id": "s", "tool_call": TOOL_CALL, "options": OPTIONS}]


async def test_a_cancelled_answer_cancels_the_turn_and_a_garbled_one_is_an_error() -> None:
    cancelled = Client(RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled")))
    with pytest.raises(PromptCancelled):
        await SessionContext(session_id="s", cwd="/tmp", client=cancelled).request_permission(TOOL_CALL, OPTIONS)
    with pytest.raises(ValueError, match="not an answer"):
        await SessionContext(session_id="s", cwd="/tmp", client=Client(object())).request_permission(TOOL_CALL, OPTIONS)
    with pytest.raises(RuntimeError, match="no client"):
        await SessionContext(session_id="s", cwd="/tmp").request_permission(TOOL_CALL, OPTIONS)
