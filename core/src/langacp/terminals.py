"""Processes a plugin runs itself, shown to the client as terminals while they run (ACP v2).

A plugin that runs a command of its own (not in the client's terminal) reports its life here,
the same way whichever ACP version the session's client speaks::

    terminal = await open_terminal(session, command, cwd, tool_call_id=call_id, cancel=stop.set)
    await terminal.output(chunk)  # bytes the process wrote, as they come
    await terminal.exited(exit_code=0)  # or signal="SIGTERM"

On an ACP v2 connection (``session.protocol_version >= 2``) these are the agent-owned
terminal's ``terminal_update`` (created with its command and cwd; exited with its
``exitStatus``) and ``terminal_output_chunk`` s, the tool call ``tool_call_id`` shows the
terminal, and while it runs a ``cancel`` callback is offered to the client as
``terminal/cancel``. ACP v1 has no agent-owned terminals (its terminals are the client's):
there nothing is sent and the plugin's tool result says what the command did, as before.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

__all__ = ["AgentTerminal", "TerminalEvent", "cancel_terminal", "open_terminal"]

DEFAULT_OUTPUT_LIMIT = 50_000

M = TypeVar("M")


class SessionContext(Protocol):
    """What this module uses of a ``langacp.api.SessionContext`` (a leaf: it imports none of langacp)."""

    protocol_version: int
    send_update: Callable[[Any], Awaitable[None]] | None

    def scratch(self, model: type[M], factory: Callable[[], M] | None = None) -> M: ...


@dataclass(frozen=True)
class TerminalEvent:
    """One step of an agent-owned terminal's life, queued in the session's outbox like any update.

    The v2 wire mapping sends it as ``terminal_update`` / ``terminal_output_chunk``; only sessions
    of a v2 client are sent any (:func:`open_terminal`).
    """

    terminal_id: str
    command: str | None = None
    cwd: str | None = None
    chunk: bytes | None = None
    """Output bytes appended (a ``terminal_output_chunk``)."""
    output: bytes | None = None
    """The output kept, replacing what was shown (sent when more was written than was streamed)."""
    detached: bool = False
    """The tool returned and the process runs on in the background (until it exits)."""
    exited: bool = False
    exit_code: int | None = None
    signal: str | None = None
    cancellable: bool | None = None
    """``True``: the client may cancel it now; ``False``: no longer; ``None``: unchanged."""


@dataclass
class _Live:
    """A session's terminals that may still be cancelled, by id (``session.scratch(_Live)``)."""

    running: dict[str, AgentTerminal] = field(default_factory=dict)


class AgentTerminal:
    """One process a plugin runs, reported to the session's client (made by :func:`open_terminal`)."""

    def __init__(
        self,
        session: SessionContext,
        terminal_id: str,
        *,
        shown: bool,
        limit: int,
        cancel: Callable[[], object] | None,
    ) -> None:
        self.session = session
        self.terminal_id = terminal_id
        self.shown = shown
        """The client is shown it (a v2 client); otherwise every method does nothing."""
        self.running = True
        self.cancelled = False
        """The client cancelled it (``terminal/cancel``)."""
        self.detached = False
        """Its tool returned while it runs on (:meth:`detach`)."""
        self._limit = max(1, limit)
        self._written = 0
        self._streamed = 0
        self._tail = bytearray()
        self._cancel = cancel

    async def output(self, data: bytes) -> None:
        """The process wrote ``data``: streamed up to the output limit, then kept for the final update."""
        if not self.shown or not self.running or not data:
            return
        self._tail += data
        if len(self._tail) > self._limit:
            del self._tail[: len(self._tail) - self._limit]
        self._written += len(data)
        room = self._limit - self._streamed
        if room > 0:
            chunk = bytes(data[:room])
            self._streamed += len(chunk)
            await self._send(TerminalEvent(self.terminal_id, chunk=chunk))

    async def exited(self, exit_code: int | None = None, signal: str | None = None) -> None:
        """The process ended (with ``exit_code``, or killed by ``signal``, e.g. ``"SIGTERM"``); once."""
        if not self.running:
            return
        self.running = False
        if not self.shown:
            return
        self.session.scratch(_Live).running.pop(self.terminal_id, None)
        output = None
        if self._written > self._streamed:  # the client saw the start: show it the end that was kept
            output = bytes(self._tail)
            while output and (output[0] & 0xC0) == 0x80:  # not from inside a UTF-8 character
                output = output[1:]
        self._tail = bytearray()
        await self._send(
            TerminalEvent(
                self.terminal_id,
                output=output,
                exited=True,
                exit_code=exit_code,
                signal=signal,
                cancellable=False if self._cancel is not None else None,
            )
        )

    async def detach(self) -> None:
        """Its tool returned, the process runs on: background work of the session until :meth:`exited`."""
        if self.shown and self.running and not self.detached:
            self.detached = True
            await self._send(TerminalEvent(self.terminal_id, detached=True))

    def cancel(self) -> bool:
        """Run the plugin's ``cancel`` (the client asked); ``False`` when it has none or has exited."""
        if not self.running or self._cancel is None:
            return False
        self.cancelled = True
        self._cancel()
        return True

    async def _send(self, event: TerminalEvent) -> None:
        if self.session.send_update is not None:
            await self.session.send_update(event)


async def open_terminal(
    session: SessionContext,
    command: str,
    cwd: str,
    *,
    tool_call_id: str | None = None,
    cancel: Callable[[], object] | None = None,
    output_limit: int = DEFAULT_OUTPUT_LIMIT,
) -> AgentTerminal:
    """Report a process the plugin started: ``command`` running in ``cwd`` (an absolute path).

    ``tool_call_id``: the tool call that runs it (the one a tool gets through ``InjectedToolCallId``)
    shows the terminal. ``cancel``: called on the event loop when the client cancels the terminal
    (make it quick: set an event, cancel a task); the plugin stops the process and still calls
    :meth:`AgentTerminal.exited`. ``output_limit``: the most output bytes streamed to the client;
    past it the final update carries the last ``output_limit`` bytes instead. Call
    :meth:`~AgentTerminal.exited` for every terminal opened, also when the tool is cancelled.
    """
    shown = session.protocol_version >= 2 and session.send_update is not None
    terminal = AgentTerminal(session, f"terminal-{uuid.uuid4().hex}", shown=shown, limit=output_limit, cancel=cancel)
    if not shown:
        return terminal
    if cancel is not None:
        session.scratch(_Live).running[terminal.terminal_id] = terminal
    await terminal._send(
        TerminalEvent(terminal.terminal_id, command=command, cwd=cwd, cancellable=True if cancel else None)
    )
    if tool_call_id and session.send_update is not None:
        from acp import tool_terminal_ref, update_tool_call

        await session.send_update(update_tool_call(tool_call_id, content=[tool_terminal_ref(terminal.terminal_id)]))
    return terminal


def cancel_terminal(session: SessionContext, terminal_id: str) -> bool:
    """The client cancels ``session``'s terminal ``terminal_id``; ``False``: unknown, exited or not cancellable."""
    terminal = session.scratch(_Live).running.get(terminal_id)
    return terminal is not None and terminal.cancel()
