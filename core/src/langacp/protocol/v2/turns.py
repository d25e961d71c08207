"""v2's prompt lifecycle over the core's turns: acknowledged once inserted, reported by ``state_update``.

``session/prompt`` answers ``{messageId}`` as soon as the prompt is inserted: at once when the
session is idle, or after the running work when a turn runs (held prompts run one after the
other, in the order they came; none is lost). Each inserted prompt is one turn of the core:
``running``, its user message (``user_message``, the same ``messageId`` it keeps on replay),
the turn's updates, then ``idle`` with its stop reason. While a question waits for the user (a
permission, an elicitation) the state is ``requires_action``, then ``running`` again; a turn
cancelled meanwhile goes from ``requires_action`` straight to ``idle`` (the question is withdrawn).

``session/cancel`` ends the running turn (``idle`` ``cancelled``) and answers every held prompt
with -32800; so does ``session/close``, which waits for that idle before it closes.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from acp import RequestError

from langacp.protocol.v2.models import IdleState, RequiresActionState, RunningState, wire

__all__ = ["REQUEST_CANCELLED", "V2Turns"]

log = logging.getLogger("langacp.protocol")

REQUEST_CANCELLED = -32800


@dataclass
class _Held:
    """A prompt waiting to be inserted."""

    blocks: list[Any]
    raw: list[dict[str, Any]]
    message_id: str = field(default_factory=lambda: f"user-{uuid.uuid4().hex}")
    inserted: asyncio.Future[str] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass
class _SessionTurns:
    held: deque[_Held] = field(default_factory=deque)
    worker: asyncio.Task[None] | None = None
    running: bool = False
    questions: int = 0
    """Questions waiting for the user now (``requires_action`` while there is one)."""
    cancelled: bool = False
    """The running turn was cancelled: it ends without running again."""


class V2Turns:
    """The prompts of one v2 connection, per session."""

    def __init__(self, agent: Any, client: Any) -> None:
        self.agent = agent
        self.client = client
        """The connection's :class:`~.client.V2Client` (sends the state updates)."""
        self._sessions: dict[str, _SessionTurns] = {}

    def _of(self, session_id: str) -> _SessionTurns:
        return self._sessions.setdefault(session_id, _SessionTurns())

    async def prompt(self, session_id: str, raw: list[dict[str, Any]]) -> dict[str, Any]:
        """Insert the prompt (now, or after the running work); its ``messageId`` once inserted."""
        from acp.schema import PromptRequest

        self.agent.registry.get(session_id)  # -32002 for a session that is not open: nothing inserted
        try:
            blocks = PromptRequest.model_validate({"sessionId": session_id, "prompt": raw}).prompt
        except ValueError as exc:
            raise RequestError.invalid_params({"details": f"prompt: {str(exc)[:200]}"}) from exc
        held = _Held(blocks, raw)
        turns = self._of(session_id)
        turns.held.append(held)
        if turns.worker is None or turns.worker.done():
            turns.worker = asyncio.get_running_loop().create_task(self._work(session_id), name="langacp.v2.turns")
        try:
            message_id = await asyncio.shield(held.inserted)
        except asyncio.CancelledError:  # ``$/cancel_request`` (or the connection closing) before insertion
            if not held.inserted.done():
                held.inserted.cancel()  # never inserted: the worker skips it
            raise
        return {"messageId": message_id}

    async def _work(self, session_id: str) -> None:
        turns = self._of(session_id)
        try:
            await self._run_held(session_id, turns)
        except Exception:  # the connection went away mid-turn: nothing left to tell
            log.debug("v2 turns of session %s stopped", session_id, exc_info=True)
        finally:
            self.cancel(session_id)  # prompts still held when the worker stops are not inserted: -32800

    async def _run_held(self, session_id: str, turns: _SessionTurns) -> None:
        while turns.held:
            held = turns.held.popleft()
            if held.inserted.done():  # answered -32800 by a cancel, or its request was cancelled
                continue
            await self._state(session_id, RunningState())
            turns.running, turns.cancelled = True, False
            held.inserted.set_result(held.message_id)
            await self.client.send(
                session_id, {"sessionUpdate": "user_message", "messageId": held.message_id, "content": held.raw}
            )
            idle = await self._turn(session_id, held)
            turns.running, turns.questions = False, 0
            await self._state(session_id, idle)

    async def _turn(self, session_id: str, held: _Held) -> IdleState:
        from langacp.protocol import USER_MESSAGE_ID

        token = USER_MESSAGE_ID.set(held.message_id)  # the turn's task copies it: the stored message keeps the id
        try:
            response = await self.agent.prompt(session_id=session_id, prompt=held.blocks)
        except RequestError as exc:
            return IdleState(stopReason="error", error={"code": exc.code, "message": str(exc) or "error"})
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("v2 turn failed in session %s", session_id)
            return IdleState(stopReason="error", error={"code": -32603, "message": str(exc)[:300] or "error"})
        finally:
            USER_MESSAGE_ID.reset(token)
        return IdleState(stopReason=response.stop_reason)

    async def _state(self, session_id: str, state: Any) -> None:
        await self.client.send(session_id, wire(state))

    async def waiting(self, session_id: str, asking: bool) -> None:
        """A question for the user starts (``asking``) or ends: ``requires_action`` / ``running``."""
        turns = self._sessions.get(session_id)
        if turns is None or not turns.running:
            return  # not foreground work of a turn: the state does not change
        turns.questions += 1 if asking else -1
        if asking and turns.questions == 1:
            await self._state(session_id, RequiresActionState())
        elif not asking and turns.questions == 0 and not turns.cancelled:
            await self._state(session_id, RunningState())

    async def snapshot(self, session_id: str) -> None:
        """Send the session's current state again (what changed is the background work it lists)."""
        turns = self._sessions.get(session_id)
        if turns is not None and turns.running:
            await self._state(session_id, RequiresActionState() if turns.questions else RunningState())
        else:
            await self._state(session_id, IdleState())

    def busy(self, session_id: str) -> bool:
        """A turn of this connection runs in the session (or prompts wait to be inserted)."""
        turns = self._sessions.get(session_id)
        return turns is not None and (turns.running or bool(turns.held))

    def cancel(self, session_id: str) -> None:
        """The held prompts are answered -32800 (``session/cancel`` then cancels the running turn in the core)."""
        turns = self._sessions.get(session_id)
        if turns is None:
            return
        turns.cancelled = turns.running
        for held in turns.held:
            if not held.inserted.done():
                held.inserted.set_exception(
                    RequestError(REQUEST_CANCELLED, "Request cancelled", {"details": "cancelled before insertion"})
                )
        turns.held.clear()

    async def settle(self, session_id: str, timeout: float = 10.0) -> None:
        """Wait for the session's turns to end (after a cancel: its ``idle`` has been sent)."""
        turns = self._sessions.pop(session_id, None)
        if turns is not None and turns.worker is not None and not turns.worker.done():
            try:
                await asyncio.wait_for(asyncio.shield(turns.worker), timeout)
            except TimeoutError:
                log.warning("session %s: its turn did not end within %ss of close", session_id, timeout)
