"""The session methods: ``session/new``, ``load``, ``resume``, ``fork``, ``list`` and ``close``."""

from __future__ import annotations

import copy
import logging
import os
import uuid
from typing import Any

from acp import RequestError
from acp.schema import (
    ForkSessionResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    ResumeSessionResponse,
    SessionInfo,
)

from langacp.agent.registry import SessionRegistry, check_dirs, unreadable
from langacp.agent.responses import session_response
from langacp.session_data import sync_record
from langacp.stores import InvalidCursor, SessionRecord, StoreError, copy_thread, now_iso, session_threads

__all__ = ["SessionMethods"]

log = logging.getLogger("langacp.agent")


class SessionMethods:
    """Opens, restores, copies, lists and closes sessions of one connection."""

    def __init__(self, registry: SessionRegistry) -> None:
        self.registry = registry
        self.plugins = registry.plugins

    async def new(
        self, cwd: str, additional_directories: list[str] | None, mcp_servers: list[Any] | None
    ) -> NewSessionResponse:
        check_dirs(cwd, additional_directories)
        record = SessionRecord(
            session_id=uuid.uuid4().hex, cwd=cwd, additional_directories=list(additional_directories or [])
        )
        session = await self.registry.open(record, mcp_servers, created=True)
        offer = session.take_offer()  # nothing ran since it opened
        return session_response(NewSessionResponse, self.plugins, session.context, offer, session_id=record.session_id)

    async def load(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None, additional_directories: list[str] | None
    ) -> LoadSessionResponse:
        """Restore the session and replay its conversation to the client.

        Alone among the requests for ``session_id`` until the replay is sent: two loads at once open
        the session once and replay it twice, one replay after the other; a prompt sent with it
        starts after the replay.
        """
        async with self.registry.one_at_a_time(session_id):
            return await self._load(cwd, session_id, mcp_servers, additional_directories)

    async def _load(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None, additional_directories: list[str] | None
    ) -> LoadSessionResponse:
        from langacp.replay import replay_messages, replay_questions

        session, messages = await self.registry.restore(session_id, cwd, mcp_servers, additional_directories)
        try:
            if messages is None:  # the session was live: not read from storage by restore()
                messages = await session.messages()
            session.ids.reset()  # the replay sends (and so registers) every id again
            replay_messages(self.plugins, session.context, messages, session.sink)
            replay_questions(self.plugins, session.context, session.paused, session.sink)
        except Exception as exc:
            log.exception("cannot replay session %s", session_id)
            await self.registry.close(session)
            raise unreadable(session_id, exc) from exc
        await session.sink.flush()
        session.take_offer()  # gathered before the replay (or by an earlier request): asked again
        return session_response(LoadSessionResponse, self.plugins, session.context)

    async def resume(
        self, session_id: str, cwd: str, additional_directories: list[str] | None, mcp_servers: list[Any] | None
    ) -> ResumeSessionResponse:
        """Restore the session without replaying it."""
        async with self.registry.one_at_a_time(session_id):
            session, _messages = await self.registry.restore(session_id, cwd, mcp_servers, additional_directories)
        session.take_offer()  # the thread was read since: asked again
        return session_response(ResumeSessionResponse, self.plugins, session.context)

    async def fork(
        self, cwd: str, session_id: str, additional_directories: list[str] | None, mcp_servers: list[Any] | None
    ) -> ForkSessionResponse:
        """A new session holding a copy of ``session_id``'s conversation; the two then diverge."""
        check_dirs(cwd, additional_directories)
        async with self.registry.one_at_a_time(session_id):  # the source is not opened nor closed meanwhile
            target, store = await self.registry.loader.target_and_store()
            live = self.registry.idle(session_id)
            if live is not None:
                sync_record(live.record, live.context)  # what its plugins hold now
            source = live.record if live is not None else await self.registry.stored_record(store, session_id)
            record = SessionRecord(
                session_id=uuid.uuid4().hex,
                cwd=cwd,
                additional_directories=list(additional_directories or []),
                title=source.title,
                mode_id=live.context.mode_id if live is not None else source.mode_id,
                data=copy.deepcopy(source.data),
            )
            fork_thread = getattr(store, "fork_thread", None)
            if fork_thread is not None:  # a store that copies threads itself (a server's threads)
                record.thread_id = await fork_thread(source.thread_id or session_id)
            else:
                checkpointer = live.graph.checkpointer if live is not None else None
                if checkpointer is None:
                    checkpointer = store.checkpointer if target.is_factory else target.graph.checkpointer
                await copy_thread(checkpointer, source.thread_id or session_id, record.session_id)
        session = await self.registry.open(record, mcp_servers, created=True)
        offer = session.take_offer()  # nothing ran since it opened
        return session_response(ForkSessionResponse, self.plugins, session.context, offer, session_id=record.session_id)

    async def list_sessions(self, cwd: str | None, cursor: str | None) -> ListSessionsResponse:
        if cwd is not None and not os.path.isabs(cwd):
            raise RequestError.invalid_params({"details": f"cwd must be an absolute path: {cwd!r}"})
        store = await self.registry.loader.store()
        try:
            records, next_cursor = await store.list(cwd=cwd, cursor=cursor)
        except InvalidCursor as exc:
            raise RequestError.invalid_params({"details": f"invalid cursor {cursor!r}"}) from exc
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=r.session_id,
                    cwd=r.cwd,
                    title=r.title,
                    updated_at=r.updated_at,
                    additional_directories=r.additional_directories or None,
                )
                for r in records
            ],
            next_cursor=next_cursor,
        )

    async def delete(self, session_id: str) -> None:
        """Close the session if it is open, remove its threads and its record; an unknown id is no error."""
        if not self.registry.loader.deletable():
            raise RequestError.method_not_found("session/delete")
        async with self.registry.one_at_a_time(session_id):
            target, store = await self.registry.loader.target_and_store()
            live = self.registry.live.get(session_id)
            if live is not None:
                await self.registry.close(live)
            try:
                record = await store.get(session_id)
            except StoreError:
                record = None  # unreadable: still delete what can be deleted
            if record is None and live is None:
                return
            checkpointer = store.checkpointer if target.is_factory else target.graph.checkpointer
            if hasattr(checkpointer, "adelete_thread"):  # else a server's threads: its store's delete removes them
                for thread in session_threads(session_id, record or (live.record if live is not None else None)):
                    await checkpointer.adelete_thread(thread)
            await store.delete(session_id)  # type: ignore[attr-defined] # deletable() checked it

    async def status(self, session_id: str) -> str:
        """``open`` (live in this process) or ``saved`` (stored); -32002 for an unknown id. No side effect."""
        if session_id in self.registry.live:
            return "open"
        await self.registry.stored_record(await self.registry.loader.store(), session_id)
        return "saved"

    async def set_title(self, session_id: str, title: str) -> str:
        """Store ``title`` (on one line, at most 256 characters) for a live or stored session; the title stored."""
        text = " ".join(title.split())[:256]
        if not text:
            raise RequestError.invalid_params({"details": "the title is empty"})
        async with self.registry.one_at_a_time(session_id):
            live = self.registry.live.get(session_id)
            if live is not None:
                live.context.title = text
                await self.registry.save(live)
                return text
            store = await self.registry.loader.store()
            record = await self.registry.stored_record(store, session_id)
            record.title, record.updated_at = text, now_iso()
            await store.put(record)
        return text

    async def close(self, session_id: str) -> None:
        """Close the live session (after a load or resume of it that arrived first has finished)."""
        async with self.registry.one_at_a_time(session_id):
            await self.registry.close(self.registry.get(session_id))
