"""A graph on a LangGraph Server, driven the way langacp's bridge drives a local one.

:class:`RemoteGraph` offers the few methods the bridge and the session lifecycle call on a
compiled graph (``astream``, ``aget_state``, ``aupdate_state``, ``nodes``, ``checkpointer``),
on top of the SDK's ``runs.stream`` and ``threads`` calls. What the server streams as JSON is
turned back into LangChain messages and ``Interrupt`` objects, so the same bridge and the same
plugins map a remote turn as a local one.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import APIConnectionError, APITimeoutError, ConflictError, NotFoundError

__all__ = [
    "RUN_CONTEXT",
    "SERVER_STREAM_MODES",
    "RemoteGraph",
    "RemoteRunError",
    "RemoteUnavailable",
    "ThreadBusy",
    "thread_id",
    "to_message",
]

log = logging.getLogger("langacp.remote")

SERVER_STREAM_MODES = ("messages", "updates", "custom")
"""Stream modes passed on to the server when the bridge asks for them (it has no ``tools`` mode)."""
CANCEL_TIMEOUT = 5.0

RUN_CONTEXT: ContextVar[dict[str, Any] | None] = ContextVar("langacp_remote_run_context", default=None)
"""The ``context`` of the runs the current prompt turn starts (the session's config options);
set by the ``remote`` plugin when the turn starts, in the turn's task."""


class RemoteUnavailable(ConnectionError):
    """The LangGraph Server cannot be reached (down, or the connection was lost mid-run)."""


class ThreadBusy(RuntimeError):
    """Another run is active on the session's thread (a prompt from another process)."""


class RemoteRunError(RuntimeError):
    """The server reported an error in the run (the graph raised)."""


@dataclass
class StateSnapshot:
    """The part of a thread's state langacp reads: its values, messages as LangChain messages, and the
    interrupts it is paused on (a question waiting for the user)."""

    values: dict[str, Any] = field(default_factory=dict)
    next: tuple[str, ...] = ()
    interrupts: tuple[Any, ...] = ()


_MESSAGE_CLASSES: dict[str, Any] | None = None


def _classes() -> dict[str, Any]:
    global _MESSAGE_CLASSES
    if _MESSAGE_CLASSES is None:
        from langchain_core import messages as m

        _MESSAGE_CLASSES = {
            "ai": m.AIMessage,
            "AIMessageChunk": m.AIMessageChunk,
            "human": m.HumanMessage,
            "HumanMessageChunk": m.HumanMessageChunk,
            "tool": m.ToolMessage,
            "ToolMessageChunk": m.ToolMessageChunk,
            "system": m.SystemMessage,
            "SystemMessageChunk": m.SystemMessageChunk,
            "remove": m.RemoveMessage,
        }
    return _MESSAGE_CLASSES


def to_message(data: Any) -> Any:
    """A LangChain message from the JSON the server sends (anything else is returned as it is)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("type"), str):
        return data
    cls = _classes().get(data["type"])
    if cls is None:
        return data
    fields = {k: v for k, v in data.items() if k != "type"}
    if data["type"] == "AIMessageChunk":  # a chunk derives its tool calls from its chunks
        fields.pop("tool_calls", None)
        fields.pop("invalid_tool_calls", None)
    try:
        return cls(**fields)
    except Exception:  # a message we cannot read is passed on as data, not fatal
        log.debug("cannot read a %s message from the server", data["type"], exc_info=True)
        return data


_THREAD_NAMESPACE = uuid.UUID("1c6f5b0e-2f4b-4d7e-9a59-6c1b0c6a7e21")


def thread_id(value: str) -> str:
    """The server's thread id for a langacp thread id: the canonical UUID form.

    The server keys checkpoints by the string it was given, so one spelling is used
    everywhere; an id that is not a UUID (``/clear`` names the new thread ``<session>.<n>``)
    maps to a stable UUID derived from it.
    """
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return str(uuid.uuid5(_THREAD_NAMESPACE, value))


def _thread_of(config: Mapping[str, Any]) -> str:
    return thread_id(str(config["configurable"]["thread_id"]))


def _to_interrupt(data: Any) -> Any:
    from langgraph.types import Interrupt

    if not isinstance(data, Mapping):
        return data
    return Interrupt(value=data.get("value"), id=str(data.get("id") or ""))


def _convert_update(update: Any) -> Any:
    """A node's update with its messages as LangChain messages."""
    if not isinstance(update, Mapping):
        return update
    converted = dict(update)
    messages = converted.get("messages")
    if isinstance(messages, list):
        converted["messages"] = [to_message(m) for m in messages]
    elif isinstance(messages, Mapping):
        converted["messages"] = to_message(messages)
    return converted


def convert_updates(data: Any) -> dict[str, Any]:
    """An ``updates`` stream part as a local graph yields it: messages and interrupts as objects."""
    if not isinstance(data, Mapping):
        return {}
    out: dict[str, Any] = {}
    for node, update in data.items():
        if node == "__interrupt__":
            items = update if isinstance(update, list) else [update]
            out[node] = tuple(_to_interrupt(i) for i in items)
        else:
            out[node] = _convert_update(update)
    return out


class RemoteGraph:
    """One assistant of a LangGraph Server, used as the session's compiled graph.

    A prompt is a run on the session's thread (``multitask_strategy="reject"``: a second
    prompt on a busy thread fails with :class:`ThreadBusy` instead of queueing); cancelling
    the task that consumes :meth:`astream` cancels the run on the server and waits for it.
    """

    checkpointer: Any = "server"
    """The server keeps every thread's checkpoints (a marker: langacp reads state through this class)."""

    def __init__(
        self,
        client: LangGraphClient,
        url: str,
        assistant_id: str,
        graph_id: str,
        nodes: Sequence[str],
        *,
        context_schema: Mapping[str, Any] | None = None,
        context_defaults: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.url = url
        self.assistant_id = assistant_id
        self.graph_id = graph_id
        self.nodes: dict[str, None] = dict.fromkeys(nodes)
        self.context_schema = context_schema
        """The JSON schema of the run context the graph reads (``context_schema``), if it declares one."""
        self.context_defaults = dict(context_defaults or {})
        """The assistant's own context values."""

    def _unavailable(self, exc: BaseException) -> RemoteUnavailable:
        return RemoteUnavailable(f"the LangGraph server at {self.url} is unreachable ({type(exc).__name__}: {exc})")

    async def astream(
        self, graph_input: Any, config: Mapping[str, Any], *, stream_mode: Sequence[str] = ("updates",)
    ) -> AsyncIterator[tuple[str, Any]]:
        """Run the assistant on the config's thread; yields ``(mode, data)`` like ``Pregel.astream``."""
        from langgraph.types import Command

        thread_id = _thread_of(config)
        modes = [m for m in stream_mode if m in SERVER_STREAM_MODES]
        if "updates" not in modes:
            modes.append("updates")  # interrupts and complete messages arrive there
        server_modes = ["messages-tuple" if m == "messages" else m for m in modes]
        command: dict[str, Any] | None = None
        if isinstance(graph_input, Command):
            command = {"resume": graph_input.resume}
            graph_input = None
        run_config: dict[str, Any] = {}
        if config.get("recursion_limit"):
            run_config["recursion_limit"] = config["recursion_limit"]
        run_id: str | None = None
        runs: Any = self.client.runs  # the SDK's overloads do not take a computed list of modes
        try:
            async for part in runs.stream(
                thread_id,
                self.assistant_id,
                input=graph_input,
                command=command,
                stream_mode=server_modes,
                config=run_config or None,
                context=RUN_CONTEXT.get(),
                multitask_strategy="reject",
                on_disconnect="cancel",
                if_not_exists="create",
            ):
                event = part.event
                if event == "metadata":
                    run_id = (part.data or {}).get("run_id") if isinstance(part.data, dict) else None
                    continue
                if event == "error":
                    raise RemoteRunError(_error_text(part.data))
                mode = event.split("|", 1)[0]
                if "|" in event and mode != "messages":
                    continue  # a subgraph's updates: not the agent's own steps
                if mode == "messages" and isinstance(part.data, (list, tuple)) and len(part.data) == 2:
                    message, metadata = part.data
                    yield "messages", (to_message(message), metadata if isinstance(metadata, dict) else {})
                elif mode == "updates":
                    yield "updates", convert_updates(part.data)
                elif mode == "custom":
                    yield "custom", part.data
        except asyncio.CancelledError:
            if run_id is not None:
                await asyncio.shield(self._cancel(thread_id, run_id))
            raise
        except ConflictError as exc:
            raise ThreadBusy(
                "another prompt is running on this session's thread (from another langacp process or "
                "client); wait for it to end or cancel it there"
            ) from exc
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc

    async def _cancel(self, thread_id: str, run_id: str) -> None:
        """Cancel the run on the server and wait until the thread is free again."""
        try:
            await asyncio.wait_for(
                self.client.runs.cancel(thread_id, run_id, wait=True, action="interrupt"), CANCEL_TIMEOUT
            )
        except Exception as exc:  # noqa: BLE001 - the turn ends cancelled either way
            log.warning("langacp-remote: cancelling run %s on thread %s failed: %s", run_id, thread_id, exc)

    async def aget_state(self, config: Mapping[str, Any]) -> StateSnapshot:
        """The thread's current values (``messages`` as LangChain messages)."""
        thread_id = _thread_of(config)
        try:
            state = await self.client.threads.get_state(thread_id)
        except NotFoundError:
            return StateSnapshot()
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc
        values = state.get("values") if isinstance(state, dict) else None
        if not isinstance(values, dict):
            return StateSnapshot()
        converted = dict(values)
        if isinstance(converted.get("messages"), list):
            converted["messages"] = [to_message(m) for m in converted["messages"]]
        pending = [i for task in state.get("tasks") or () for i in (task.get("interrupts") or ())]
        interrupts = tuple(_to_interrupt(i) for i in pending)
        return StateSnapshot(values=converted, next=tuple(state.get("next") or ()), interrupts=interrupts)

    async def aupdate_state(self, config: Mapping[str, Any], values: Any, as_node: str | None = None) -> None:
        """Write ``values`` to the thread as if node ``as_node`` had returned them."""
        thread_id = _thread_of(config)
        try:
            thread = await self.client.threads.get(thread_id)
            if thread.get("status") == "busy":
                # A run (from another process) is using the thread: its open tool calls are running,
                # not interrupted. Leave it alone.
                log.info("langacp-remote: thread %s is busy; its state is left as it is", thread_id)
                return
            await self.client.threads.update_state(thread_id, values, as_node=as_node)
        except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
            raise self._unavailable(exc) from exc


def _error_text(data: Any) -> str:
    if isinstance(data, Mapping):
        kind = data.get("error") or "error"
        message = data.get("message") or ""
        return f"the graph failed on the server: {kind}: {message}".rstrip(": ")
    return f"the graph failed on the server: {data}"
