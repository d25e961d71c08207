"""``langacp.testing.agent:shared_model_agent``: one model for every session, the same turns as ``agent``.

The benchmark's open-sessions rows serve it (the bare graph shares one model too); what it may
differ in from the per-session factory is only the ids of the model's tool calls.
"""

from __future__ import annotations

import re
from typing import Any

from langacp.testing.harness import serve

PROMPTS = ["echo hi", 'tool add {"a": 2, "b": 3}', "think it over", "parallel", "fail oops", "transcript"]
PLUGINS = ["tools", "modes", "titles", "client-tools", "usage", "plans", "stop-reasons"]


async def _turns(target: str) -> list[list[Any]]:
    """Each of two sessions' updates, as JSON, for :data:`PROMPTS` (tool call ids kept)."""
    async with serve(f"langacp.testing.agent:{target}", plugins=PLUGINS) as agent:
        await agent.initialize()
        sessions = [await agent.start(), await agent.start()]
        for sid in sessions:
            for text in PROMPTS:
                assert await agent.prompt(sid, text) == "end_turn"
        return [[u.model_dump(mode="json", by_alias=True) for u in agent.client.of(sid)] for sid in sessions]


_VARYING = [
    (re.compile(r"call_\d+"), "call_N"),  # the model's tool call ids
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "UUID"),  # message and run ids
    (re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z"), "TIME"),
]


def _without_ids(updates: list[Any]) -> str:
    """The updates, with what differs between any two runs (and the tool call ids) taken out."""
    text = repr(updates)
    for pattern, stand_in in _VARYING:
        text = pattern.sub(stand_in, text)
    return text


async def test_the_shared_model_plays_the_same_turns_in_every_session() -> None:
    own = await _turns("agent")
    shared = await _turns("shared_model_agent")
    assert [_without_ids(s) for s in shared] == [_without_ids(s) for s in own]
    assert _without_ids(own[0]) == _without_ids(own[1])  # the prompts' turns do not depend on the session
    ids = [set(re.findall(r"call_\d+", repr(s))) for s in shared]
    assert ids[0] and ids[1] and not ids[0] & ids[1]  # the one difference: the ids run on
    assert [set(re.findall(r"call_\d+", repr(s))) for s in own] == [ids[0], ids[0]]
