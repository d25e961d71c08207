"""The ACP agent: session lifecycle on the official SDK, everything else through plugins.

A plain class with the SDK's snake_case methods (not a subclass of ``acp.Agent``, so a method
we do not offer answers -32601). Keys of ``_meta`` arrive as extra keyword arguments: they
are ignored, never trusted.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
import os
import re
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from langacp import __version__
from langacp.operations import caused_by_cancel
from langacp.plugins import Plugins
from langacp.stores import (
    InvalidCursor,
    SessionRecord,
    SessionStore,
    StoreError,
    copy_thread,
    load_store_driver,
    now_iso,
    open_store,
)
from langacp.types import SessionContext, TurnOutcome

if TYPE_CHECKING:
    from acp.interfaces import Client

    from langacp.bridge import UpdateSink
    from langacp.target import DriverTarget, Target

__all__ = ["LangacpAgent"]

log = logging.getLogger("langacp.agent")

DEFAULT_RECURSION_LIMIT = 1000
SESSION_CLOSE_TIMEOUT = 6.0
"""Longest wait for one session's plugins to free what it holds when the agent exits."""
INTERRUPTED_TEXT = "Interrupted: the agent stopped before this tool call finished."

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def serving(method: str) -> Callable[[F], F]:
    """Turn any exception a handler raises into a JSON-RPC error through ``langacp_map_error``."""

    def decorate(handler: F) -> F:
        @functools.wraps(handler)
        async def wrapper(self: LangacpAgent, *args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(self, *args, **kwargs)
            except (RequestError, asyncio.CancelledError):
                raise
            except Exception as exc:
                log.exception("error while serving %s", method)
                raise self.plugins.map_error(exc, method) from exc

        return cast(F, wrapper)

    return decorate


@dataclass
class Session:
    """A live session: its context, its compiled graph, its update outbox, its running turn."""

    context: SessionContext
    record: SessionRecord
    graph: Any
    sink: UpdateSink
    guarded: bool = False
    """Built by a factory, so the core's tool guard runs inside the graph."""
    turn: asyncio.Task[PromptResponse] | None = None
    cancellable: bool = False
    """The turn is running the graph; once it is cleaning up, a cancel must not interrupt it."""

    @property
    def busy(self) -> bool:
        """A prompt turn is running (or cleaning up)."""
        return self.turn is not None and not self.turn.done()

    def cancel_turn(self) -> None:
        """Stop the running turn; it still answers its prompt (``cancelled``)."""
        if self.turn is not None and self.busy and self.cancellable:
            self.cancellable = False
            self.turn.cancel()

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.record.thread_id or self.context.session_id}}


class LangacpAgent:
    """Serves a LangGraph target over ACP. One instance per connection."""

    def __init__(
        self,
        target_spec: str | DriverTarget | None,
        plugins: Plugins,
        *,
        store_url: str = "memory",
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
    ) -> None:
        self.target_spec = target_spec
        self.plugins = plugins
        self.store_url = store_url
        self.recursion_limit = recursion_limit
        self.client: Client | None = None
        self.client_capabilities: Any = None
        self.sessions: dict[str, Session] = {}
        self._ready: asyncio.Task[tuple[Target, SessionStore]] | None = None
        self._store_persistent: bool | None = None
        self._closing = False
        self._warned_unguarded = False

    # -- SDK wiring ----------------------------------------------------------------------------

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    def warm_up(self) -> None:
        """Start importing the target and opening the store in the background (idempotent)."""
        if self._ready is None:
            self._ready = asyncio.get_running_loop().create_task(self._load(), name="langacp.load")
            self._ready.add_done_callback(_log_load_failure)

    async def _load(self) -> tuple[Target, SessionStore]:
        # A short pause lets the initialize response leave before the imports hold the GIL.
        await asyncio.sleep(0.01)
        from langacp.target import DriverTarget, load_target_driver

        if isinstance(self.target_spec, DriverTarget):
            spec = self.target_spec
            target = await (await asyncio.to_thread(load_target_driver, spec.driver)).load(spec)
        else:
            target = await asyncio.to_thread(self._load_target)
        store = target.store if target.store is not None else await asyncio.to_thread(open_store, self.store_url)
        opener = getattr(store, "aopen", None)
        if opener is not None:  # drivers whose connection must be made on the event loop
            await opener()
        if not target.is_factory and getattr(target.graph, "checkpointer", None) is None:
            target.graph = target.graph.copy(update={"checkpointer": store.checkpointer})
        if target.notice:
            log.warning("langacp: %s", target.notice)
        elif not target.is_factory:
            log.warning(
                "langacp: %s is a precompiled graph: plugins cannot add middleware or tools to it, so "
                "permission policies and modes are not enforced before its tools run (only its own "
                "HumanInTheLoopMiddleware interrupts reach the editor). Serve a factory to get them.",
                target.spec,
            )
        return target, store

    def _load_target(self) -> Target:
        from langacp.target import load_target

        if not self.target_spec or not isinstance(self.target_spec, str):
            raise RequestError.internal_error({"details": "no TARGET to serve"})
        return load_target(self.target_spec)

    async def _target_and_store(self) -> tuple[Target, SessionStore]:
        self.warm_up()
        assert self._ready is not None
        try:
            return await asyncio.shield(self._ready)
        except RequestError:
            raise
        except Exception as exc:
            raise RequestError.internal_error({"details": f"cannot load the agent: {exc}"}) from exc

    def _persistent(self) -> bool:
        if self._store_persistent is None:
            from langacp.target import DriverTarget, load_target_driver

            try:
                if isinstance(self.target_spec, DriverTarget):  # the target keeps its own sessions
                    self._store_persistent = bool(load_target_driver(self.target_spec.driver).persistent)
                    return self._store_persistent
                self._store_persistent = bool(load_store_driver(self.store_url).persistent)
            except Exception:
                log.exception("langacp: cannot load session store driver for %r", self.store_url)
                self._store_persistent = False
        return self._store_persistent

    # -- initialize / authenticate -------------------------------------------------------------

    @serving("initialize")
    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **_: Any
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        capabilities = AgentCapabilities(
            load_session=self._persistent(),
            prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
            mcp_capabilities=McpCapabilities(http=False, sse=False),
            session_capabilities=SessionCapabilities(
                list=SessionListCapabilities(),
                close=SessionCloseCapabilities(),
                resume=SessionResumeCapabilities(),
                fork=SessionForkCapabilities(),
            ),
        )
        self.plugins.agent_capabilities(capabilities)
        self.warm_up()
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=capabilities,
            auth_methods=self.plugins.auth_methods(),
            agent_info=Implementation(name="langacp", title="langacp", version=__version__),
        )

    @serving("authenticate")
    async def authenticate(self, method_id: str, **_: Any) -> None:
        ok = await self.plugins.authenticate(method_id)
        if ok is None:
            raise RequestError.invalid_params({"details": f"unknown auth method {method_id!r}"})
        if not ok:
            raise RequestError.auth_required({"details": f"authentication with {method_id!r} failed"})

    # -- sessions ------------------------------------------------------------------------------

    @serving("session/new")
    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> NewSessionResponse:
        _check_dirs(cwd, additional_directories)
        record = SessionRecord(
            session_id=uuid.uuid4().hex, cwd=cwd, additional_directories=list(additional_directories or [])
        )
        session = await self._open(record, mcp_servers, created=True)
        return NewSessionResponse(
            session_id=record.session_id,
            modes=self.plugins.session_modes(session.context),
            config_options=self.plugins.config_options(session.context) or None,
        )

    @serving("session/load")
    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **_: Any,
    ) -> LoadSessionResponse:
        session, messages = await self._restore(session_id, cwd, mcp_servers, additional_directories, "session/load")
        from langacp.replay import replay_messages

        try:
            if messages is None:  # the session was live: not read from storage by _restore
                messages = await _thread_messages(session)
            replay_messages(self.plugins, session.context, messages, session.sink)
        except Exception as exc:
            log.exception("cannot replay session %s", session_id)
            await self._close(session)
            raise RequestError.internal_error(
                {"details": f"the stored conversation of session {session_id} cannot be read: {exc}"}
            ) from exc
        await session.sink.flush()
        return LoadSessionResponse(
            modes=self.plugins.session_modes(session.context),
            config_options=self.plugins.config_options(session.context) or None,
        )

    @serving("session/resume")
    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> Any:
        from acp.schema import ResumeSessionResponse

        session, _messages = await self._restore(session_id, cwd, mcp_servers, additional_directories, "session/resume")
        return ResumeSessionResponse(
            modes=self.plugins.session_modes(session.context),
            config_options=self.plugins.config_options(session.context) or None,
        )

    async def _restore(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[Any] | None,
        additional_directories: list[str] | None,
        method: str,
    ) -> tuple[Session, list[Any] | None]:
        """The session, live or restored from the store, and (if restored) its thread's messages."""
        _check_dirs(cwd, additional_directories)
        live = self.sessions.get(session_id)
        if live is not None:
            if live.busy:
                raise RequestError.invalid_params({"details": "a prompt is running in this session"})
            return live, None
        _target, store = await self._target_and_store()
        record = await self._stored_record(store, session_id)
        record.cwd = cwd
        if additional_directories is not None:
            record.additional_directories = list(additional_directories)
        session = await self._open(record, mcp_servers, created=False)
        try:
            messages = await self._repair(session)
        except Exception as exc:
            log.exception("cannot read the thread of session %s", session_id)
            await self._close(session)
            raise RequestError.internal_error(
                {"details": f"the stored conversation of session {session_id} cannot be read: {exc}"}
            ) from exc
        return session, messages

    async def _stored_record(self, store: SessionStore, session_id: str) -> SessionRecord:
        """The stored record of ``session_id``: -32002 if there is none, a clear error if it is unreadable."""
        try:
            record = await store.get(session_id)
        except StoreError as exc:
            log.error("langacp: the record of session %s cannot be read: %s", session_id, exc)
            raise RequestError.internal_error(
                {"details": f"the stored record of session {session_id} cannot be read: {exc}"}
            ) from exc
        if record is None:
            raise RequestError.resource_not_found(session_id)
        return record

    async def _repair(self, session: Session) -> list[Any]:
        """Read a restored thread; tool calls a crash left without results get error results.

        Returns the thread's messages (after the repair).
        """
        from langacp.bridge import repair_thread, unanswered_tool_calls

        messages = await _thread_messages(session)
        if unanswered_tool_calls(messages):
            repaired = await repair_thread(session.graph, session.config, INTERRUPTED_TEXT)
            log.warning(
                "langacp: session %s: %d interrupted tool call(s) marked failed", session.context.session_id, repaired
            )
            messages = await _thread_messages(session)
        return messages

    @serving("session/fork")
    async def fork_session(
        self,
        cwd: str,
        session_id: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> Any:
        """A new session holding a copy of ``session_id``'s conversation; the two then diverge."""
        from acp.schema import ForkSessionResponse

        _check_dirs(cwd, additional_directories)
        target, store = await self._target_and_store()
        live = self.sessions.get(session_id)
        if live is not None and live.busy:
            raise RequestError.invalid_params({"details": "a prompt is running in this session"})
        source = live.record if live is not None else await self._stored_record(store, session_id)
        record = SessionRecord(
            session_id=uuid.uuid4().hex,
            cwd=cwd,
            additional_directories=list(additional_directories or []),
            title=source.title,
            mode_id=source.mode_id,
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
        session = await self._open(record, mcp_servers, created=True)
        return ForkSessionResponse(
            session_id=record.session_id,
            modes=self.plugins.session_modes(session.context),
            config_options=self.plugins.config_options(session.context) or None,
        )

    async def _open(self, record: SessionRecord, mcp_servers: list[Any] | None, *, created: bool) -> Session:
        from langacp.operations import open_outbox

        target, store = await self._target_and_store()
        session_id = record.session_id
        context = SessionContext(
            session_id=session_id,
            cwd=record.cwd,
            additional_directories=record.additional_directories,
            mcp_servers=list(mcp_servers or []),
            client_capabilities=self.client_capabilities,
            mode_id=record.mode_id,
            client=self.client,
            plugins=self.plugins,
        )
        sink, release = open_outbox(self.plugins, context, lambda update: self._send_update(session_id, update))
        context.state["record"] = record
        record.data["langacp"] = {**record.data.get("langacp", {}), "mcp_servers": _describe_servers(mcp_servers)}
        try:
            graph, guarded = await self._build(target, store, context, created=created)
        except BaseException:
            await self._release(context)
            raise
        session = Session(context=context, record=record, graph=graph, sink=sink, guarded=guarded)
        context.graph = graph
        context.new_thread = functools.partial(self._new_thread, session)
        self.sessions[session_id] = session
        await store.put(record)
        release()
        return session

    async def _build(
        self, target: Target, store: SessionStore, context: SessionContext, *, created: bool
    ) -> tuple[Any, bool]:
        """Tell plugins the session exists, collect their contributions and build the graph."""
        from langacp.middleware import ToolGuardMiddleware
        from langacp.target import SessionSetup

        if created:
            await self.plugins.session_created(context)
        else:
            await self.plugins.session_loaded(context)
        if target.is_factory:
            setup = SessionSetup(
                context,
                store.checkpointer,
                middleware=[
                    ToolGuardMiddleware(self.plugins, context),
                    *await self.plugins.session_middleware(context),
                ],
                tools=await self.plugins.session_tools(context),
                system_prompt_additions=self.plugins.system_prompt_additions(context),
            )
        else:  # nothing can be inserted into a precompiled graph
            setup = SessionSetup(context, store.checkpointer)
        graph = await target.build(setup)
        guarded = target.is_factory and setup.middleware_used
        if target.is_factory and not guarded and not self._warned_unguarded:
            self._warned_unguarded = True
            log.warning(
                "langacp: the factory %s does not use setup.middleware: permission policies are not "
                "enforced and a failing tool fails the turn. Pass setup.middleware to create_agent "
                "(or use setup.create_agent).",
                target.spec,
            )
        return graph, guarded

    async def _release(self, context: SessionContext) -> None:
        """A session failed to open: let plugins free what they started for it (servers, processes)."""
        try:
            await self.plugins.session_closed(context)
        except Exception:
            log.exception("a plugin failed while releasing session %s", context.session_id)

    async def _send_update(self, session_id: str, update: Any) -> None:
        if self.client is None:
            return
        await self.client.session_update(session_id=session_id, update=update)

    @serving("session/list")
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        if cwd is not None and not os.path.isabs(cwd):
            raise RequestError.invalid_params({"details": f"cwd must be an absolute path: {cwd!r}"})
        _target, store = await self._target_and_store()
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

    @serving("session/close")
    async def close_session(self, session_id: str, **_: Any) -> None:
        session = self._session(session_id)
        await self._close(session)

    async def _close(self, session: Session) -> None:
        if session.turn is not None and session.busy:
            session.cancel_turn()
            await asyncio.gather(session.turn, return_exceptions=True)
        self.sessions.pop(session.context.session_id, None)
        try:
            await self.plugins.session_closed(session.context)
        except Exception:
            log.exception("a plugin failed while closing session %s", session.context.session_id)
        await session.sink.flush()
        await session.sink.aclose()

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    # -- modes and config ----------------------------------------------------------------------

    @serving("session/set_mode")
    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        from langacp.operations import change_mode

        session = self._session(session_id)
        await change_mode(self.plugins, session.context, session.sink, mode_id)
        session.record.mode_id = mode_id
        await self._save(session)
        return SetSessionModeResponse()

    @serving("session/set_config_option")
    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        ok = await self.plugins.set_config_option(session.context, config_id, value)
        if ok is None:
            raise RequestError.invalid_params({"details": f"unknown config option {config_id!r}"})
        if not ok:
            raise RequestError.invalid_params({"details": f"invalid value for {config_id!r}: {value!r}"})
        await self._save(session)
        return SetSessionConfigOptionResponse(config_options=self.plugins.config_options(session.context))

    async def _new_thread(self, session: Session) -> None:
        """Give the session a fresh conversation thread (``SessionContext.new_thread``), and save it."""
        session.record.thread_id = f"{session.context.session_id}.{uuid.uuid4().hex[:12]}"
        await self._save(session)

    async def _save(self, session: Session) -> None:
        session.record.updated_at = now_iso()
        _target, store = await self._target_and_store()
        await store.put(session.record)

    # -- prompt and cancel ---------------------------------------------------------------------

    @serving("session/prompt")
    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.busy:
            raise RequestError.invalid_params(
                {"details": "a prompt is already running in this session; cancel it or wait for it to end"}
            )
        if self._closing:
            raise RequestError.internal_error({"details": "the agent is shutting down"})
        session.turn = asyncio.get_running_loop().create_task(self._turn(session, prompt), name="langacp.turn")
        try:
            return await asyncio.shield(session.turn)
        except asyncio.CancelledError:
            # The connection is closing: stop the turn too.
            session.cancel_turn()
            raise

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel_turn()

    async def _turn(self, session: Session, prompt: list[Any]) -> PromptResponse:
        from langchain_core.messages import HumanMessage

        from langacp.bridge import TurnRunner
        from langacp.middleware import RUNNER_KEY
        from langacp.operations import end_turn, prompt_content

        context = session.context
        if not prompt:
            raise RequestError.invalid_params({"details": "the prompt is empty"})
        command = await self._slash_command(session, prompt)
        if command is not None:
            return command
        content = prompt_content(self.plugins, context, prompt)
        outcome = TurnOutcome()
        runner = TurnRunner(self.plugins, context, session.sink, session.graph, guarded=session.guarded)
        context.state[RUNNER_KEY] = runner
        config: dict[str, Any] = {**session.config, "recursion_limit": self.recursion_limit}
        session.cancellable = True
        try:
            await self.plugins.prompt_started(context, prompt)
            await runner.run({"messages": [HumanMessage(content=content)]}, config, outcome)
        except asyncio.CancelledError:
            outcome.cancelled = True
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # handled: the clean-up below must be able to await
        except Exception as exc:  # noqa: BLE001 - reported to the client below
            if caused_by_cancel(exc):
                outcome.cancelled = True
            else:
                outcome.error = exc
        finally:
            session.cancellable = False
        stop_reason, usage = await end_turn(
            self.plugins, context, session.sink, runner, graph=session.graph, config=session.config
        )
        await self._save(session)
        if outcome.error is not None and stop_reason == "end_turn":
            log.error("turn failed in session %s", context.session_id, exc_info=outcome.error)
            raise self.plugins.map_error(outcome.error, "session/prompt")
        return PromptResponse(stop_reason=stop_reason, usage=usage)

    async def _slash_command(self, session: Session, prompt: list[Any]) -> PromptResponse | None:
        first = prompt[0] if prompt else None
        text = getattr(first, "text", None) if getattr(first, "type", None) == "text" else None
        if not text or not text.startswith("/"):
            return None
        name, _, argument = text[1:].partition(" ")
        if not _COMMAND_NAME.fullmatch(name):
            return None  # "/usr/bin …" is not a command
        # Every plugin may answer, offered command or not: a commands plugin answers unknown ones.
        reply = await self.plugins.run_command(session.context, name, argument.strip())
        if reply is None:
            return None  # no plugin ran it: the prompt goes to the model
        if reply:
            from acp import update_agent_message_text

            session.sink.put(update_agent_message_text(reply))
        await session.sink.flush()
        await self._save(session)  # a command may have changed the session (its title, …)
        return PromptResponse(stop_reason="end_turn")

    # -- errors and shutdown -------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Cancel running prompts and close every session (stdin EOF or a signal)."""
        self._closing = True
        sessions = list(self.sessions.values())
        for session in sessions:
            session.cancel_turn()
        # All at once, so that plugins stopping subprocesses (MCP servers: stdin closed, then
        # SIGTERM after 2 s) do it before the process exits, however many sessions are open.
        results = await asyncio.gather(
            *(asyncio.wait_for(self._close(s), timeout=SESSION_CLOSE_TIMEOUT) for s in sessions),
            return_exceptions=True,
        )
        for session, result in zip(sessions, results, strict=True):
            if isinstance(result, BaseException):
                log.error("closing session %s failed: %r", session.context.session_id, result)
        if self._ready is not None and self._ready.done() and not self._ready.exception():
            _, store = self._ready.result()
            try:
                await asyncio.wait_for(store.aclose(), timeout=1.0)
            except Exception:
                log.exception("closing the session store failed")


_COMMAND_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*")


def _check_dirs(cwd: str, additional_directories: list[str] | None) -> None:
    for path in [cwd, *(additional_directories or [])]:
        if not isinstance(path, str) or not os.path.isabs(path):
            raise RequestError.invalid_params({"details": f"directories must be absolute paths: {path!r}"})


async def _thread_messages(session: Session) -> list[Any]:
    """The messages of the session's thread (none if its graph has no checkpointer)."""
    if getattr(session.graph, "checkpointer", None) is None:
        return []  # a factory that ignores setup.checkpointer: nothing is stored
    state = await session.graph.aget_state(session.config)
    messages: list[Any] = (state.values or {}).get("messages") or []
    return messages


def _describe_servers(servers: list[Any] | None) -> list[dict[str, Any]]:
    """The session's MCP servers as stored: names, commands and URLs; of env vars and headers only the names."""
    described = []
    for server in servers or []:
        data = server.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(server, "model_dump") else {}
        for secret in ("env", "headers"):
            if isinstance(data.get(secret), list):
                data[secret] = [item.get("name") for item in data[secret] if isinstance(item, dict)]
        described.append(data)
    return described


def _log_load_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("langacp: cannot load the agent: %s", task.exception())
