"""Tracing: the client's trace context joined to the turn's, and LangSmith's bookkeeping kept cheap.

**Trace context.** A client may put a W3C ``traceparent`` (and ``tracestate``) in a request's
``_meta`` (ACP's meta-propagation convention). :func:`trace_parent` reads it strictly (anything
malformed is ignored) and :func:`joined` makes it the parent of what the turn traces: the turn's
LangSmith run, when the user has LangSmith tracing enabled (a W3C trace id is 16 bytes, a
LangSmith trace id a UUID of the same bytes; the parent span id is the first 8 bytes of the
parent run's id, as LangSmith's own OpenTelemetry bridge maps them), and OpenTelemetry spans,
when ``opentelemetry`` is installed (it sends nothing unless the user configured an exporter).
Nothing is enabled by it: with tracing off, the trace context is dropped.

**Bookkeeping.** ``create_agent`` wraps every middleware's ``awrap_model_call`` / ``awrap_tool_call`` in
``langsmith.traceable``, whose async wrapper sets the span up and ends it in a worker thread
(``run_in_executor``), twice per middleware per call, traced or not. With every plugin
installed that is a few dozen thread hops per tool call, most of what the factory form cost
over the bare graph. When tracing is off, that bookkeeping only reads context variables, so
:func:`install` runs it inline through LangSmith's public ``set_runtime_overrides``; when
tracing is on it still goes to a thread, as LangSmith does by default.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["TraceParent", "flush", "inline_when_not_tracing", "install", "joined", "trace_parent"]

_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[\x21-\x7e]*)?")
_TRACESTATE = re.compile(r"[\x20-\x7e]{0,512}")
_ROOT_TIME = "19700101T000000000000Z"
"""The time in the parent's dotted order: earlier than any run of the turn (LangSmith sorts runs by it)."""


@dataclass(frozen=True, slots=True)
class TraceParent:
    """A valid W3C trace context: the trace id (32 hex), the parent span id (16 hex), flags, ``tracestate``."""

    trace_id: str
    span_id: str
    flags: str
    tracestate: str | None = None

    @property
    def traceparent(self) -> str:
        return f"00-{self.trace_id}-{self.span_id}-{self.flags}"

    def langsmith_parent(self) -> str:
        """The parent as LangSmith's distributed-tracing header (``langsmith-trace``) spells it: a dotted order."""
        root = uuid.UUID(hex=self.trace_id)
        parent = uuid.UUID(hex=self.span_id + "0" * 16)
        return f"{_ROOT_TIME}{root}.{_ROOT_TIME}{parent}"


def trace_parent(traceparent: object, tracestate: object = None) -> TraceParent | None:
    """The trace context in ``traceparent`` / ``tracestate``, or ``None`` when it is absent or malformed.

    As W3C Trace Context says: lowercase hex only, version ``ff`` and all-zero ids are invalid,
    version ``00`` has exactly four fields; a later version may add fields after the fourth.
    A malformed ``tracestate`` is dropped, the ``traceparent`` kept.
    """
    if not isinstance(traceparent, str) or len(traceparent) > 512:
        return None
    match = _TRACEPARENT.fullmatch(traceparent)
    if match is None:
        return None
    version, trace_id, span_id, flags, rest = match.groups()
    if version == "ff" or (version == "00" and rest is not None):
        return None
    if trace_id == "0" * 32 or span_id == "0" * 16:
        return None
    state = tracestate.strip() if isinstance(tracestate, str) and _TRACESTATE.fullmatch(tracestate) else ""
    return TraceParent(trace_id, span_id, flags, state or None)


@contextlib.contextmanager
def joined(parent: TraceParent | None) -> Iterator[None]:
    """Within this block, what is traced (LangSmith runs, OpenTelemetry spans) is a child of ``parent``.

    Enables nothing: LangSmith only when its tracing is already on here, OpenTelemetry only when
    it is installed (its default tracer records nothing until the user configures one).
    """
    if parent is None:
        yield
        return
    with contextlib.ExitStack() as stack:
        stack.enter_context(_langsmith_parent(parent))
        stack.enter_context(_otel_parent(parent))
        yield


@contextlib.contextmanager
def _langsmith_parent(parent: TraceParent) -> Iterator[None]:
    try:
        from langsmith import tracing_context
        from langsmith.utils import tracing_is_enabled
    except ImportError:
        yield
        return
    if tracing_is_enabled() is not True:  # a parent would turn tracing on: not ours to decide
        yield
        return
    headers = {"langsmith-trace": parent.langsmith_parent()}
    metadata = {"traceparent": parent.traceparent}
    if parent.tracestate:
        metadata["tracestate"] = parent.tracestate
    with tracing_context(parent=headers, metadata=metadata):
        yield


@contextlib.contextmanager
def _otel_parent(parent: TraceParent) -> Iterator[None]:
    try:
        from opentelemetry import context as otel_context
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    except ImportError:
        yield
        return
    carrier = {"traceparent": parent.traceparent}
    if parent.tracestate:
        carrier["tracestate"] = parent.tracestate
    token = otel_context.attach(TraceContextTextMapPropagator().extract(carrier))
    try:
        yield
    finally:
        otel_context.detach(token)


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


def flush(timeout: float = 5.0) -> None:
    """Send what LangSmith still holds (runs are sent in the background), waiting ``timeout`` seconds at most.

    For ``langacp serve`` on its way out: it ends with ``os._exit``, which skips LangSmith's own
    clean-up, so the last turn's runs would be lost. Nothing to do when LangChain's tracer was
    never imported (tracing was never on).
    """
    import sys
    import threading

    tracers = sys.modules.get("langchain_core.tracers.langchain")
    wait = getattr(tracers, "wait_for_all_tracers", None)
    if wait is None:
        return
    thread = threading.Thread(target=wait, name="langacp.tracing.flush", daemon=True)
    thread.start()
    thread.join(timeout)
