"""An ACP agent as a LangChain tool (:func:`acp_agent_tool`) or a LangGraph node (:func:`acp_node`).

The tool sends its ``prompt`` argument to the agent and returns the agent's whole answer;
cancelling the tool call cancels the agent's turn (``session/cancel``).

Inside an agent that langacp serves, the tool finds the session whose turn runs it (or takes
``session=``, a :class:`~langacp.SessionContext`) and the editor sees the
sub-agent's work **nested under the tool call that runs it**: its text as the tool call's
content, its own tool calls as tool calls whose id is ``PARENT/ID``, each carrying
``_meta.parentToolCallId`` (as Claude's ACP adapter does with ``parentToolUseId`` and
fast-agent with ``parentToolCallId``); its permission requests are asked of the editor. The
sub-agent's notifications are also written to LangGraph's custom stream
(``stream_mode="custom"``) as ``{"acp_agent": NAME, "notification": SessionNotification}``.

To an editor that advertises ACP's unstable ``clientCapabilities.subagents``, the sub-agent's
work is a **child session** instead (:mod:`langacp.bridge.subagents`): announced with
``subagent_update``, the prompt and the answer as session messages, every update of the
sub-agent's session sent as the child's. To one that advertises ``clientCapabilities.plan``
(and not subagents), the sub-agent's plan is a plan of its own, by id (the tool call's).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import inspect
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from langacp.bridge.subagents import Child
from langacp.client.connection import AcpConnection
from langacp.client.manager import ConnectionManager
from langacp.client.policy import AskAnswer, AskElse, PermissionPolicy, PermissionRequest
from langacp.protocol.capabilities import client_plans, client_subagents
from langacp.running import running_session

__all__ = ["AcpAgentTool", "AgentSpec", "acp_agent_tool", "acp_node", "default_manager"]

PARENT_META = "parentToolCallId"
FLUSH_SECONDS = 0.1
"""How often the sub-agent's growing text is sent to the editor (not once per token)."""


_default_manager: ConnectionManager | None = None


def default_manager() -> ConnectionManager:
    """The connections tools and nodes share when given no manager: one agent process per name."""
    global _default_manager
    if _default_manager is None:
        _default_manager = ConnectionManager()
        atexit.register(_default_manager.kill_all)  # no sub-agent outlives the program
    return _default_manager


@dataclass
class AgentSpec:
    """How to start an ACP agent, and how to answer it."""

    name: str
    command: Sequence[str]
    cwd: str | Path | None = None
    env: Mapping[str, str] | None = None
    handler: Any = None
    permission_policy: PermissionPolicy | None = None
    manager: ConnectionManager = field(default_factory=default_manager)

    async def connect(self) -> AcpConnection:
        """The agent's connection; what the policy's rules leave open goes where the calling session routes it.

        With no ``handler`` the agent does its own file and terminal work (a handler that serves
        none), so the connection asks for ACP v2 (an agent that answers 1 is spoken to in v1).
        """
        rules = self.permission_policy or PermissionPolicy()
        policy = PermissionPolicy(rules.allow, rules.deny, _routed_ask_else, rules.decisions)
        handler = self.handler
        if handler is None:
            from langacp.client.local import LocalHandler

            handler = LocalHandler(fs=False, terminal=False)
        return await self.manager.connect(
            self.name,
            command=self.command[0],
            args=list(self.command[1:]),
            cwd=self.cwd,
            env=self.env,
            handler=handler,
            permission_policy=policy,
        )

    @property
    def fallback(self) -> AskElse:
        return (self.permission_policy or PermissionPolicy()).ask_else


@dataclass
class _Route:
    """Where a sub-agent session's work goes: the parent session and tool call (if any), its fallback."""

    session: Any
    parent_id: str
    fallback: AskElse = "reject"
    text: list[str] = field(default_factory=list)
    flushed_at: float = 0.0
    flush: asyncio.TimerHandle | None = None
    sent: int = 0
    child: Child | None = None
    """The child session the sub-agent's work goes to (a client with ``subagents``)."""

    @property
    def nested(self) -> bool:
        return self.session is not None and bool(self.parent_id)

    async def open_child(self, name: str, prompt: str) -> None:
        """Announce a child session for the sub-agent's work, when the parent's client shows them."""
        caps = getattr(self.session, "client_capabilities", None)
        if not self.nested or self.session.send_update is None or not client_subagents(caps):
            return
        self.child = Child(self.session, self.parent_id)
        for update in self.child.started(name, prompt):
            await self.session.send_update(update)

    async def close_child(self, answer: str, stop_reason: str) -> None:
        if self.child is None:
            return
        with contextlib.suppress(Exception):  # a closed parent session must not fail the tool
            for update in self.child.finished(answer, stop_reason):
                await self.session.send_update(update)


_ROUTES: dict[str, _Route] = {}
"""Sub-agent session id → the call running in it (session ids are unique per agent process)."""


async def _routed_ask_else(request: PermissionRequest) -> AskAnswer:
    """A request no rule decided: ask the parent's editor (nested calls), else the tool's fallback."""
    route = _ROUTES.get(request.session_id)
    if route is None:
        return "reject"
    client = getattr(route.session, "client", None)
    if not route.nested or client is None:
        if callable(route.fallback):
            answer = route.fallback(request)
            return await answer if inspect.isawaitable(answer) else answer
        return route.fallback
    call = request.tool_call.model_copy(
        update={"tool_call_id": f"{route.parent_id}/{request.tool_call.tool_call_id}", "field_meta": _meta(route)}
    )
    response = await client.request_permission(
        options=request.options, session_id=route.session.session_id, tool_call=call
    )
    outcome = response.outcome
    return getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None


class AcpAgentInput(BaseModel):
    prompt: str = Field(description="The task or question for the agent, with everything it needs to know.")


_CALL_ID: ContextVar[str | None] = ContextVar("langacp_acp_agent_tool_call_id", default=None)


class AcpAgentTool(BaseTool):
    """A LangChain tool that delegates to an ACP agent (see :func:`acp_agent_tool`)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    args_schema: type[BaseModel] = AcpAgentInput
    spec: AgentSpec
    session: Any = None
    """The langacp session to forward progress and permissions to; by default the one whose turn runs the tool."""
    new_session_per_call: bool = False
    """A fresh sub-agent session per call (default: one conversation across calls)."""
    _session_id: str | None = PrivateAttr(default=None)
    _lock: asyncio.Lock | None = PrivateAttr(default=None)

    def _run(self, *args: Any, **kwargs: Any) -> str:
        raise NotImplementedError("acp_agent_tool is async: use ainvoke / an async graph")

    async def arun(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
        # The model's tool call id, when called with a ToolCall (as agents do): the parent of nested updates.
        token = _CALL_ID.set(kwargs.get("tool_call_id"))
        try:
            return await super().arun(tool_input, *args, **kwargs)
        finally:
            _CALL_ID.reset(token)

    async def _arun(self, prompt: str, **_: Any) -> str:
        tool_call_id = _CALL_ID.get()
        session = self.session if self.session is not None else running_session()
        conn = await self.spec.connect()
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # one turn at a time in this tool's session
            session_id = await self._open(conn, session)
            route = _Route(session, tool_call_id or "", self.spec.fallback)
            await route.open_child(self.name, prompt)
            _ROUTES[session_id] = route
            remove = conn.add_listener(_forwarder(route, self.name), session_id)
            stop = "cancelled"
            try:
                result = await conn.prompt(session_id, prompt)
                stop = result.stop_reason
            finally:
                remove()
                _ROUTES.pop(session_id, None)
                if route.nested:
                    await _flush(route)
                await route.close_child(result.text if stop != "cancelled" else "", stop)
        if result.stop_reason != "end_turn":
            return f"{result.text}\n[the agent stopped: {result.stop_reason}]".strip()
        return result.text

    async def _open(self, conn: AcpConnection, session: Any) -> str:
        if self._session_id is not None and not self.new_session_per_call and self._session_id in conn.sessions:
            return self._session_id
        cwd = self.spec.cwd or getattr(session, "cwd", None) or Path.cwd()
        self._session_id = (await conn.new_session(cwd)).session_id
        return self._session_id

    async def aclose(self) -> None:
        """End the sub-agent process (and so every session of it)."""
        await self.spec.manager.disconnect(self.spec.name)


# -- forwarding a sub-agent's work to the parent session ---------------------------------------


def _forwarder(route: _Route, name: str) -> Callable[[Any], Any]:
    writer = _stream_writer()

    async def forward(note: Any) -> None:
        if writer is not None:
            writer({"acp_agent": name, "notification": note})
        if not route.nested or route.session.send_update is None:
            return
        update = note.update
        kind = update.session_update
        if kind == "user_message_chunk":  # ACP v2 echoes the prompt the tool sent (v1 does not): shown already
            return
        if route.child is not None:  # the sub-agent's session, shown as the child's
            await route.session.send_update(route.child.own(update))
        elif kind == "plan" and client_plans(getattr(route.session, "client_capabilities", None)):
            from langacp.protocol import plan_update

            await route.session.send_update(plan_update(route.parent_id, list(update.entries)))
        elif kind == "agent_message_chunk":
            text = getattr(update.content, "text", None)
            if isinstance(text, str):
                route.text.append(text)
                _schedule(route)
        elif kind in ("tool_call", "tool_call_update"):
            nested = update.model_copy(
                update={"tool_call_id": f"{route.parent_id}/{update.tool_call_id}", "field_meta": _meta(route)}
            )
            await route.session.send_update(nested)

    return forward


def _schedule(route: _Route) -> None:
    if route.flush is not None:
        return
    wait = max(0.0, route.flushed_at + FLUSH_SECONDS - time.monotonic())
    loop = asyncio.get_running_loop()
    route.flush = loop.call_later(wait, lambda: asyncio.ensure_future(_flush(route)))


async def _flush(route: _Route) -> None:
    if route.flush is not None:
        route.flush.cancel()
        route.flush = None
    route.flushed_at = time.monotonic()
    if len(route.text) == route.sent or route.session.send_update is None:
        return
    from acp import text_block, tool_content, update_tool_call

    route.sent = len(route.text)
    update = update_tool_call(route.parent_id, content=[tool_content(text_block("".join(route.text)))])
    update.field_meta = _meta(route)
    with contextlib.suppress(Exception):  # a closed parent session must not fail the tool
        await route.session.send_update(update)


async def _finish(route: _Route, status: Literal["completed", "failed"]) -> None:
    from acp import update_tool_call

    with contextlib.suppress(Exception):  # a closed parent session must not fail the node
        await route.session.send_update(update_tool_call(route.parent_id, status=status))


def _meta(route: _Route) -> dict[str, Any]:
    return {PARENT_META: route.parent_id}


def _stream_writer() -> Callable[[Any], None] | None:
    """LangGraph's custom stream writer when running inside a graph, else ``None``."""
    try:
        from langgraph.config import get_stream_writer

        return get_stream_writer()
    except (ImportError, RuntimeError, KeyError):  # not inside a graph run
        return None


def acp_agent_tool(
    name: str,
    *,
    command: Sequence[str],
    description: str,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    handler: Any = None,
    permission_policy: PermissionPolicy | None = None,
    session: Any = None,
    manager: ConnectionManager | None = None,
    new_session_per_call: bool = False,
) -> AcpAgentTool:
    """A LangChain tool named ``name`` that sends its ``prompt`` to the ACP agent ``command``.

    The agent is spawned on first use; tools (and nodes) of the same ``name`` share its process
    (:func:`default_manager`, or ``manager``), each tool instance with its own session, one
    conversation across its calls unless ``new_session_per_call``. ``permission_policy``'s rules
    answer its permission requests; what they leave open is asked of the editor when the tool
    runs in a langacp session's turn (or ``session`` is given) and the model called the tool,
    else answered by the policy's ``ask_else``.
    """
    spec = AgentSpec(name, list(command), cwd, env, handler, permission_policy, manager or default_manager())
    return AcpAgentTool(
        name=name, description=description, spec=spec, session=session, new_session_per_call=new_session_per_call
    )


def acp_node(
    name: str,
    *,
    command: Sequence[str],
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    handler: Any = None,
    permission_policy: PermissionPolicy | None = None,
    manager: ConnectionManager | None = None,
    input_key: str = "messages",
    output_key: str = "messages",
    prompt: Callable[[Mapping[str, Any]], str] | None = None,
) -> Callable[[Mapping[str, Any]], Any]:
    """A LangGraph node that sends ``state[input_key]`` (text, or the last message's text) to an ACP agent.

    ``prompt(state)``, when given, builds the prompt instead. The node returns
    ``{output_key: [AIMessage(answer, name=name)]}`` when ``output_key`` is ``"messages"``, else
    ``{output_key: answer}``. One sub-agent session per graph thread. In a graph langacp serves,
    the editor sees the node's run as a tool call named ``name``, the sub-agent's work nested
    under it, and is asked the sub-agent's permission requests.
    """
    spec = AgentSpec(name, list(command), cwd, env, handler, permission_policy, manager or default_manager())
    sessions: dict[str, str] = {}

    async def node(state: Mapping[str, Any]) -> dict[str, Any]:
        from langchain_core.messages import AIMessage, BaseMessage

        value = prompt(state) if prompt is not None else state[input_key]
        if isinstance(value, (list, tuple)):
            last = value[-1]
            text = last.text if isinstance(last, BaseMessage) else str(last)
        else:
            text = str(value)
        conn = await spec.connect()
        session = running_session()
        thread = _thread_id()
        session_id = sessions.get(thread)
        if session_id is None or session_id not in conn.sessions:
            cwd = spec.cwd or getattr(session, "cwd", None) or Path.cwd()
            session_id = (await conn.new_session(cwd)).session_id
            sessions[thread] = session_id
        route = _Route(session, "", spec.fallback)
        if session is not None and session.send_update is not None:
            # Served by langacp: the node's run is shown as a tool call, the sub-agent's work nested under it.
            from acp import start_tool_call

            route.parent_id = f"{name}-{uuid.uuid4().hex[:12]}"
            await session.send_update(
                start_tool_call(route.parent_id, name, kind="other", status="in_progress", raw_input={"prompt": text})
            )
            await route.open_child(name, text)
        _ROUTES[session_id] = route
        remove = conn.add_listener(_forwarder(route, name), session_id)
        status: Literal["completed", "failed"] = "failed"
        stop = "cancelled"
        try:
            result = await conn.prompt(session_id, text)
            stop = result.stop_reason
            status = "completed" if stop == "end_turn" else "failed"
        finally:
            remove()
            _ROUTES.pop(session_id, None)
            if route.nested:
                await _flush(route)
                await route.close_child(result.text if stop != "cancelled" else "", stop)
                await _finish(route, status)
        if output_key == "messages":
            return {output_key: [AIMessage(content=result.text, name=name)]}
        return {output_key: result.text}

    node.__name__ = name
    node.manager = spec.manager  # type: ignore[attr-defined] # so a caller can dispose of it
    return node


def _thread_id() -> str:
    try:
        from langgraph.config import get_config

        return str((get_config().get("configurable") or {}).get("thread_id") or "")
    except (ImportError, RuntimeError, KeyError):
        return ""
