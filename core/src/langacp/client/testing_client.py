"""A recording test client on the SDK's client side: keeps every update, answers permissions.

Used by the tests, the benchmarks and plugin authors (through ``langacp.testing``); programs
use :class:`~langacp.client.AcpConnection`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import IO, Any

from acp import spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from langacp.client.policy import PermissionRequest

__all__ = ["PermissionRequest", "RecordingClient", "spawn_agent", "update_text"]

PermissionAnswer = Callable[["PermissionRequest"], str | None]
"""Picks an option id for a permission request (``None`` answers ``cancelled``)."""


@dataclass
class RecordingClient:
    """Records every ``session/update`` and answers permission requests with ``answer``.

    ``answer`` is an option kind to pick (``"allow_once"``, ``"reject_once"``, …), a callable,
    or ``None`` to answer ``cancelled``.
    """

    answer: str | PermissionAnswer | None = "allow_once"
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permission_requests: list[PermissionRequest] = field(default_factory=list)
    notifications: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Extension notifications received: (method without its leading ``_``, params)."""
    _changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        async with self._condition():
            self._condition().notify_all()

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        self.notifications.append((method, params))

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **_: Any
    ) -> RequestPermissionResponse:
        request = PermissionRequest(session_id, tool_call, options)
        self.permission_requests.append(request)
        if callable(self.answer):
            option_id = self.answer(request)
        elif self.answer is None:
            option_id = None
        else:
            option_id = next((o.option_id for o in options if o.kind == self.answer), None)
        if option_id is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id))

    async def wait_for(self, predicate: Callable[[list[tuple[str, Any]]], bool], timeout: float = 10.0) -> None:
        """Wait until ``predicate(self.updates)`` holds."""
        cond = self._condition()

        async def _wait() -> None:
            async with cond:
                await cond.wait_for(lambda: predicate(self.updates))

        await asyncio.wait_for(_wait(), timeout)

    def of(self, session_id: str, kind: str | None = None) -> list[Any]:
        """This session's updates, optionally only those of one ``sessionUpdate`` kind."""
        return [u for s, u in self.updates if s == session_id and (kind is None or u.session_update == kind)]

    def text(self, session_id: str, kind: str = "agent_message_chunk") -> str:
        """The concatenated text of a session's message (or thought) chunks."""
        return "".join(update_text(u) for u in self.of(session_id, kind))


def update_text(update: Any) -> str:
    content = getattr(update, "content", None)
    return getattr(content, "text", "") or ""


@asynccontextmanager
async def spawn_agent(
    command: Sequence[str],
    client: Any,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stderr: IO[Any] | int | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    """Spawn ``command`` and connect ``client`` to it over its stdin/stdout.

    The agent's stderr goes to ``stderr`` (default: ours). The SDK's own default is a pipe
    nobody reads, which blocks a chatty agent.
    """
    target = stderr if stderr is not None else sys.stderr
    async with spawn_agent_process(
        client,
        command[0],
        *command[1:],
        env=env,
        cwd=cwd,
        transport_kwargs={"stderr": target, "limit": 50 * 1024 * 1024},
        use_unstable_protocol=True,
    ) as (conn, process):
        yield conn, process
