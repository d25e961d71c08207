"""Mapper functions: what ``langacp serve`` does at each step, as plain calls for your own agent.

All go through the installed plugins' hooks (``langacp.plugins.load_plugins``), so
langacp-content's images and files, langacp-tools' results or a plugin's stop reasons apply
to your agent exactly as to the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langacp.compat.langgraph import INTERRUPT_KEY
from langacp.lib.sessions import LibrarySession, current_turn, get_session
from langacp.operations import caused_by_cancel
from langacp.types import TurnOutcome

if TYPE_CHECKING:
    from acp import RequestError
    from acp.schema import PromptResponse, StopReason

__all__ = [
    "finish_turn",
    "from_acp_blocks",
    "load_mcp_tools",
    "restore_state",
    "resume_interrupts",
    "serialize_state",
    "stop_reason",
    "to_acp_updates",
    "to_request_error",
]


def from_acp_blocks(session: LibrarySession, prompt: Sequence[Any]) -> str | list[str | dict[str, Any]]:
    """ACP prompt blocks → LangChain message content (``langacp_prompt_block``; -32602 if a block is not mapped)."""
    from langacp.operations import prompt_content

    return prompt_content(session.plugins, session.context, prompt)


def to_acp_updates(session: LibrarySession, block: Mapping[str, Any]) -> list[Any]:
    """One LangChain output content block → ACP session updates (``langacp_output_block``)."""
    return session.plugins.output_block(dict(block), session.context)


def stop_reason(
    session: LibrarySession, *, state: Mapping[str, Any] | None = None, error: BaseException | None = None
) -> StopReason:
    """The ACP stop reason (``langacp_stop_reason``) of a turn that ended with ``state`` or raised ``error``."""
    return session.plugins.stop_reason(session.context, _outcome(state, error, cancelled=False))


def _outcome(state: Mapping[str, Any] | None, error: BaseException | None, *, cancelled: bool) -> TurnOutcome:
    from langchain_core.messages import AIMessage

    outcome = TurnOutcome(cancelled=cancelled or caused_by_cancel(error), error=error)
    if outcome.cancelled:
        outcome.error = None
    messages = (state or {}).get("messages") or []
    last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last is not None:
        outcome.last_message = last
        metadata = last.response_metadata or {}
        reason = metadata.get("finish_reason") or metadata.get("stop_reason")
        outcome.finish_reason = str(reason) if reason else None
    outcome.interrupted = bool(pending_interrupts(state))
    return outcome


async def finish_turn(
    conn: Any,
    session_id: str,
    *,
    state: Mapping[str, Any] | None = None,
    error: BaseException | None = None,
    cancelled: bool = False,
    graph: Any = None,
    config: dict[str, Any] | None = None,
) -> PromptResponse:
    """End the session's turn as the server does; returns the prompt's response (stop reason, usage).

    Open tool calls of a cancelled or failed turn are marked failed (and, given ``graph`` and
    ``config``, the thread is repaired for the next turn), ``langacp_prompt_finished`` runs,
    and every update of the turn has been sent when it returns. If its stop reason is
    ``end_turn`` for an ``error``, answer the prompt with :func:`to_request_error` instead.
    """
    from langacp.operations import end_turn

    session = get_session(conn, session_id)
    reporter = current_turn(session)
    found = _outcome(state, error, cancelled=cancelled)
    outcome = reporter.outcome
    outcome.cancelled, outcome.error = found.cancelled, found.error
    outcome.interrupted = outcome.interrupted or found.interrupted
    if outcome.last_message is None:
        outcome.last_message = found.last_message
        outcome.finish_reason = outcome.finish_reason or found.finish_reason
    response = await end_turn(session.plugins, session.context, session.sink, reporter, graph=graph, config=config)
    if session.turn is reporter:
        session.turn = None
    return response


def to_request_error(session: LibrarySession, error: BaseException, method: str = "session/prompt") -> RequestError:
    """An exception → the JSON-RPC error to answer with (``langacp_map_error``: -32602, -32002, -32603, …)."""
    return session.plugins.map_error(error, method)


def pending_interrupts(state: Mapping[str, Any] | None) -> list[Any]:
    """The interrupts a graph run paused on, from the state ``ainvoke`` returned (empty when it ran to its end)."""
    found = (state or {}).get(INTERRUPT_KEY)
    if not found:
        return []
    return list(found) if isinstance(found, (list, tuple)) else [found]


async def resume_interrupts(conn: Any, session_id: str, interrupts: Sequence[Any]) -> Any | None:
    """The value to resume interrupted graph with (``Command(resume=...)``), or ``None`` if no plugin answers.

    With langacp-permissions installed, ``HumanInTheLoopMiddleware``-shaped interrupts (also
    those of ``ACPPermissionMiddleware(interrupt=True)``) are answered through its policy and
    ``session/request_permission``: approve, or reject with the reason.
    """
    session = get_session(conn, session_id)
    current_turn(session).show_arguments()  # the client sees what the paused calls are before anyone is asked
    resume = await session.plugins.resume_interrupt(session.context, interrupts)
    if resume is None:
        from langacp.bridge.stream import NO_RESUME_TEXT

        current_turn(session).outcome.interrupted = True
        current_turn(session).say(NO_RESUME_TEXT)
    return resume


def serialize_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A graph state as JSON: ``messages`` in LangChain's message dict form, other JSON values as they are.

    Values that are not JSON are written as their ``repr``.
    """
    from langchain_core.messages import BaseMessage, messages_to_dict

    result: dict[str, Any] = {}
    for key, value in state.items():
        if key == "messages" and isinstance(value, list) and all(isinstance(m, BaseMessage) for m in value):
            result[key] = messages_to_dict(value)
            continue
        try:
            result[key] = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            result[key] = repr(value)
    return result


def restore_state(data: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`serialize_state`: ``messages`` back to LangChain messages."""
    from langchain_core.messages import messages_from_dict

    restored = dict(data)
    if isinstance(restored.get("messages"), list):
        restored["messages"] = messages_from_dict(restored["messages"])
    return restored


MCP_SERVER_METADATA = "mcp_server"
"""``tool.metadata`` key a plugin sets on the tools of the session's MCP servers (the server's name)."""


def load_mcp_tools(session: LibrarySession) -> list[Any]:
    """The LangChain tools of the session's MCP servers (those of ``session/new`` and the configured ones).

    Needs a plugin that connects them (langacp-mcp: it does when the session opens,
    :func:`~langacp.lib.open_session`, and closes them with it). They are among ``session.tools``,
    marked with ``metadata["mcp_server"]``.
    """
    return [tool for tool in session.tools if (getattr(tool, "metadata", None) or {}).get(MCP_SERVER_METADATA)]
