"""One compiled graph per configuration of a factory, shared by the sessions built alike.

``langacp serve`` calls a factory once per session, and compiling its ``create_agent`` graph was
most of what ``session/new`` cost (a LangSmith wrapper per middleware hook,
``StateGraph.compile``, ``ToolNode`` inspecting every tool). Sessions of one application are
nearly always built alike: the same model, prompt and tools, the same plugins' middleware and
tools, made again for each session. :meth:`langacp.SessionSetup.create_agent` therefore compiles
one graph per **configuration** and gives each session its own objects at run time.

The configuration (the key) is what the compiled graph depends on, never a session's objects:
the model (a string: itself; an object: its class), the system prompt, each tool's class, name,
description, argument schema, return settings and function code, each middleware's class, name,
state schema, tools and stream transformers, the checkpointer and the other ``create_agent``
arguments. A call with something that cannot be keyed (a closure as a tool, an argument that is
not hashable) builds its own graph, as before.

The shared graph holds **stand-ins**, never a session's objects:

- each middleware is a stand-in of its class whose hooks call the same hook of the running
  session's own middleware at that place (so a session's middleware instance, with its session
  and settings, is the one that runs);
- each model call gets the session's own model and each tool call the session's own tool of that
  name (the graph's copies never run; they only give the model the tools' names and schemas, which
  the key makes equal): the first stand-in that wraps model calls (tool calls) binds them before
  calling the session's hook; when none does, a first middleware, ``langacp_session_binding``, binds
  them (``create_agent`` wraps each middleware hook in a LangSmith span, ~40 µs a call even with
  tracing off: a separate binding cost two of them per model and tool call);
- the running session is the one whose turn runs in this task (:mod:`langacp.running`). A shared
  graph run outside a turn raises a clear error instead of using another session's objects.

A configuration's first session gets a graph of its own (built as before, with its own objects):
only a configuration seen twice is compiled as a shared graph, so a factory that builds something
different for every session never keeps graphs alive for nothing.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import json
import logging
import types
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langacp.running import running_session

if TYPE_CHECKING:
    from langacp.types import SessionContext

__all__ = ["BINDING_NAME", "NotShareable", "SharedGraphs", "configuration_key"]

log = logging.getLogger("langacp.graphs")

BINDING_NAME = "langacp_session_binding"
MAX_CONFIGURATIONS = 16
"""Configurations remembered (and graphs kept) per process, the least recently used dropped first."""

_HOOKS = (
    "before_agent",
    "abefore_agent",
    "before_model",
    "abefore_model",
    "after_model",
    "aafter_model",
    "after_agent",
    "aafter_agent",
    "wrap_model_call",
    "awrap_model_call",
    "wrap_tool_call",
    "awrap_tool_call",
)


class NotShareable(Exception):
    """Something given to ``create_agent`` cannot be part of a configuration key."""


@dataclass
class _Parts:
    """One session's own objects for one shared graph."""

    model: Any
    middleware: list[Any]
    tools: dict[str, Any]


@dataclass
class _Bound:
    """A session's parts by shared graph (kept in ``SessionContext.scratch``)."""

    by_graph: dict[int, _Parts] = field(default_factory=dict)


def _parts(token: int) -> _Parts:
    session = running_session()
    parts: _Parts | None = session.scratch(_Bound).by_graph.get(token) if session is not None else None
    if parts is None:
        raise RuntimeError(
            "langacp: a graph shared by the sessions of one configuration ran outside a session's turn, "
            "so it cannot tell whose middleware, tools and model to use"
        )
    return parts


class SharedGraphs:
    """The graphs compiled per configuration in this process (see the module docstring)."""

    def __init__(self, size: int = MAX_CONFIGURATIONS) -> None:
        self.size = size
        self._graphs: OrderedDict[Hashable, tuple[int, Any] | None] = OrderedDict()
        self._tokens = itertools.count(1)
        self.compiled = 0
        """Shared graphs compiled so far."""

    def create_agent(
        self,
        session: SessionContext,
        model: Any,
        tools: Sequence[Any],
        system_prompt: str | None,
        middleware: Sequence[Any],
        kwargs: dict[str, Any],
    ) -> Any:
        """``create_agent(...)`` for ``session``: the configuration's shared graph when there is one."""
        from langchain.agents import create_agent

        try:
            key = configuration_key(model, tools, system_prompt, middleware, kwargs)
        except NotShareable as exc:
            log.debug("langacp: session %s gets a graph of its own: %s", session.session_id, exc)
            return create_agent(model, tools=tools, system_prompt=system_prompt, middleware=middleware, **kwargs)
        if key not in self._graphs:  # first seen: built as before, for this session alone
            self._remember(key, None)
            return create_agent(model, tools=tools, system_prompt=system_prompt, middleware=middleware, **kwargs)
        found = self._graphs[key]
        self._graphs.move_to_end(key)
        if found is None:
            token = next(self._tokens)
            graph = create_agent(
                model,
                tools=[_stand_in(t) for t in tools],
                system_prompt=system_prompt,
                middleware=_middleware_stand_ins(middleware, token, bind_model=not isinstance(model, str)),
                **kwargs,
            )
            self._remember(key, (token, graph))
            self.compiled += 1
        else:
            token, graph = found
        own = {t.name: t for t in tools if _is_tool(t)}
        own.update({t.name: t for m in middleware for t in getattr(m, "tools", None) or () if _is_tool(t)})
        session.scratch(_Bound).by_graph[token] = _Parts(model, list(middleware), own)
        return graph

    def _remember(self, key: Hashable, value: tuple[int, Any] | None) -> None:
        self._graphs[key] = value
        while len(self._graphs) > self.size:
            self._graphs.popitem(last=False)


# --------------------------------------------------------------------------------------------
# The key
# --------------------------------------------------------------------------------------------


def configuration_key(
    model: Any, tools: Sequence[Any], system_prompt: Any, middleware: Sequence[Any], kwargs: dict[str, Any]
) -> Hashable:
    """What a graph built from these depends on; :class:`NotShareable` if something cannot be keyed."""
    return (
        ("model", model) if isinstance(model, str) else ("model-class", type(model)),
        _hashable(system_prompt),
        tuple(_tool_key(t) for t in tools),
        tuple(_middleware_key(m) for m in middleware),
        tuple(sorted((name, _hashable(value)) for name, value in kwargs.items())),
    )


def _is_tool(obj: Any) -> bool:
    from langchain_core.tools import BaseTool

    return isinstance(obj, BaseTool)


def _hashable(value: Any) -> Hashable:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return ("seq", *(_hashable(v) for v in value))
    if isinstance(value, dict):
        return ("map", *sorted((str(k), _hashable(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        raise NotShareable(f"{type(value).__name__} cannot be compared between sessions") from None
    key: Hashable = value  # a class, a checkpointer, a store: the same object for every session, or a key of its own
    return key


def _function_code(tool: Any) -> Any:
    fn = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    fn = getattr(fn, "__func__", fn)
    return getattr(fn, "__code__", None)


def _tool_key(tool: Any) -> Hashable:
    if isinstance(tool, dict):  # a provider's built-in tool
        return ("builtin", json.dumps(tool, sort_keys=True, default=repr))
    if _is_tool(tool):
        schema = tool.args_schema
        if isinstance(schema, dict):
            schema_key: Hashable = json.dumps(schema, sort_keys=True, default=repr)
        elif schema is None or isinstance(schema, type):
            schema_key = schema
        else:
            raise NotShareable(f"tool {tool.name!r}: its argument schema cannot be compared")
        return (
            type(tool),
            tool.name,
            tool.description,
            schema_key,
            tool.return_direct,
            tool.response_format,
            _function_code(tool),
            _hashable(tool.extras),
        )
    if isinstance(tool, types.FunctionType) and tool.__closure__ is None:
        return ("function", tool)  # a module's function: the same object for every session
    raise NotShareable(f"the tool {tool!r} may hold what one session made (a closure or an object)")


def _middleware_key(middleware: Any) -> Hashable:
    return (
        type(middleware),
        middleware.name,
        getattr(middleware, "state_schema", None),
        tuple(_tool_key(t) for t in getattr(middleware, "tools", None) or ()),
        _hashable(tuple(getattr(middleware, "transformers", ()) or ())),
    )


# --------------------------------------------------------------------------------------------
# Stand-ins
# --------------------------------------------------------------------------------------------


def _empty_cell() -> Any:
    return types.CellType()


def _stand_in_function(fn: Any) -> Any:
    """A function with ``fn``'s code, signature and annotations that holds none of its closure or object.

    ``ToolNode`` and LangChain read a tool's function for its injected arguments; the stand-in
    tells them the same and never runs (the session's own tool runs).
    """
    if fn is None:
        return None
    func = getattr(fn, "__func__", fn)
    if not isinstance(func, types.FunctionType):
        return fn
    closure = tuple(_empty_cell() for _ in func.__code__.co_freevars) or None
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, closure)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__annotations__ = dict(func.__annotations__)
    copy.__qualname__, copy.__doc__, copy.__module__ = func.__qualname__, func.__doc__, func.__module__
    if func is not fn:  # a bound method: bound to a placeholder, so the signature still leaves out `self`
        return types.MethodType(copy, _Unbound())
    return copy


class _Unbound:
    """What a stand-in method is bound to (never the session's object)."""


def _stand_in(tool: Any) -> Any:
    """The tool as the shared graph holds it: its name, schema and signature, none of a session's objects."""
    from langchain_core.tools import StructuredTool

    if isinstance(tool, StructuredTool):
        return tool.model_copy(
            update={
                "func": _stand_in_function(tool.func),
                "coroutine": _stand_in_function(tool.coroutine),
                "metadata": None,
                "callbacks": None,
            }
        )
    return tool  # a module's function, a built-in tool, another tool class: kept as it is (never run)


_STAND_IN_CLASSES: weakref.WeakKeyDictionary[type[Any], type[Any]] = weakref.WeakKeyDictionary()
"""A stand-in class per middleware class (dropped with the class: a class made per session never stays)."""


_BOUND_HOOKS = ("awrap_model_call", "awrap_tool_call")
"""The hooks whose request a stand-in may bind to the session's model or tool (see :func:`_bind_request`)."""


def _bind_request(hook: str, parts: _Parts, request: Any) -> Any:
    """``request`` with the session's own model (a model call) or tool of that name (a tool call)."""
    if hook == "awrap_model_call":
        return request if parts.model is request.model else request.override(model=parts.model)
    tool = parts.tools.get(request.tool_call["name"])
    return request if tool is None or tool is request.tool else request.override(tool=tool)


def _delegate(hook: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(impl):
        if hook in _BOUND_HOOKS:

            async def bound(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
                parts = _parts(self._token)
                if hook in self._binds:
                    request = _bind_request(hook, parts, request)
                return await getattr(parts.middleware[self._slot], hook)(request, *args, **kwargs)

            return functools.update_wrapper(bound, impl)

        async def acall(self: Any, *args: Any, **kwargs: Any) -> Any:
            return await getattr(_parts(self._token).middleware[self._slot], hook)(*args, **kwargs)

        return functools.update_wrapper(acall, impl)  # signature and hook_config (can_jump_to) as the original

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(_parts(self._token).middleware[self._slot], hook)(*args, **kwargs)

    return functools.update_wrapper(call, impl)


def _stand_in_class(cls: type[Any]) -> type[Any]:
    from langchain.agents.middleware import AgentMiddleware

    made = _STAND_IN_CLASSES.get(cls)
    if made is None:
        namespace: dict[str, Any] = {
            hook: _delegate(hook, getattr(cls, hook))
            for hook in _HOOKS
            if getattr(cls, hook) is not getattr(AgentMiddleware, hook)
        }
        namespace["__init__"] = _stand_in_init
        namespace["name"] = property(lambda self: self._name)
        namespace["__module__"] = __name__
        namespace["__qualname__"] = f"Shared{cls.__name__}"
        made = _STAND_IN_CLASSES[cls] = type(f"Shared{cls.__name__}", (AgentMiddleware,), namespace)
    return made


def _stand_in_init(self: Any, token: int, slot: int, original: Any, binds: frozenset[str] = frozenset()) -> None:
    self._token, self._slot, self._name = token, slot, original.name
    self._binds = binds
    """The hooks (of :data:`_BOUND_HOOKS`) whose request this stand-in binds to the session's model or tool."""
    self.state_schema = getattr(original, "state_schema", self.state_schema)
    self.tools = [_stand_in(t) for t in getattr(original, "tools", None) or ()]
    self.trace_policy = getattr(original, "trace_policy", None)
    self.transformers = tuple(getattr(original, "transformers", ()) or ())


def _middleware_stand_ins(middleware: Sequence[Any], token: int, *, bind_model: bool) -> list[Any]:
    """The stand-ins of a session's middleware, in order, binding each call to the session's model and tools.

    ``create_agent`` chains the middleware that define a hook in their order, sync or async
    (the first wraps the others), so the first one defining a model-call (tool-call) hook sees
    every call first: its stand-in binds the request when that hook is async (langacp runs the
    graph asynchronously). Otherwise, or when no middleware wraps those calls, a first
    middleware binds them (:func:`_binding`).
    """
    from langchain.agents.middleware import AgentMiddleware

    wanted = {"awrap_tool_call": True, "awrap_model_call": bind_model}
    binds: list[set[str]] = [set() for _ in middleware]
    for hook, needed in wanted.items():
        sync = hook[1:]
        first = next(
            (
                i
                for i, m in enumerate(middleware)
                if getattr(type(m), hook) is not getattr(AgentMiddleware, hook)
                or getattr(type(m), sync) is not getattr(AgentMiddleware, sync)
            ),
            None,
        )
        if not needed:
            wanted[hook] = False
        elif first is not None and _overrides_async(type(middleware[first]), hook):
            binds[first].add(hook)
            wanted[hook] = False
    stand_ins = [_stand_in_class(type(m))(token, i, m, frozenset(binds[i])) for i, m in enumerate(middleware)]
    if wanted["awrap_tool_call"] or wanted["awrap_model_call"]:
        stand_ins.insert(
            0, _binding(token, bind_tools=wanted["awrap_tool_call"], bind_model=wanted["awrap_model_call"])
        )
    return stand_ins


def _overrides_async(cls: type[Any], hook: str) -> bool:
    """``cls`` defines its own async ``hook`` (its stand-in then delegates it, see :func:`_stand_in_class`)."""
    from langchain.agents.middleware import AgentMiddleware

    impl = getattr(cls, hook)
    return impl is not getattr(AgentMiddleware, hook) and inspect.iscoroutinefunction(impl)


def _binding(token: int, *, bind_tools: bool, bind_model: bool) -> Any:
    """A first middleware of a shared graph that gives each call the session's own tool (and model)."""
    from langchain.agents.middleware import AgentMiddleware

    class SessionBinding(AgentMiddleware):  # type: ignore[type-arg]
        @property
        def name(self) -> str:
            return BINDING_NAME

    class SessionToolBinding(SessionBinding):
        async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            return await handler(_bind_request("awrap_tool_call", _parts(token), request))

    class SessionModelBinding(SessionBinding):
        async def awrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            return await handler(_bind_request("awrap_model_call", _parts(token), request))

    class SessionFullBinding(SessionToolBinding, SessionModelBinding):
        pass

    if bind_tools and bind_model:
        return SessionFullBinding()
    return SessionToolBinding() if bind_tools else SessionModelBinding()
