"""The client's ``clientInfo`` reaches each session: ``SessionContext.client_info``, the saved record's ``client``."""

from __future__ import annotations

import pytest
from acp.schema import Implementation

from langacp.stores import SessionRecord, StoreError
from langacp.testing.harness import serve_in_process


async def test_client_info_reaches_the_session_and_its_record() -> None:
    async with serve_in_process() as agent:
        await agent.conn.initialize(protocol_version=1, client_info=Implementation(name="info-editor", version="9.1"))
        sid = await agent.new_session()
        assert await agent.prompt(sid, "echo hi") == "end_turn"
        registry = agent.process.agent.registry  # type: ignore[attr-defined]
        context = registry.live[sid].context
        assert (context.client_info.name, context.client_info.version) == ("info-editor", "9.1")
        record = await (await registry.loader.store()).get(sid)
        assert record is not None and record.client == "info-editor"


async def test_without_client_info_the_session_has_none() -> None:
    async with serve_in_process() as agent:
        await agent.initialize()
        sid = await agent.new_session()
        registry = agent.process.agent.registry  # type: ignore[attr-defined]
        assert registry.live[sid].context.client_info is None
        assert registry.live[sid].record.client is None


def test_records_without_a_client_still_load_and_a_bad_one_is_refused() -> None:
    old = SessionRecord("s", "/tmp").as_dict()
    del old["client"]
    assert SessionRecord.from_dict(old).client is None
    with pytest.raises(StoreError, match="client"):
        SessionRecord.from_dict({**old, "client": 3})
