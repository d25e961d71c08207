"""The live sessions of one connection: opening one (plugins, graph), restoring, saving, closing."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp import RequestError

from langacp.agent.live_session import Session
from langacp.session_data import describe_servers, sync_record
from langacp.shared_graphs import SharedGraphs
from langacp.stores import Leases, SessionBusy, SessionRecord, SessionStore, StoreError, now_iso
from langacp.types import SessionContext

if TYPE_CHECKING:
    from langacp.agent.loader import Loader
    from langacp.plugins import Plugins
    from langacp.target import Target

__all__ = ["Session", "SessionRegistry", "check_dirs"]

log = logging.getLogger("langacp.agent")

SESSION_CLOSE_TIMEOUT = 6.0
"""Longest wait for one session's plugins to free what it holds when the agent exits."""
OPENING_GRACE = 2.0
"""When the agent exits: how long the requests opening, replaying or closing a session (``session/new``,
load, resume, fork, close, delete) may still take before they are cancelled (what they opened is closed)."""
INTERRUPTED_TEXT = "Interrupted: the agent stopped before this tool call finished."


@dataclass
class _Turns:
    """The lock of one session id's lifecycle, and how many requests hold it or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class SessionRegistry:
    """The sessions live in this connection, and the steps that open, save and close them."""

    def __init__(
        self,
        plugins: Plugins,
        loader: Loader,
        send: Callable[[str, Any], Awaitable[None]],
        send_many: Callable[[str, list[Any]], Awaitable[None]] | None = None,
    ) -> None:
        self.plugins = plugins
        self.loader = loader
        self.client: Any = None
        self.client_capabilities: Any = None
        self.client_info: Any = None
        """The client's ``clientInfo`` from ``initialize`` (``acp.schema.Implementation``), if it sent one."""
        self.protocol_version = 1  # the ACP version the connection speaks (2 once v2 is negotiated)
        self.live: dict[str, Session] = {}
        self._send = send
        self._send_many = send_many
        self._warned_unguarded = False
        self.graphs = SharedGraphs()
        """The factory's graphs compiled per configuration (``SessionSetup.create_agent``)."""
        self.leases = Leases()
        """One process serves a session at a time (see ``langacp.stores``)."""
        self._turns: dict[str, _Turns] = {}
        self.closing = False
        """The agent is exiting (:meth:`close_all`): no session opens and no request takes a session's turn."""
        self._working: dict[asyncio.Task[Any], int] = {}
        """The tasks (requests) opening a session or holding or awaiting a session's turn (nested uses counted)."""

    @contextlib.contextmanager
    def _at_work(self) -> Iterator[None]:
        """Count the current task among those :meth:`close_all` lets finish (or cancels) before it closes
        the sessions; refused (-32603) once the agent is exiting."""
        if self.closing:
            raise RequestError.internal_error({"details": "the agent is shutting down"})
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - always run in a task
            yield
            return
        self._working[task] = self._working.get(task, 0) + 1
        try:
            yield
        finally:
            left = self._working[task] - 1
            if left:
                self._working[task] = left
            else:
                del self._working[task]

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, session_id: str) -> AsyncIterator[None]:
        """Run the body alone among the requests that open, replay, start a turn in or close ``session_id``.

        They take their turns in the order they arrived (a lock per id, made on demand and dropped
        when no request holds or waits for it). Never held across a running prompt: a prompt holds it
        only while it starts its turn, so a running turn holds back no cancel, close or load.
        """
        with self._at_work():
            turns = self._turns.get(session_id)
            if turns is None:
                turns = self._turns[session_id] = _Turns()
            turns.users += 1
            try:
                async with turns.lock:
                    yield
            finally:
                turns.users -= 1
                if not turns.users:
                    del self._turns[session_id]

    def get(self, session_id: str) -> Session:
        """The live session ``session_id``; -32002 if there is none."""
        session = self.live.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    def idle(self, session_id: str) -> Session | None:
        """The live session ``session_id`` if any; -32602 if a prompt is running in it."""
        live = self.live.get(session_id)
        if live is not None and live.busy:
            raise RequestError.invalid_params({"details": "a prompt is running in this session"})
        return live

    async def open(
        self,
        record: SessionRecord,
        mcp_servers: list[Any] | None,
        *,
        created: bool,
        stored: SessionRecord | None = None,
    ) -> Session:
        """Build the session's context and graph (plugins told first), register it and store its record.

        ``stored``: a deep copy of the record as the store holds it (a restored session); the
        record is not written again when it still equals it (a commit, and an ``fsync``, saved on
        every load of a session). Equality is the dataclass's, field by field on the copy: a
        value that does not compare equal to its own copy (an object without ``__eq__`` in a
        plugin's data) counts as a change, so the record is written, never wrongly kept.
        """
        with self._at_work():
            return await self._open(record, mcp_servers, created=created, stored=stored)

    async def _open(
        self, record: SessionRecord, mcp_servers: list[Any] | None, *, created: bool, stored: SessionRecord | None
    ) -> Session:
        from langacp.bridge.tool_ids import AliasingClient, ToolCallIds
        from langacp.operations import offered, open_outbox

        target, store = await self.loader.target_and_store()
        session_id = record.session_id
        try:
            await self.leases.take(store, session_id)
        except SessionBusy as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from exc
        except BaseException:  # cancelled while taking it (the agent exiting): it may have been taken
            await self.leases.free(store, session_id)
            raise
        ids = ToolCallIds()
        context = SessionContext(
            session_id=session_id,
            cwd=record.cwd,
            additional_directories=record.additional_directories,
            mcp_servers=list(mcp_servers or []),
            client_capabilities=self.client_capabilities,
            client_info=self.client_info,
            protocol_version=self.protocol_version,
            mode_id=record.mode_id,
            title=record.title,
            stored=record.data,
            client=AliasingClient(self.client, ids) if self.client is not None else None,
            plugins=self.plugins,
        )
        many = functools.partial(self._send_many, session_id) if self._send_many is not None else None
        sink, release = open_outbox(self.plugins, context, functools.partial(self._send, session_id), many)
        record.data["langacp"] = {**record.data.get("langacp", {}), "mcp_servers": describe_servers(mcp_servers)}
        if isinstance(getattr(self.client_info, "name", None), str):
            record.client = self.client_info.name
        try:
            graph, guarded = await self._build(target, store, context, created=created)
        except BaseException:
            await self._release(context)
            await self.leases.free(store, session_id)
            raise
        session = Session(context=context, record=record, graph=graph, sink=sink, guarded=guarded, ids=ids)
        context.graph = graph
        context.new_thread = functools.partial(self.new_thread, session)
        self.live[session_id] = session
        sync_record(session.record, context)  # the context is the one truth; the record mirrors it
        if stored is None or record != stored:
            await store.put(record)
        session.offer = offered(self.plugins, context)  # asked once: for the commands and the response
        release(session.offer)
        return session

    async def restore(
        self, session_id: str, cwd: str, mcp_servers: list[Any] | None, additional_directories: list[str] | None
    ) -> tuple[Session, list[Any] | None]:
        """The session, live or restored from the store, and (if restored) its thread's messages.

        The caller holds :meth:`one_at_a_time` for ``session_id`` (until the replay is sent, for a load).
        """
        check_dirs(cwd, additional_directories)
        live = self.idle(session_id)
        if live is not None:
            return live, None
        record = await self.stored_record(await self.loader.store(), session_id)
        stored = copy.deepcopy(record)  # what the store holds, to tell whether opening changed it
        record.cwd = cwd
        if additional_directories is not None:
            record.additional_directories = list(additional_directories)
        session = await self.open(record, mcp_servers, created=False, stored=stored)
        try:
            messages = await self._repair(session)
            from langacp.replay import replayed_ids

            session.ids.used.update(replayed_ids(messages))
        except Exception as exc:
            log.exception("cannot read the thread of session %s", session_id)
            await self.close(session)
            raise unreadable(session_id, exc) from exc
        return session, messages

    async def stored_record(self, store: SessionStore, session_id: str) -> SessionRecord:
        """The stored record of ``session_id``: -32002 if there is none, a clear error if it is unreadable."""
        try:
            record = await store.get(session_id)
        except StoreError as exc:
            log.error("langacp: the record of session %s cannot be read: %s", session_id, exc)
            details = f"the stored record of session {session_id} cannot be read: {exc}"
            raise RequestError.internal_error({"details": details}) from exc
        if record is None:
            raise RequestError.resource_not_found(session_id)
        return record

    async def save(self, session: Session) -> None:
        """Store the session's record (its mode, title, thread and plugin data) as it is now."""
        sync_record(session.record, session.context)
        session.record.updated_at = now_iso()
        store = await self.loader.store()
        await store.put(session.record)

    async def new_thread(self, session: Session) -> None:
        """Give the session a fresh conversation thread (``SessionContext.new_thread``), and save it."""
        record = session.record
        # The old thread stays until the session is deleted: remember it for session/delete.
        threads = record.data.setdefault("langacp", {}).setdefault("threads", [])
        threads.append(record.thread_id or session.context.session_id)
        record.thread_id = f"{session.context.session_id}.{uuid.uuid4().hex[:12]}"
        await self.save(session)

    async def close(self, session: Session) -> None:
        """Stop its turn, tell plugins, send what is left in its outbox."""
        if session.turn is not None and session.busy:
            session.cancel_turn()
            await asyncio.gather(session.turn, return_exceptions=True)
        self.live.pop(session.context.session_id, None)
        try:
            await self.plugins.session_closed(session.context)
        except Exception:
            log.exception("a plugin failed while closing session %s", session.context.session_id)
        await session.sink.flush()
        await session.sink.aclose()
        if self.loader.ready():
            await self.leases.free(await self.loader.store(), session.context.session_id)

    async def close_all(self) -> None:
        """Cancel running prompts, let the requests opening or closing sessions end, close every session.

        A session still being loaded (or made) when the client goes is closed like the others:
        its plugins are told, its lease is given back, before the store closes. The requests
        at work get :data:`OPENING_GRACE` seconds, then are cancelled; new ones are refused.
        """
        self.closing = True
        for session in self.live.values():
            session.cancel_turn()
        await self._settle()
        sessions = list(self.live.values())
        # All at once, so that plugins stopping subprocesses (MCP servers: stdin closed, then
        # SIGTERM after 2 s) do it before the process exits, however many sessions are open.
        results = await asyncio.gather(
            *(asyncio.wait_for(self.close(s), timeout=SESSION_CLOSE_TIMEOUT) for s in sessions),
            return_exceptions=True,
        )
        for session, result in zip(sessions, results, strict=True):
            if isinstance(result, BaseException):
                log.error("closing session %s failed: %r", session.context.session_id, result)

    async def _settle(self) -> None:
        """Wait for the requests at work on sessions; cancel those still at it after :data:`OPENING_GRACE`."""
        working = set(self._working)
        if not working:
            return
        _, late = await asyncio.wait(working, timeout=OPENING_GRACE)
        for task in late:
            task.cancel()  # what it opened is freed on its way out (open's cleanup), or closed below
        if late:
            await asyncio.wait(late, timeout=SESSION_CLOSE_TIMEOUT)

    async def _build(
        self, target: Target, store: SessionStore, context: SessionContext, *, created: bool
    ) -> tuple[Any, bool]:
        """Tell plugins the session exists, collect their contributions and build the graph."""
        from langacp.middleware import core_middleware
        from langacp.protocol import client_overrides
        from langacp.target import SessionSetup

        await (self.plugins.session_created if created else self.plugins.session_loaded)(context)
        if target.is_factory:
            setup = SessionSetup(
                context,
                store.checkpointer,
                middleware=core_middleware(self.plugins, context, await self.plugins.session_middleware(context)),
                tools=await self.plugins.session_tools(context),
                system_prompt_additions=self.plugins.system_prompt_additions(context),
                graphs=self.graphs,
                replace_instructions=client_overrides(),
            )
        else:  # nothing can be inserted into a precompiled graph
            setup = SessionSetup(context, store.checkpointer, replace_instructions=client_overrides())
        graph = await target.build(setup)
        guarded = target.is_factory and setup.middleware_used
        if target.is_factory and not guarded and not self._warned_unguarded:
            self._warned_unguarded = True
            log.warning(
                "langacp: the factory %s does not use setup.middleware: permission policies are not enforced and "
                "a failing tool fails the turn. Pass setup.middleware to create_agent (or use setup.create_agent).",
                target.spec,
            )
        return graph, guarded

    async def _release(self, context: SessionContext) -> None:
        """A session failed to open: let plugins free what they started for it (servers, processes)."""
        try:
            await self.plugins.session_closed(context)
        except Exception:
            log.exception("a plugin failed while releasing session %s", context.session_id)

    async def _repair(self, session: Session) -> list[Any]:
        """Read a restored thread; tool calls a crash left without results get error results.

        Returns the thread's messages (after the repair).
        """
        from langacp.bridge.repair import repair_thread, unanswered_tool_calls

        messages = await session.messages()
        if unanswered_tool_calls(messages):
            repaired = await repair_thread(session.graph, session.config, INTERRUPTED_TEXT)
            log.warning(
                "langacp: session %s: %d interrupted tool call(s) marked failed", session.context.session_id, repaired
            )
            messages = await session.messages()
        return messages


def check_dirs(cwd: str, additional_directories: list[str] | None) -> None:
    """-32602 unless every directory is an absolute path."""
    for path in [cwd, *(additional_directories or [])]:
        if not isinstance(path, str) or not os.path.isabs(path):
            raise RequestError.invalid_params({"details": f"directories must be absolute paths: {path!r}"})


def unreadable(session_id: str, exc: BaseException) -> RequestError:
    """The error for a stored conversation that cannot be read."""
    details = f"the stored conversation of session {session_id} cannot be read: {exc}"
    return RequestError.internal_error({"details": details})
