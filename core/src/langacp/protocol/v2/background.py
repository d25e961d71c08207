"""The background work v2's ``state_update`` lists: agent-owned terminals running on after their tool returned.

langacp's only such work is a command that left processes running (``server &`` in
langacp-client-tools' ``run_command``): its plugin detaches the command's terminal
(:meth:`langacp.terminals.AgentTerminal.detach`), which stays live until its process group is
gone (or the client cancels it, or the session closes). A session's state updates omit
``background`` (not reported) until it first has such a terminal; from then on each carries the
complete list (``[]`` once empty), as v2 requires. A listed terminal's ``exitStatus`` is sent
before the snapshot that no longer lists it.
"""

from __future__ import annotations

from typing import Any

from langacp.terminals import TerminalEvent

__all__ = ["Background"]


class Background:
    """The detached, running terminals of one v2 connection's sessions."""

    def __init__(self) -> None:
        self._listed: dict[str, list[str]] = {}

    def seen(self, session_id: str, event: TerminalEvent) -> bool:
        """Follow ``event``; ``True`` when the session's list changed (a state snapshot is due)."""
        listed = self._listed.get(session_id)
        if event.detached:
            listed = self._listed.setdefault(session_id, [])
            if event.terminal_id not in listed:
                listed.append(event.terminal_id)
                return True
        elif event.exited and listed is not None and event.terminal_id in listed:
            listed.remove(event.terminal_id)
            return True
        return False

    def listed(self, session_id: str, update: dict[str, Any]) -> dict[str, Any]:
        """``update`` with the session's ``background`` when it is a state update of a session that reports it."""
        listed = self._listed.get(session_id)
        if listed is not None and update.get("sessionUpdate") == "state_update":
            update = {**update, "background": [{"type": "terminal", "terminalId": t} for t in listed]}
        return update

    def forget(self, session_id: str) -> None:
        """The session closed (its processes were stopped)."""
        self._listed.pop(session_id, None)
