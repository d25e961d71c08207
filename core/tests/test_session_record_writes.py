"""A restored session's record is written back only when opening it changed something.

``session/load`` compares the record after the plugins' session hooks with a deep copy of it as
read (the dataclass's equality, field by field): a change anywhere in it, down to a value
changed in place inside a plugin's data, is written; a value that does not equal its own copy
(an object without ``__eq__``) counts as a change, so it is written rather than wrongly kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langacp.agent import LangacpAgent
from langacp.api import SessionContext, hookimpl
from langacp.plugins import Plugins


class Opaque:
    """Plugin data without ``__eq__``: equal only to itself."""


class Changing:
    """Changes the session's stored data as it is loaded, in the way ``how`` says."""

    def __init__(self, how: str) -> None:
        self.how = how

    @hookimpl
    def langacp_session_loaded(self, session: SessionContext) -> None:
        if self.how == "in place":  # deep inside a plugin's data, in place
            session.stored.setdefault("probe", {"counts": [0]})["counts"][0] += 1
        elif self.how == "opaque":
            session.stored["probe"] = {"object": Opaque()}


class Quiet:
    async def session_update(self, **_: Any) -> None:
        return None


async def _writes_per_load(tmp_path: Path, how: str, loads: int = 3) -> tuple[list[int], Any]:
    plugins = Plugins()
    plugins.register(Changing(how), name="changing")
    agent = LangacpAgent("langacp.testing.agent:agent", plugins, store_url="memory")
    agent.on_connect(Quiet())  # type: ignore[arg-type]
    await agent.initialize(protocol_version=1)
    session_id = (await agent.new_session(cwd=str(tmp_path))).session_id
    await agent.close_session(session_id=session_id)
    store = await agent.loader.store()
    written: list[Any] = []
    put = store.put

    async def counting_put(record: Any) -> None:
        written.append(record)
        await put(record)

    store.put = counting_put  # type: ignore[method-assign]
    counts = []
    for _ in range(loads):
        before = len(written)
        await agent.load_session(cwd=str(tmp_path), session_id=session_id)
        await agent.close_session(session_id=session_id)
        counts.append(len(written) - before)
    record = await store.get(session_id)
    await agent.shutdown()
    return counts, record


async def test_a_load_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    counts, _ = await _writes_per_load(tmp_path, "nothing")
    assert counts == [0, 0, 0]


async def test_a_change_in_place_deep_in_a_plugins_data_is_written(tmp_path: Path) -> None:
    counts, record = await _writes_per_load(tmp_path, "in place")
    assert counts == [1, 1, 1]
    assert record.data["probe"] == {"counts": [3]}


@pytest.mark.parametrize("loads", [2])
async def test_a_value_that_cannot_be_compared_is_written_not_kept(tmp_path: Path, loads: int) -> None:
    counts, record = await _writes_per_load(tmp_path, "opaque", loads)
    assert counts == [1] * loads
    assert isinstance(record.data["probe"]["object"], Opaque)
