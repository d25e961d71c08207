"""The prompt methods: ``session/prompt`` (a slash command or a turn of the graph) and ``session/cancel``."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from acp import RequestError
from acp.schema import PromptResponse

from langacp.agent.registry import Session, SessionRegistry
from langacp.operations import caused_by_cancel, prompt_response
from langacp.tracing import TraceParent, joined
from langacp.types import TurnOutcome

__all__ = ["PromptMethods", "one_line"]

log = logging.getLogger("langacp.agent")

DEFAULT_RECURSION_LIMIT = 1000
_COMMAND_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*")


class _Waiting:
    """A prompt waiting for its turn to start; a ``session/cancel`` meanwhile marks it."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False


class PromptMethods:
    """Runs one turn at a time per session and stops it on ``session/cancel``."""

    def __init__(self, registry: SessionRegistry, recursion_limit: int = DEFAULT_RECURSION_LIMIT) -> None:
        self.registry = registry
        self.plugins = registry.plugins
        self.recursion_limit = recursion_limit
        self.closing = False
        """Set on shutdown: no new turn starts."""
        self.unstable = False
        """The client speaks ACP's unstable schema: the response may carry ``usage`` (not in the stable one)."""
        self._waiting: dict[str, set[_Waiting]] = {}
        """Per session, the prompts waiting for their turn to start (behind a load of the session)."""

    async def prompt(self, session_id: str, prompt: list[Any], trace: TraceParent | None = None) -> PromptResponse:
        # After a load (resume, close) of the session that arrived first; the turn runs without the lock.
        waiting = _Waiting()
        self._waiting.setdefault(session_id, set()).add(waiting)
        try:
            async with self.registry.one_at_a_time(session_id):
                self._waited(session_id, waiting)
                session = self.registry.get(session_id)
                if session.busy:
                    raise RequestError.invalid_params(
                        {"details": "a prompt is already running in this session; cancel it or wait for it to end"}
                    )
                if self.closing:
                    raise RequestError.internal_error({"details": "the agent is shutting down"})
                session.cancel_requested, session.started = waiting.cancelled, False
                session.ids.new_turn()
                turn = session.turn = asyncio.get_running_loop().create_task(
                    self._turn(session, prompt, trace), name="langacp.turn"
                )
                turn.add_done_callback(session.turn_done)
        finally:
            self._waited(session_id, waiting)
        try:
            return await asyncio.shield(turn)
        except asyncio.CancelledError:
            # The connection is closing: stop the turn too.
            session.cancel_turn()
            raise

    def cancel(self, session_id: str) -> None:
        for waiting in self._waiting.get(session_id, ()):
            waiting.cancelled = True  # its turn ends as ``cancelled`` as soon as it starts
        session = self.registry.live.get(session_id)
        if session is not None:
            session.cancel_turn()

    def _waited(self, session_id: str, waiting: _Waiting) -> None:
        """``waiting`` no longer waits for its turn to start (forgotten; the set too once empty)."""
        prompts = self._waiting.get(session_id)
        if prompts is not None:
            prompts.discard(waiting)
            if not prompts:
                del self._waiting[session_id]

    async def _turn(self, session: Session, prompt: list[Any], trace: TraceParent | None = None) -> PromptResponse:
        if not prompt:
            raise RequestError.invalid_params({"details": "the prompt is empty"})
        command = await self._slash_command(session, prompt)
        if command is not None:
            return command
        with joined(trace):  # the client's trace context, if any, parents what the turn traces
            return await self._run_graph(session, prompt)

    async def _run_graph(self, session: Session, prompt: list[Any]) -> PromptResponse:
        from langchain_core.messages import HumanMessage

        from langacp.bridge.stream import TurnRunner
        from langacp.operations import end_turn, prompt_content
        from langacp.protocol import USER_MESSAGE_ID
        from langacp.running import enter_turn

        context = session.context
        content = prompt_content(self.plugins, context, prompt)
        outcome = TurnOutcome()
        runner = TurnRunner(self.plugins, context, session.sink, session.graph, guarded=session.guarded)
        enter_turn(runner)  # in this turn's own task (and its graph): the tool guard and the plugins find it
        runner.outcome = outcome
        config: dict[str, Any] = {**session.config, "recursion_limit": self.recursion_limit}
        session.cancellable = session.started = True
        try:
            await self.plugins.prompt_started(context, prompt)
            if session.cancel_requested:
                raise asyncio.CancelledError
            pending = await session.pending_interrupts()
            await runner.run(
                {"messages": [HumanMessage(content=content, id=USER_MESSAGE_ID.get())]},
                config,
                outcome,
                pending=pending,
                prompt=prompt,
            )
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
        session.paused = tuple(runner.paused_on)  # questions left open (paused, cancelled, unanswered): read next turn
        response = await end_turn(
            self.plugins, context, session.sink, runner, graph=session.graph, config=session.config
        )
        await self.registry.save(session)
        if response.usage is not None and not self.unstable:
            response = response.model_copy(update={"usage": None})  # usage_update carries it in the stable schema
        if outcome.error is not None and response.stop_reason == "end_turn":
            # One line (a provider's error is the user's to read); the traceback at debug.
            log.error("turn failed in session %s: %s", context.session_id, one_line(outcome.error))
            log.debug("the traceback of that failure", exc_info=outcome.error)
            raise self.plugins.map_error(outcome.error, "session/prompt")
        return response

    async def _slash_command(self, session: Session, prompt: list[Any]) -> PromptResponse | None:
        first = prompt[0]
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
        await self.registry.save(session)  # a command may have changed the session (its title, mode, …)
        return prompt_response("end_turn")


def one_line(exc: BaseException) -> str:
    """``Type: message``, on one line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
