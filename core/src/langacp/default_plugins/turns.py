"""Default stop reasons and exception → JSON-RPC error mapping.

Stop reasons: ``cancelled``; ``max_turn_requests`` when the prompt hit LangGraph's recursion
limit (``--recursion-limit``); otherwise ``end_turn``.
"""

from __future__ import annotations

from typing import Any

from langacp.hookspecs import hookimpl
from langacp.types import SessionContext, TurnOutcome


@hookimpl(trylast=True)
def langacp_stop_reason(session: SessionContext, outcome: TurnOutcome) -> str:
    if outcome.cancelled:
        return "cancelled"
    if outcome.error is not None and type(outcome.error).__name__ == "GraphRecursionError":
        return "max_turn_requests"
    return "end_turn"


@hookimpl(trylast=True)
def langacp_map_error(error: BaseException, method: str) -> Any:
    """Codes: -32602 invalid params, -32002 not found, -32000 auth required, -32603 internal."""
    from acp import RequestError
    from pydantic import ValidationError

    if isinstance(error, RequestError):
        return error
    if isinstance(error, ValidationError):
        return RequestError.invalid_params({"errors": error.errors(include_url=False, include_context=False)})
    if isinstance(error, (ValueError, TypeError)) and method != "session/prompt":
        return RequestError.invalid_params({"details": str(error)})
    fix = getattr(error, "fix", "")  # a TargetError says where the agent's own code failed
    return RequestError.internal_error(
        {"details": f"{type(error).__name__}: {error}" + (f"; fix: {fix}" if fix else "")}
    )
