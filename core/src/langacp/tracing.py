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
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["inline_when_not_tracing", "install"]


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
    """Make :func:`inline_when_not_tracing` LangSmith's ``aio_to_thread`` override; returns whether it did.

    Only for a process langacp owns (``langacp serve``), and before the application's code is
    imported: an application that sets an override of its own (when its module is imported, or
    in its factory) replaces this one, since the last ``set_runtime_overrides`` call wins.
    """
    try:
        import langsmith

        set_runtime_overrides = langsmith.set_runtime_overrides
    except (ImportError, AttributeError):  # a LangSmith without the hook: nothing to do
        return False
    set_runtime_overrides(aio_to_thread=inline_when_not_tracing)
    return True
