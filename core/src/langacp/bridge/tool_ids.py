"""Tool call ids as a session sends them: unique across turns, whatever ids the model reuses."""

from __future__ import annotations

from typing import Any

__all__ = ["AliasingClient", "ToolCallIds"]


class ToolCallIds:
    """Makes the ``toolCallId`` s a session sends unique, whatever ids the model reuses.

    Some providers number tool calls per response (``call_0`` in every turn), and a model
    restarted by ``session/load`` numbers them again: an editor receiving the same id in two
    turns merges the calls. Every ACP id sent for the session is remembered; a model id that
    was already used in an earlier turn gets a turn-scoped alias (``call_0#2``, the first free
    one), which every update and permission request of that turn uses. The checkpoint keeps
    the model's own ids; a replay (:mod:`langacp.replay`) aliases them with this class too, so a
    replayed call keeps the id it had live.
    """

    def __init__(self) -> None:
        self.used: set[str] = set()
        self._turn: dict[str, str] = {}
        # Per model id, the N at which the search for a free ``model_id#N`` starts: ``used`` only
        # grows until reset(), so every lower N stays taken and a reused id costs O(1), not O(reuses).
        self._next_n: dict[str, int] = {}

    def new_turn(self) -> None:
        """Model ids seen from now on belong to a new turn."""
        self._turn = {}

    def reset(self) -> None:
        """Forget every id (before a replay sends the whole history again)."""
        self.used.clear()
        self._turn = {}
        self._next_n.clear()

    def claim(self, model_id: str) -> str:
        """The ACP id of a tool call the model named ``model_id`` in this turn (new calls get a free one)."""
        known = self._turn.get(model_id)
        if known is not None:
            return known
        acp_id = self._first_free(model_id)
        self.used.add(acp_id)
        self._turn[model_id] = acp_id
        return acp_id

    def _first_free(self, model_id: str) -> str:
        """``model_id`` if unused, else the first unused ``model_id#N`` (N from 2)."""
        used = self.used
        if model_id not in used:
            return model_id
        n = self._next_n.get(model_id, 2)
        while f"{model_id}#{n}" in used:
            n += 1
        self._next_n[model_id] = n
        return f"{model_id}#{n}"

    def of(self, model_id: str) -> str:
        """The ACP id of ``model_id`` in this turn (itself when this turn has not announced it)."""
        return self._turn.get(model_id, model_id)

    def model_id(self, acp_id: str) -> str:
        """The model's id of this turn's tool call ``acp_id`` (the client's), or ``acp_id`` itself."""
        return next((model for model, sent in self._turn.items() if sent == acp_id), acp_id)

    def outgoing(self, update: Any) -> Any:
        """``update`` (a ``session/update`` payload) with its tool call id aliased, if it has one."""
        call_id = getattr(update, "tool_call_id", None)
        if not isinstance(call_id, str):
            return update
        kind = getattr(update, "session_update", None)
        acp_id = self.claim(call_id) if kind == "tool_call" else self.of(call_id)
        return update if acp_id == call_id else update.model_copy(update={"tool_call_id": acp_id})


class AliasingClient:
    """The client as a session's plugins see it: permission requests use the turn's tool call ids."""

    def __init__(self, client: Any, ids: Any) -> None:
        self._client = client
        self._ids = ids

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        tool_call = kwargs.get("tool_call")
        call_id = getattr(tool_call, "tool_call_id", None)
        if tool_call is not None and isinstance(call_id, str) and self._ids.of(call_id) != call_id:
            kwargs["tool_call"] = tool_call.model_copy(update={"tool_call_id": self._ids.of(call_id)})
        return await self._client.request_permission(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)
