"""Recognise model-provider errors without importing the providers' packages.

Errors are told apart by their class names (``openai``, ``anthropic``, ``httpx``,
``google.api_core`` and LangChain integrations share them), their HTTP status code, their
provider error code and, last, words in their message. The exception and every exception in
its ``__cause__`` / ``__context__`` chain are looked at (LangGraph wraps some errors).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ErrorKind", "ProviderError", "classify"]

ErrorKind = Literal["auth", "rate_limit", "quota", "overloaded", "network", "context_length", "refusal"]

_AUTH = {"AuthenticationError", "PermissionDeniedError", "Unauthenticated", "PermissionDenied", "Forbidden"}
_RATE = {"RateLimitError", "ResourceExhausted", "TooManyRequests", "RateLimitExceeded"}
_OVERLOADED = {"OverloadedError", "InternalServerError", "ServiceUnavailable", "ServiceUnavailableError"}
_NETWORK = {
    "APIConnectionError",
    "APITimeoutError",
    "ConnectError",
    "ConnectTimeout",
    "ReadTimeout",
    "WriteTimeout",
    "PoolTimeout",
    "ReadError",
    "RemoteProtocolError",
    "NetworkError",
    "TimeoutException",
    "ClientConnectorError",
    "ServerDisconnectedError",
}
_REFUSAL = {"ContentFilterFinishReasonError", "ContentPolicyViolationError"}
_CONTEXT = {"ContextWindowExceededError", "ContextLengthExceededError"}
_CONTEXT_WORDS = (
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "context length",
    "prompt is too long",
    "input is too long",
    "too many input tokens",
    "exceeds the maximum number of tokens",
)
_REFUSAL_CODES = {"content_filter", "content_policy_violation", "refusal"}


@dataclass(frozen=True)
class ProviderError:
    """A model-provider error, recognised."""

    kind: ErrorKind
    status: int | None = None
    retry_after: float | None = None
    """Seconds the provider asked to wait (``Retry-After``), when it said."""
    detail: str = ""

    def user_message(self) -> str:
        """What to tell the person at the editor."""
        http = f" (HTTP {self.status})" if self.status else ""
        if self.kind == "auth":
            return (
                f"The model provider rejected the agent's credentials{http}. Check the API key or login "
                "the agent uses, then send the prompt again."
            )
        if self.kind == "rate_limit":
            wait = f"about {self.retry_after:g} seconds" if self.retry_after else "a moment"
            return f"The model provider is rate-limiting requests{http}. Wait {wait} and send the prompt again."
        if self.kind == "quota":
            return f"The model provider says the account's quota is used up{http}. Check the plan or billing."
        if self.kind == "overloaded":
            return f"The model provider is overloaded or failing{http}. Try again in a moment."
        if self.kind == "network":
            return "Could not reach the model provider (network error). Check the connection and try again."
        if self.kind == "context_length":
            return (
                "The conversation no longer fits in the model's context window. Start a new session, or "
                "send less (smaller files or attachments), and try again."
            )
        return "The model refused to answer this request."


def classify(error: BaseException) -> ProviderError | None:
    """The provider error ``error`` is (or wraps), or ``None`` if it is not one."""
    for exc in _chain(error):
        kind = _kind(exc)
        if kind is not None:
            return ProviderError(kind, _status(exc), _retry_after(exc), f"{type(exc).__name__}: {exc}")
    return None


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _kind(exc: BaseException) -> ErrorKind | None:
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = _status(exc)
    code = _code(exc)
    text = str(exc).lower()
    if names & _CONTEXT or code == "context_length_exceeded" or any(word in text for word in _CONTEXT_WORDS):
        return "context_length"
    if names & _REFUSAL or code in _REFUSAL_CODES:
        return "refusal"
    if names & _AUTH or status in (401, 403):
        return "auth"
    if code == "insufficient_quota" or "insufficient_quota" in text:
        return "quota"
    if names & _RATE or status == 429:
        return "rate_limit"
    if names & _OVERLOADED or (status is not None and status >= 500):
        return "overloaded"
    if names & _NETWORK or isinstance(exc, (ConnectionError, TimeoutError)):
        return "network"
    return None


def _status(exc: BaseException) -> int | None:
    for value in (getattr(exc, "status_code", None), getattr(getattr(exc, "response", None), "status_code", None)):
        if isinstance(value, int) and 100 <= value < 600:
            return value
    code = getattr(exc, "code", None)  # google.api_core errors carry the HTTP status as ``code``
    return code if isinstance(code, int) and 100 <= code < 600 else None


def _code(exc: BaseException) -> str | None:
    code: Any = getattr(exc, "code", None)
    if not isinstance(code, str):
        body = getattr(exc, "body", None)
        error = body.get("error", body) if isinstance(body, dict) else None
        code = error.get("code") or error.get("type") if isinstance(error, dict) else None
    return code.lower() if isinstance(code, str) else None


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        if headers.get("retry-after-ms") is not None:
            return float(headers["retry-after-ms"]) / 1000
        if headers.get("retry-after") is not None:
            return float(headers["retry-after"])
    except (TypeError, ValueError):  # an HTTP date, or garbage: no number to show
        return None
    return None
