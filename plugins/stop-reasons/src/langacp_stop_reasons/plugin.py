"""The stop-reasons plugin's hooks.

Stop reasons, first match wins: ``cancelled``; ``max_turn_requests`` (the per-prompt model-call
limit, or LangGraph's recursion limit); ``max_tokens`` (the provider's length finish, or a
context-window error); ``refusal`` (a refusal finish or block in the turn's last model
response, or a refusal error); otherwise ``end_turn``. Other provider
errors (authentication, rate limit, quota, overload, network) answer the prompt with a JSON-RPC
error, after a message that tells the user what happened.

Configuration: ``[stop_reasons]`` in ``.langacp.toml`` (project) or
``$XDG_CONFIG_HOME/langacp/config.toml`` (user): ``max_model_calls`` (default 50, 0 for no
limit; the environment variable ``LANGACP_MAX_MODEL_CALLS`` wins; a project may only lower it)
and ``forget_refusals`` (default true).
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langacp_stop_reasons.table import StopReasonsTable

from langacp.api import SessionContext, TurnOutcome, hookimpl, layers_for
from langacp_stop_reasons.errors import classify
from langacp_stop_reasons.reasons import LENGTH_REASONS, TurnState, is_refusal

log = logging.getLogger("langacp.stop_reasons")

DEFAULT_MAX_MODEL_CALLS = 50
MAX_MODEL_CALLS_ENV = "LANGACP_MAX_MODEL_CALLS"


IF_INVALID = "the default limit (50 model calls per prompt) applies"


def _table(session: SessionContext, *, project: bool) -> StopReasonsTable:
    from langacp.api import ConfigError, read_table
    from langacp_stop_reasons.table import StopReasonsTable

    layers = layers_for(session)
    try:
        return read_table(StopReasonsTable, "stop_reasons", layers, project=project)
    except ConfigError as exc:
        layers.report(str(exc), "the project's [stop_reasons] is ignored" if project else IF_INVALID)
        return StopReasonsTable()


def max_model_calls(session: SessionContext) -> int:
    """The per-prompt model-call limit for this session (0: none).

    A project's file (unless the user trusts the project) may only lower the user's limit: a
    repository must not lift it (``0``, or a larger number) to let a model loop unbounded.
    """
    raw: Any = os.environ.get(MAX_MODEL_CALLS_ENV)
    if raw is not None:
        return _limit(raw, MAX_MODEL_CALLS_ENV)
    source = "[stop_reasons] max_model_calls"
    layers = layers_for(session)
    user = _table(session, project=False).max_model_calls
    limit = DEFAULT_MAX_MODEL_CALLS if user is None else user
    wanted = _table(session, project=True).max_model_calls
    if wanted is None:
        return limit
    if layers.trusted or (wanted != 0 and (limit == 0 or wanted < limit)):
        return wanted
    if wanted != limit:
        log.warning(
            "langacp: %s: %s = %d: a project file may only lower the limit (%d); ignored",
            layers.project_path,
            source,
            wanted,
            limit,
        )
    return limit


def _limit(raw: Any, source: str, fallback: int = DEFAULT_MAX_MODEL_CALLS) -> int:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = -1
    if value < 0 or isinstance(raw, bool):
        log.warning("langacp: %s must be a whole number >= 0, not %r; using %d", source, raw, fallback)
        return fallback
    return value


@hookimpl
def langacp_config_tables() -> list[Any]:
    from langacp.api import ConfigTable
    from langacp_stop_reasons.table import StopReasonsTable

    return [ConfigTable("stop_reasons", StopReasonsTable, IF_INVALID)]


@hookimpl
def langacp_session_middleware(session: SessionContext) -> list[Any]:
    from langacp_stop_reasons.middleware import TurnLimits

    user, project = _table(session, project=False), _table(session, project=True)
    forget = project.forget_refusals if "forget_refusals" in project.model_fields_set else user.forget_refusals
    return [TurnLimits(session, max_model_calls(session), forget_refusals=forget)]


@hookimpl
def langacp_prompt_started(session: SessionContext, prompt: Any) -> None:
    turn = session.scratch(TurnState)
    turn.model_calls, turn.limit_hit, turn.limit_told, turn.refused = 0, False, False, False


@hookimpl
def langacp_stop_reason(session: SessionContext, outcome: TurnOutcome) -> str | None:
    turn = session.scratch(TurnState)
    if outcome.cancelled:
        return "cancelled"
    if turn.limit_hit:
        return "max_turn_requests"
    if outcome.error is not None:
        if type(outcome.error).__name__ == "GraphRecursionError":
            return "max_turn_requests"
        error = classify(outcome.error)
        if error is not None and error.kind == "context_length":
            return "max_tokens"
        if error is not None and error.kind == "refusal":
            return "refusal"
        return None  # the core answers with the JSON-RPC error langacp_map_error builds
    if turn.refused or is_refusal(outcome.last_message, outcome.finish_reason):
        return "refusal"
    if (outcome.finish_reason or "").lower() in LENGTH_REASONS:
        return "max_tokens"
    return "end_turn"


@hookimpl
async def langacp_prompt_finished(session: SessionContext, stop_reason: str, outcome: TurnOutcome) -> None:
    if outcome.error is None or outcome.cancelled or session.send_update is None:
        return
    error = classify(outcome.error)
    if error is None:
        return
    from acp import update_agent_message_text

    await session.send_update(update_agent_message_text(f"\n\n{error.user_message()}"))


@hookimpl
def langacp_map_error(error: BaseException, method: str) -> Any:
    provider = classify(error) if method == "session/prompt" else None
    if provider is None:
        return None
    from acp import RequestError

    data: dict[str, Any] = {"reason": provider.kind, "details": provider.user_message(), "error": provider.detail}
    if provider.status is not None:
        data["status"] = provider.status
    if provider.retry_after is not None:
        data["retryAfter"] = provider.retry_after
    if provider.kind == "auth":
        return RequestError.auth_required(data)
    return RequestError.internal_error(data)
