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
    middleware's ``awrap_model_call`` hooks (``_chain_async_model_call_handlers``; the core's tool guard
    runs the plugins' model-call wrappers through it: :class:`langacp.middleware.PluginWrappersMiddleware`).

    The same calls and the same result: the first wraps the others; each is handed the inner
    result as a ``ModelResponse`` (an ``AIMessage`` wrapped in one, an ``ExtendedModelResponse``
    unwrapped); the ``Command`` of each ``ExtendedModelResponse`` is gathered, inner first, from
    the inner chain's last run (a wrapper may call its handler again); the result is LangChain's
    ``_ComposedExtendedModelResponse``, made once (LangChain's chain makes one per layer).
    """
    from langchain.agents.factory import _ComposedExtendedModelResponse
    from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
    from langchain_core.messages import AIMessage

    layers = tuple(wrappers)
    if not layers:
        raise ValueError("no model-call wrappers to compose")
    last = len(layers) - 1
    no_commands: tuple[Any, ...] = ()

    def normalized(result: Any) -> tuple[Any, tuple[Any, ...]]:
        """``(ModelResponse, its commands)`` of what a wrapper returned."""
        if type(result) is ModelResponse:
            return result, no_commands
        if isinstance(result, _ComposedExtendedModelResponse):
            return result.model_response, tuple(result.commands)
        if isinstance(result, ExtendedModelResponse):
            return result.model_response, (result.command,) if result.command is not None else no_commands
        if isinstance(result, AIMessage):
            return ModelResponse(result=[result], structured_response=None), no_commands
        return result, no_commands

    async def run(index: int, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> tuple[Any, tuple[Any, ...]]:
        if index == last:
            return normalized(await layers[index](request, handler))
        inner_commands: list[tuple[Any, ...]] = [no_commands]

        async def inner(inner_request: Any) -> Any:
            inner_commands[0] = no_commands  # each run of the inner chain replaces the commands of the one before
            response, commands = await run(index + 1, inner_request, handler)
            inner_commands[0] = commands
            return response

        response, own = normalized(await layers[index](request, inner))
        return response, (*inner_commands[0], *own) if own or inner_commands[0] else no_commands

    async def composed(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        response, commands = await run(0, request, handler)
        return _ComposedExtendedModelResponse(model_response=response, commands=list(commands))

    return composed
