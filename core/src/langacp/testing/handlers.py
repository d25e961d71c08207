"""A handler for :class:`langacp.client.AcpConnection` in tests: it keeps what the agent sent.

    handler = CollectingHandler()
    async with AcpConnection(handler) as conn:
        ...
    assert [u.status for u in handler.tool_updates("call_0")][-1] == "completed"

It serves no ``fs`` or ``terminal`` by default: ACP v2 has neither, so ``initialize`` asks
for v2 (``fs=True`` / ``terminal=True`` serve them locally, as :class:`~langacp.client.LocalHandler`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langacp.client import LocalHandler, PermissionRequest

__all__ = ["CollectingHandler"]


class CollectingHandler(LocalHandler):
    """Keeps every ``session/update`` (:attr:`updates`) and permission request (:attr:`requests`)."""

    def __init__(self, roots: Sequence[str | Path] = (), *, fs: bool = False, terminal: bool = False) -> None:
        super().__init__(roots, fs=fs, terminal=terminal)
        self.updates: list[Any] = []
        self.requests: list[PermissionRequest] = []

    def on_update(self, session_id: str, update: Any) -> None:
        self.updates.append(update)

    def on_permission_request(self, request: PermissionRequest) -> None:
        self.requests.append(request)

    def tool_updates(self, tool_call_id: str) -> list[Any]:
        """The updates of one tool call, in the order they came."""
        return [u for u in self.updates if getattr(u, "tool_call_id", None) == tool_call_id]
