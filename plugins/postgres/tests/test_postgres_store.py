"""The ``postgres`` driver against a real PostgreSQL server."""

from __future__ import annotations

import psycopg
import pytest

from langacp.stores import InvalidCursor, SessionRecord, StoreError, copy_thread, load_store_driver, open_store
from langacp_postgres import PostgresStore, redact


def test_driver_is_found_by_its_entry_points_and_is_persistent() -> None:
    assert load_store_driver("postgres://u@h/db") is PostgresStore
    assert load_store_driver("postgresql://u@h/db") is PostgresStore
    assert PostgresStore.persistent is True


def test_passwords_never_reach_messages() -> None:
    assert redact("postgresql://me:s3cret@db.example:5432/x") == "postgresql://me:***@db.example:5432/x"
    assert redact("postgresql://me@db/x") == "postgresql://me@db/x"


async def test_an_unreachable_server_is_a_clear_error() -> None:
    store = PostgresStore("postgresql://nobody:pw@127.0.0.1:1/none?connect_timeout=1")
    with pytest.raises(StoreError, match=r"cannot use the PostgreSQL session database postgresql://nobody:\*\*\*@"):
        await store.aopen()


async def opened(url: str) -> PostgresStore:
    store = open_store(url)
    assert isinstance(store, PostgresStore)
    await store.aopen()
    return store


async def test_records_round_trip_and_list_pages_newest_first(postgres_url: str) -> None:
    store = await opened(postgres_url)
    try:
        for i in range(5):
            record = SessionRecord(session_id=f"s{i}", cwd="/a" if i % 2 else "/b", updated_at=f"2026-01-0{i + 1}")
            record.data = {"mcp": [i]}
            await store.put(record)
        got = await store.get("s2")
        assert got is not None and got.cwd == "/b" and got.data == {"mcp": [2]}
        assert await store.get("nope") is None
        page, cursor = await store.list(limit=2)
        assert [r.session_id for r in page] == ["s4", "s3"] and cursor is not None
        page, cursor = await store.list(limit=2, cursor=cursor)
        assert [r.session_id for r in page] == ["s2", "s1"] and cursor is not None
        page, cursor = await store.list(limit=2, cursor=cursor)
        assert [r.session_id for r in page] == ["s0"] and cursor is None
        only_a, _ = await store.list(cwd="/a")
        assert [r.session_id for r in only_a] == ["s3", "s1"]
        with pytest.raises(InvalidCursor):
            await store.list(cursor="???")
    finally:
        await store.aclose()


async def test_a_corrupt_record_is_an_error_and_stays(postgres_url: str) -> None:
    store = await opened(postgres_url)
    try:
        await store.put(SessionRecord(session_id="bad", cwd="/a"))
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("UPDATE langacp_sessions SET record = '{\"session_id\": 3}' WHERE session_id = 'bad'")
        with pytest.raises(StoreError):
            await store.get("bad")
        with psycopg.connect(postgres_url, autocommit=True, client_encoding="UTF8") as conn:
            row = conn.execute("SELECT record FROM langacp_sessions WHERE session_id = 'bad'").fetchone()
        assert row == ('{"session_id": 3}',)
    finally:
        await store.aclose()


async def test_a_sql_ascii_database_works_and_a_non_utf8_record_is_an_error_naming_it(sql_ascii_url: str) -> None:
    store = await opened(sql_ascii_url)
    try:
        await store.put(SessionRecord(session_id="café", cwd="/a", title="naïve ✓"))
        assert (await store.get("café")) == SessionRecord(**{**(await store.get("café")).as_dict()})  # type: ignore[union-attr]
        listed, _ = await store.list()
        assert [(r.session_id, r.title) for r in listed] == [("café", "naïve ✓")]
        await store.put(SessionRecord(session_id="latin", cwd="/a"))
        with psycopg.connect(sql_ascii_url, autocommit=True) as conn:  # SQL_ASCII: bytes go in as they are
            conn.execute("UPDATE langacp_sessions SET record = convert_from('\\x7b22e9227d'::bytea, 'SQL_ASCII')")
        with pytest.raises(StoreError, match="session latin is not UTF-8"):
            await store.get("latin")
        listed, _ = await store.list()
        assert sorted(r.session_id for r in listed) == ["café", "latin"]  # never silently shorter
    finally:
        await store.aclose()


async def test_two_stores_open_one_database_at_once_and_fork_a_thread(postgres_url: str) -> None:
    import asyncio

    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import MessagesState, StateGraph

    first, second = await asyncio.gather(opened(postgres_url), opened(postgres_url))  # concurrent set-up
    try:
        builder = StateGraph(MessagesState)
        builder.add_node("model", lambda state: {"messages": [AIMessage("hello")]})
        builder.set_entry_point("model")
        graph = builder.compile(checkpointer=first.checkpointer)
        await graph.ainvoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "src"}})
        assert await copy_thread(second.checkpointer, "src", "dst")
        other = builder.compile(checkpointer=second.checkpointer)
        state = await other.aget_state({"configurable": {"thread_id": "dst"}})
        assert [m.text for m in state.values["messages"]] == ["hi", "hello"]
    finally:
        await first.aclose()
        await second.aclose()
