"""Session store drivers are chosen by name through stevedore (group ``langacp.stores``)."""

from __future__ import annotations

import json

import pytest

from langacp.stores import (
    InvalidCursor,
    SessionRecord,
    StoreError,
    decode_cursor,
    encode_cursor,
    load_store_driver,
    open_store,
    record_from_json,
)
from langacp.stores.memory import MemoryStore


def test_memory_driver_is_registered_by_entry_point() -> None:
    assert load_store_driver("memory") is MemoryStore
    assert load_store_driver("memory://anything") is MemoryStore
    assert MemoryStore.persistent is False


def test_unknown_driver_names_what_is_missing() -> None:
    with pytest.raises(ValueError, match="no session store driver 'nosuch'"):
        load_store_driver("nosuch://localhost/db")


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


async def test_memory_store_refuses_a_cursor_it_did_not_hand_out() -> None:
    store = open_store("memory")
    with pytest.raises(InvalidCursor):
        await store.list(cursor="abc")


def test_cursors_are_opaque_and_round_trip() -> None:
    cursor = encode_cursor("2026-01-01T00:00:00.000Z", "s1")
    assert "s1" not in cursor and decode_cursor(cursor) == ("2026-01-01T00:00:00.000Z", "s1")
    for bad in ("", "!!", encode_cursor("a", "b")[:-2] + "zz"):
        with pytest.raises(InvalidCursor):
            decode_cursor(bad)


def test_records_from_json_reject_what_is_not_a_record() -> None:
    record = SessionRecord(session_id="s", cwd="/a", title="t", data={"x": {"y": 1}})
    assert record_from_json("s", json.dumps(record.as_dict())) == record
    for raw in ("{", "[]", '{"session_id": "s"}', json.dumps({**record.as_dict(), "data": []})):
        with pytest.raises(StoreError):
            record_from_json("s", raw)
    with pytest.raises(StoreError, match="holds session id"):
        record_from_json("other", json.dumps(record.as_dict()))
