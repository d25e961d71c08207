"""Session store drivers are chosen by name through stevedore (group ``langacp.stores``)."""

from __future__ import annotations

import pytest

from langacp.stores import SessionRecord, load_store_driver, open_store
from langacp.stores.memory import MemoryStore


def test_memory_driver_is_registered_by_entry_point() -> None:
    assert load_store_driver("memory") is MemoryStore
    assert load_store_driver("memory://anything") is MemoryStore
    assert MemoryStore.persistent is False


def test_unknown_driver_names_what_is_missing() -> None:
    with pytest.raises(ValueError, match="no session store driver 'postgres'"):
        load_store_driver("postgres://localhost/db")


async def test_memory_store_lists_newest_first_with_cwd_filter_and_paging() -> None:
    store = open_store("memory")
    for i in range(5):
        await store.put(SessionRecord(session_id=f"s{i}", cwd="/a" if i % 2 else "/b", updated_at=f"2026-01-0{i + 1}"))
    page, cursor = await store.list(limit=2)
    assert [r.session_id for r in page] == ["s4", "s3"] and cursor is not None
    page, cursor = await store.list(limit=2, cursor=cursor)
    assert [r.session_id for r in page] == ["s2", "s1"]
    page, cursor = await store.list(limit=2, cursor=cursor)
    assert [r.session_id for r in page] == ["s0"] and cursor is None
    only_a, _ = await store.list(cwd="/a")
    assert [r.session_id for r in only_a] == ["s3", "s1"]
    assert (await store.get("s2")) is not None and (await store.get("zz")) is None
