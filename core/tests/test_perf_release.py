"""A closed session is released: its graph, context and outbox are garbage once it is closed.

What ``nox -s bench`` reports as KB kept per closed session, checked by outcome, not by time.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from langacp.agent import LangacpAgent
from langacp.plugins import load_plugins


class _Quiet:
    """A client that takes every update and sends nothing back."""

    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, **_: Any) -> None:
        self.updates += 1


@pytest.mark.parametrize("attr", ["agent", "graph"])
async def test_a_closed_session_is_released(attr: str, tmp_path: Path) -> None:
    agent = LangacpAgent(f"langacp.testing.agent:{attr}", load_plugins(autoload=False), store_url="memory")
    client = _Quiet()
    agent.on_connect(client)  # type: ignore[arg-type]
    await agent.initialize(protocol_version=1)
    refs: list[weakref.ref[Any]] = []
    for _ in range(3):
        session_id = (await agent.new_session(cwd=str(tmp_path))).session_id
        response = await agent.prompt(session_id=session_id, prompt=[text_block('tool add {"a": 1, "b": 2}')])
        assert response.stop_reason == "end_turn"
        session = agent.registry.live[session_id]
        refs += [weakref.ref(session), weakref.ref(session.context), weakref.ref(session.sink)]
        if attr == "agent":  # a precompiled graph is shared by every session, by design
            refs.append(weakref.ref(session.graph))
        del session
        await agent.close_session(session_id=session_id)
    await asyncio.sleep(0)  # let the outboxes' sender tasks finish
    gc.collect()
    assert client.updates > 0
    assert agent.registry.live == {}
    alive = [ref() for ref in refs if ref() is not None]
    assert alive == [], f"still referenced after close: {[type(obj).__name__ for obj in alive]}"
    await agent.shutdown()
