"""The ``sqlite`` driver on a real file: found by entry point, records beside checkpoints, paging."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from langacp.stores import InvalidCursor, SessionRecord, StoreError, copy_thread, load_store_driver, open_store
from langacp_sqlite import SqliteStore, database_path, default_database_path


async def opened(path: Path) -> SqliteStore:
    store = open_store(f"sqlite://{path}")
    assert isinstance(store, SqliteStore)
    await store.aopen()
    return store


def test_driver_is_found_by_its_entry_point_and_is_persistent() -> None:
    assert load_store_driver("sqlite:///tmp/x.db") is SqliteStore
    assert load_store_driver("sqlite") is SqliteStore
    assert SqliteStore.persistent is True


def test_urls_name_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert database_path("sqlite") == tmp_path / "xdg" / "langacp" / "sessions.db"
    assert database_path("sqlite://") == default_database_path()
    assert database_path("sqlite:///abs/dir/s.db") == Path("/abs/dir/s.db")
    monkeypatch.chdir(tmp_path)
    assert database_path("sqlite:rel/s.db") == tmp_path / "rel" / "s.db"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/is/ignored")
    assert database_path("sqlite") == Path.home() / ".local" / "share" / "langacp" / "sessions.db"
    with pytest.raises(ValueError, match="sqlite:///absolute"):
        database_path("sqlite://host/x.db")


async def test_records_round_trip_and_list_newest_first_with_cwd_filter_and_opaque_cursor(tmp_path: Path) -> None:
    store = await opened(tmp_path / "sub" / "s.db")  # the directory is created
    try:
        for i in range(7):
            record = SessionRecord(session_id=f"s{i}", cwd="/a" if i % 2 else "/b", updated_at=f"2026-01-0{i + 1}")
            record.title, record.data = f"title {i}", {"perm": {"always": ["add"]}}
            await store.put(record)
        got = await store.get("s3")
        assert got is not None and got.title == "title 3" and got.data == {"perm": {"always": ["add"]}}
        assert await store.get("nope") is None
        page, cursor = await store.list(limit=3)
        assert [r.session_id for r in page] == ["s6", "s5", "s4"] and cursor is not None
        assert not cursor.isdigit() and "s4" not in cursor  # opaque
        page, cursor = await store.list(limit=3, cursor=cursor)
        assert [r.session_id for r in page] == ["s3", "s2", "s1"] and cursor is not None
        page, cursor = await store.list(limit=3, cursor=cursor)
        assert [r.session_id for r in page] == ["s0"] and cursor is None
        only_a, _ = await store.list(cwd="/a")
        assert [r.session_id for r in only_a] == ["s5", "s3", "s1"]
        # An update moves a session to the front.
        assert got is not None
        got.updated_at = "2026-02-01"
        await store.put(got)
        page, _ = await store.list(limit=1)
        assert [r.session_id for r in page] == ["s3"]
        with pytest.raises(InvalidCursor):
            await store.list(cursor="definitely not ours")
    finally:
        await store.aclose()


async def test_a_corrupt_record_is_an_error_and_stays_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = await opened(path)
    await store.put(SessionRecord(session_id="good", cwd="/a", updated_at="2026-01-02"))
    await store.put(SessionRecord(session_id="bad", cwd="/a", updated_at="2026-01-01"))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE langacp_sessions SET record = '{not json' WHERE session_id = 'bad'")
    try:
        with pytest.raises(StoreError, match="not valid JSON"):
            await store.get("bad")
        listed, _ = await store.list()
        # Still listed (the list is never silently shorter), its title says why it cannot be loaded.
        assert [r.session_id for r in listed] == ["good", "bad"]
        assert listed[1].title is not None and listed[1].title.startswith("(unreadable session record")
        assert listed[1].cwd == "/a"
    finally:
        await store.aclose()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT record FROM langacp_sessions WHERE session_id = 'bad'").fetchone() == ("{not json",)


async def test_a_record_that_is_not_utf8_is_an_error_naming_the_session(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = await opened(path)
    await store.put(SessionRecord(session_id="latin", cwd="/a"))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE langacp_sessions SET record = CAST(X'7B22E9227D' AS TEXT) WHERE session_id = 'latin'")
    try:
        with pytest.raises(StoreError, match="session latin is not UTF-8"):
            await store.get("latin")
        listed, _ = await store.list()
        assert [r.session_id for r in listed] == ["latin"]
    finally:
        await store.aclose()


async def test_two_stores_share_one_file_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first, second = await opened(path), await opened(path)
    try:
        await first.put(SessionRecord(session_id="from-first", cwd="/a"))
        await second.put(SessionRecord(session_id="from-second", cwd="/a"))
        assert await second.get("from-first") is not None
        assert await first.get("from-second") is not None
    finally:
        await first.aclose()
        await second.aclose()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_a_new_file_another_process_is_setting_up_is_opened_once_it_is_done(tmp_path: Path) -> None:
    """What two agents starting on one new file meet: the other holds the write lock of a file still in
    rollback-journal mode, and SQLite refuses the switch to WAL at once rather than wait (no busy timeout)."""
    import asyncio

    import langacp_sqlite.checkpoints  # noqa: F401  # imported now: opening then reaches the file at once

    path = tmp_path / "new.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # its write lock, as while it creates its tables
    other.execute("CREATE TABLE other_setup (x)")
    asyncio.get_running_loop().call_later(0.3, other.execute, "COMMIT")
    store = await opened(path)  # the lock was released 0.3 s in: opened, not refused
    try:
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"checkpoints", "writes", "langacp_sessions", "other_setup"} <= tables
    finally:
        await store.aclose()
        other.close()


async def test_copy_thread_forks_a_checkpoint(tmp_path: Path) -> None:
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import MessagesState, StateGraph

    store = await opened(tmp_path / "s.db")
    try:
        builder = StateGraph(MessagesState)
        builder.add_node("model", lambda state: {"messages": [AIMessage("hello")]})
        builder.set_entry_point("model")
        graph = builder.compile(checkpointer=store.checkpointer)
        await graph.ainvoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "src"}})
        assert await copy_thread(store.checkpointer, "src", "dst") is True
        assert await copy_thread(store.checkpointer, "missing", "x") is False
        await graph.ainvoke({"messages": [HumanMessage("only in dst")]}, {"configurable": {"thread_id": "dst"}})
        src = await graph.aget_state({"configurable": {"thread_id": "src"}})
        dst = await graph.aget_state({"configurable": {"thread_id": "dst"}})
        assert [m.text for m in src.values["messages"]] == ["hi", "hello"]
        assert [m.text for m in dst.values["messages"]] == ["hi", "hello", "only in dst", "hello"]
    finally:
        await store.aclose()


async def test_a_file_that_is_not_a_database_is_an_error_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"these are my notes, not a database" * 100)
    store = open_store(f"sqlite://{path}")
    with pytest.raises(StoreError, match="cannot open the session database"):
        await store.aopen()  # type: ignore[attr-defined]
    assert path.read_bytes() == b"these are my notes, not a database" * 100


@pytest.mark.parametrize("returning", [True, False], ids=["take-returning", "take-then-read"])
async def test_a_lease_is_taken_when_free_ours_expired_or_its_holder_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, returning: bool
) -> None:
    """The take with ``RETURNING`` (one trip says whether it took the lease) decides as the take
    followed by reading the holder (SQLite < 3.35) does, and leaves no transaction open."""
    import os
    import socket

    from langacp.stores import lease_owner
    from langacp_sqlite import store as module

    monkeypatch.setattr(module, "_returning", lambda: returning)
    store = await opened(tmp_path / "s.db")
    me, elsewhere = lease_owner(), "elsewhere:1:abcd"  # another machine's process: never known to be gone
    dead = f"{socket.gethostname()}:{os.getpid()}:deadbeef"  # this pid, another token: a process that is gone
    try:
        assert await store.acquire("s", me, 30) is None  # free
        assert await store.acquire("s", me, 30) is None  # ours already
        assert await store.acquire("s", elsewhere, 30) == me  # held
        await store.release("s", me)
        assert await store.acquire("s", elsewhere, 30) is None
        assert await store.acquire("s", me, 30) == elsewhere
        assert await store.acquire("t", elsewhere, -1) is None  # taken, already expired
        assert await store.acquire("t", me, 30) is None
        assert await store.acquire("u", dead, 30) is None
        assert await store.acquire("u", me, 30) is None  # its holder is gone: dropped, then taken
        assert not store._conn.in_transaction
    finally:
        await store.aclose()
    with sqlite3.connect(tmp_path / "s.db") as db:
        held = sorted(db.execute("SELECT session_id, owner FROM langacp_leases"))
    assert held == [("s", elsewhere), ("t", me), ("u", me)]
