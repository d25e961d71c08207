"""Test target: the scripted agent, plus prompts that make the model fail like real providers do.

``provider KIND`` raises an exception shaped like the ``openai`` / ``anthropic`` / ``httpx``
ones (same class names, ``status_code``, ``response.headers``, ``body``); ``refuse`` answers
with a refusal stop reason; ``refuse_block`` with an OpenAI-style refusal content block.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from langacp import SessionSetup
from langacp.testing.agent import TOOLS, respond
from langacp.testing.model import Reply, ScriptedChatModel


class _Response:
    def __init__(self, status_code: int, headers: dict[str, str]) -> None:
        self.status_code = status_code
        self.headers = headers


class APIStatusError(Exception):
    def __init__(self, message: str, status: int, headers: dict[str, str] | None = None, body: Any = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.response = _Response(status, headers or {})
        self.body = body


class AuthenticationError(APIStatusError):
    pass


class RateLimitError(APIStatusError):
    pass


class BadRequestError(APIStatusError):
    pass


class OverloadedError(APIStatusError):
    pass


class ContentFilterFinishReasonError(Exception):  # openai
    pass


class ConnectError(Exception):  # httpx
    pass


class APIConnectionError(Exception):
    pass


def provider_error(kind: str) -> BaseException:
    if kind == "auth":
        return AuthenticationError("Error code: 401 - invalid x-api-key", 401)
    if kind == "rate_limit":
        return RateLimitError("Error code: 429 - rate limit", 429, {"retry-after": "20"})
    if kind == "quota":
        return RateLimitError("You exceeded your current quota", 429, body={"code": "insufficient_quota"})
    if kind == "overloaded":
        return OverloadedError("Error code: 529 - Overloaded", 529)
    if kind == "context":
        body = {"error": {"code": "context_length_exceeded", "message": "too long"}}
        return BadRequestError("This model's maximum context length is 8192 tokens", 400, body=body)
    if kind == "refusal":
        return ContentFilterFinishReasonError("Could not parse response content as the request was rejected")
    if kind == "network":
        try:
            raise ConnectError("[Errno 111] Connection refused")
        except ConnectError as cause:
            error = APIConnectionError("Connection error.")
            error.__cause__ = cause
            return error
    return RuntimeError(f"something else: {kind}")


def _last_human(messages: list[BaseMessage]) -> str:
    return next((m.text.strip() for m in reversed(messages) if isinstance(m, HumanMessage)), "")


def respond_or_fail(messages: list[BaseMessage]) -> Reply:
    verb, _, rest = _last_human(messages).partition(" ")
    if verb == "provider" and not any(m.type == "tool" for m in messages[-1:]):
        return Reply(error=provider_error(rest))
    if verb == "refuse":
        return Reply(text="I can't help with that.", stop_reason="refusal")
    return respond(messages)


class RefusalBlock(AgentMiddleware):  # type: ignore[type-arg]
    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if _last_human(request.messages) == "refuse_block":
            return AIMessage(content=[{"type": "refusal", "refusal": "I won't do that."}])
        return await handler(request)


def agent(setup: SessionSetup) -> Any:
    model = ScriptedChatModel(responder=respond_or_fail)
    return setup.create_agent(model, tools=TOOLS, middleware=[RefusalBlock()])


def graph_agent(setup: SessionSetup) -> Any:
    """Same model, but the factory ignores ``setup.middleware`` (like a precompiled graph)."""
    from langchain.agents import create_agent

    return create_agent(ScriptedChatModel(responder=respond_or_fail), tools=TOOLS, checkpointer=setup.checkpointer)
