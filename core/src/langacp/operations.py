"""Steps of a session that the server (:mod:`langacp.agent`) and the library (:mod:`langacp.lib`) share.

One implementation each, so an agent written on the SDK with ``langacp.lib`` behaves exactly
like ``langacp serve``: the prompt's ACP blocks mapped to LangChain content, the end of a
turn (open tool calls failed, the thread repaired, the stop reason, ``langacp_prompt_finished``)
and a mode switch.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from langacp.types import SessionContext

if TYPE_CHECKING:
    from acp.schema import PromptResponse, StopReason

    from langacp.bridge.outbox import UpdateSink
    from langacp.bridge.turn import TurnReporter
    from langacp.plugins import Plugins

__all__ = [
    "Offered",
    "caused_by_cancel",
    "change_mode",
    "commands_update",
    "end_turn",
    "offered",
    "open_outbox",
    "prompt_content",
    "prompt_response",
]

log = logging.getLogger("langacp.operations")


def open_outbox(
    plugins: Plugins,
    session: SessionContext,
    send: Callable[[Any], Awaitable[None]],
    send_many: Callable[[list[Any]], Awaitable[None]] | None = None,
) -> tuple[UpdateSink, Callable[[Offered | None], None]]:
    """A new session's update outbox, and the function to call once the session is answered.

    ``send`` sends one update, ``send_many`` (optional) several in order (see :class:`.UpdateSink`).

    Sets ``session.send_update``. Updates a plugin sends while the session opens are held:
    a client cannot place an update for a session id it has not been given yet. The returned
    ``release`` queues them, then the slash commands on offer, to be sent after the response;
    give it the session's modes and config options when the caller has them (:func:`offered`).
    """
    from langacp.bridge.outbox import UpdateSink

    sink = UpdateSink(send, lambda block: plugins.output_block(block, session), send_many=send_many)
    held: list[Any] | None = []

    async def send_update(update: Any) -> None:
        if held is not None:
            held.append(update)
        else:
            sink.put(update)

    def release(offer: Offered | None = None) -> None:
        nonlocal held
        updates, held = held or [], None
        commands = plugins.available_commands(session, offer)
        if commands:
            updates.append(commands_update(commands))
        for update in updates:  # queued now, they are sent after the caller's response
            asyncio.get_running_loop().call_soon(sink.put, update)

    session.send_update = send_update
    return sink, release


Offered = tuple[Any, list[Any]]
"""A session's modes (``SessionModeState`` or ``None``) and config options, as its response carries them."""


def offered(plugins: Plugins, session: SessionContext) -> Offered:
    """The session's modes and config options, asked of the plugins once for its response and its commands."""
    return plugins.session_modes(session), plugins.config_options(session)


_UPDATES: dict[tuple[int, ...], tuple[list[Any], Any]] = {}
"""``available_commands_update`` by the identity of its commands (which it keeps alive)."""


def commands_update(commands: list[Any]) -> Any:
    """The ``available_commands_update`` of ``commands``: built once while plugins return the same command objects."""
    key = tuple(map(id, commands))
    found = _UPDATES.get(key)
    if found is not None and all(a is b for a, b in zip(found[0], commands, strict=True)):
        return found[1]
    from acp.helpers import update_available_commands

    update = update_available_commands(commands)
    _UPDATES[key] = (list(commands), update)
    if len(_UPDATES) > 16:
        _UPDATES.pop(next(iter(_UPDATES)))
    return update


def prompt_content(
    plugins: Plugins, session: SessionContext, prompt: Sequence[Any]
) -> str | list[str | dict[str, Any]]:
    """The LangChain message content of an ACP prompt (``langacp_prompt_block``); -32602 if a block is not mapped."""
    from acp import RequestError

    blocks: list[str | dict[str, Any]] = []
    for block in prompt:
        mapped = plugins.prompt_block(block, session)
        if mapped is None:
            raise RequestError.invalid_params(
                {"details": f"unsupported prompt content: {getattr(block, 'type', type(block).__name__)}"}
            )
        blocks.extend(mapped)
    first = blocks[0] if len(blocks) == 1 else None
    if isinstance(first, dict) and first.get("type") == "text":
        return str(first["text"])
    return blocks


async def end_turn(
    plugins: Plugins,
    session: SessionContext,
    sink: UpdateSink,
    reporter: TurnReporter,
    *,
    graph: Any = None,
    config: dict[str, Any] | None = None,
) -> PromptResponse:
    """Finish a turn: returns the prompt's response (stop reason, usage), after every update of the turn was sent.

    Arguments still held for a call's ``in_progress`` are sent. A cancelled or failed turn
    marks its open tool calls failed and, given the ``graph`` and its ``config``, repairs the
    thread for the next turn; a turn paused on a question (``outcome.paused``) leaves it as it is.
    """
    from langacp.running import turn_over

    try:
        from langacp.bridge.repair import CANCELLED_TEXT, repair_thread

        outcome = reporter.outcome
        reporter.show_arguments()  # calls that never started (the turn ended first) still show what they were
        if outcome.paused:
            pass  # the graph waits for an answer: its thread is left as it is, to be resumed
        elif outcome.cancelled or outcome.error is not None:
            reason = CANCELLED_TEXT if outcome.cancelled else f"Failed: {outcome.error}"
            reporter.close_open_tools(reason)
            if graph is not None and config is not None:
                try:
                    await repair_thread(
                        graph,
                        config,
                        reason,
                        partial_text="".join(reporter.partial_text),
                        partial_node=reporter.partial_node,
                    )
                except Exception:
                    log.exception("could not repair the thread of session %s", session.session_id)
        stop_reason = plugins.stop_reason(session, outcome)
        usage = plugins.prompt_usage(session, outcome)
        await sink.flush()
        try:
            await plugins.prompt_finished(session, stop_reason, outcome)
        except Exception:
            log.exception("a plugin failed in langacp_prompt_finished")
        await sink.flush()  # updates a plugin sent from langacp_prompt_finished come first
        return prompt_response(stop_reason, usage)
    finally:
        turn_over(reporter)  # no question reaches the user for this turn any more


def prompt_response(stop_reason: StopReason, usage: Any = None) -> PromptResponse:
    """The answer to ``session/prompt``: the one place it is built, for the server and the library."""
    from acp.schema import PromptResponse

    return PromptResponse(stop_reason=stop_reason, usage=usage)


async def change_mode(plugins: Plugins, session: SessionContext, sink: UpdateSink, mode_id: str) -> None:
    """Switch the session's mode through ``langacp_set_mode`` and send ``current_mode_update``.

    Raises -32601 if no plugin offers modes, -32602 for an unknown mode.
    """
    from acp import RequestError
    from acp.helpers import update_current_mode

    ok = await plugins.set_mode(session, mode_id)
    if ok is None:
        raise RequestError.method_not_found("session/set_mode")
    if not ok:
        raise RequestError.invalid_params({"details": f"unknown mode {mode_id!r}"})
    sink.put(update_current_mode(mode_id))


def caused_by_cancel(exc: BaseException | None) -> bool:
    """``PromptCancelled``, or a cancel LangGraph wrapped (``NodeCancelledError``): look through the chain."""
    from langacp.types import PromptCancelled

    seen = exc
    while seen is not None:
        if isinstance(seen, (asyncio.CancelledError, PromptCancelled)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
