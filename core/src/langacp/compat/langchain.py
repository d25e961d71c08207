"""LangChain's private names langacp uses."""

from __future__ import annotations

__all__ = ["StreamingCallbackHandler", "compose_model_call_wrappers"]

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.tracers._streaming import _StreamingCallbackHandler as StreamingCallbackHandler

"""LangChain's marker base of a callback handler that streams (``tap_output_iter``): LangGraph
then sends the model's tokens to it as they arrive."""


def compose_model_call_wrappers(wrappers: Sequence[Callable[..., Awaitable[Any]]]) -> Callable[..., Awaitable[Any]]:
    """One ``(request, handler)`` coroutine function running ``wrappers`` as ``create_agent`` chains its
    middleware's ``awrap_model_call`` hooks: the first wraps the others, inner results normalized, the
    ``Command`` of each ``ExtendedModelResponse`` gathered (the core's tool guard runs the plugins'
    model-call wrappers through it: :class:`langacp.middleware.PluginWrappersMiddleware`)."""
    from langchain.agents.factory import _chain_async_model_call_handlers

    composed = _chain_async_model_call_handlers(list(wrappers))
    if composed is None:
        raise ValueError("no model-call wrappers to compose")
    return composed
