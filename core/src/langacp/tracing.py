"""LangSmith's span bookkeeping around middleware, kept on the event loop while tracing is off.

``create_agent`` wraps every middleware's ``awrap_model_call`` / ``awrap_tool_call`` in
``langsmith.traceable``, whose async wrapper sets the span up and ends it in a worker thread
(``run_in_executor``), twice per middleware per call, traced or not. With every plugin
installed that is a few dozen thread hops per tool call, most of what the factory form cost
over the bare graph. When tracing is off, that bookkeeping only reads context variables, so
:func:`install` runs it inline through LangSmith's public ``set_runtime_overrides``; when
tracing is on it still goes to a thread, as LangSmith does by default.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["inline_when_not_tracing", "install"]

log = logging.getLogger("langacp.tracing")


async def inline_when_not_tracing(
    default: Callable[..., Awaitable[Any]],
    ctx: contextvars.Context,
    func: Callable[..., Any],
    /,
    *args: Any,
    **kwargs: Any,
) -> Any:
    """LangSmith's ``aio_to_thread`` override: ``func`` runs inline in ``ctx`` unless tracing is enabled there."""
    from langsmith.utils import tracing_is_enabled

    if ctx.run(tracing_is_enabled):
        return await default(ctx, func, *args, **kwargs)
    return ctx.run(func, *args, **kwargs)


def install() -> bool:
    """Install :func:`inline_when_not_tracing` unless the application set its own override; returns whether it did.

    Only for a process langacp owns (``langacp serve``): the override is process-wide.
    """
    try:
        import langsmith
        from langsmith._runtime_overrides import get_runtime_overrides
    except ImportError:  # an older or newer LangSmith without the hook: nothing to do
        return False
    current = get_runtime_overrides().aio_to_thread
    if current is not None and current is not inline_when_not_tracing:
        log.info("langacp: LangSmith already has an aio_to_thread override; leaving it")
        return False
    langsmith.set_runtime_overrides(aio_to_thread=inline_when_not_tracing)
    return True
