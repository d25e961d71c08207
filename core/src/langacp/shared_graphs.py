"""One compiled graph per configuration of a factory, shared by the sessions built alike.

``langacp serve`` calls a factory once per session; compiling its ``create_agent`` graph (a
LangSmith wrapper per middleware hook, ``StateGraph.compile``, ``ToolNode`` inspecting every
tool) would be most of what ``session/new`` costs. :meth:`langacp.SessionSetup.create_agent`
compiles one graph per **configuration**, used by every session built alike (the first too).

The configuration (the key, :mod:`langacp.graph_keys`) is what the compiled graph depends on:
the model (a string: itself; an object: its class), the system prompt, each tool's class, name,
description, argument schema, return settings and function code, each middleware's class,
name, state schema, tools, stream transformers and trace policy, the other ``create_agent``
arguments. What cannot be keyed (a closure as a tool, a tool class other than
``StructuredTool``, an unhashable argument) gets a graph of its own.

The graph holds **stand-ins** that can only call the running session's objects (the session
whose turn runs in this task, :mod:`langacp.running`; outside a turn they raise):

- a middleware's stand-in defines the hooks its class defines (of every hook ``AgentMiddleware``
  has) and calls the same hook of the session's own middleware at that place;
- the model and each tool's function are stand-ins that raise if they run. The first stand-in
  wrapping model (tool) calls gives each call the session's own model (its tool of that name),
  else a first middleware ``langacp_session_binding`` does (each middleware hook costs a
  LangSmith span per call); a tool call the session has no tool for fails closed, unrun.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import logging
import operator
import types
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langacp.graph_keys import NotShareable, configuration_key, function_tool
from langacp.running import running_session

if TYPE_CHECKING:
    from langacp.types import SessionContext

__all__ = ["BINDING_NAME", "NotShareable", "SharedGraphs", "configuration_key"]

log = logging.getLogger("langacp.graphs")

BINDING_NAME = "langacp_session_binding"
MAX_CONFIGURATIONS = 16
"""Configurations remembered (and graphs kept) per process, the least recently used dropped first."""

UNBOUND = "langacp: a shared graph's stand-in ran instead of the running session's own object"


def middleware_hooks() -> tuple[str, ...]:
    """The hooks a middleware can define: every public function of ``AgentMiddleware`` itself.

    Asked several times per session opened; worked out again unless the class's members are
    the very objects (under the same names, in the same order) they were when last worked out.
    """
    from langchain.agents.middleware import AgentMiddleware

    members = vars(AgentMiddleware)
    names, values = tuple(members), tuple(members.values())
    known = _HOOKS.get(AgentMiddleware)
    if known is not None and known[0] == names and all(map(operator.is_, known[1], values)):
        return known[2]
    hooks = tuple(name for name, value in members.items() if inspect.isfunction(value) and not name.startswith("_"))
    _HOOKS[AgentMiddleware] = (names, values, hooks)
    return hooks


_HOOKS: dict[type[Any], tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...]]] = {}
""":func:`middleware_hooks`, with the members of ``AgentMiddleware`` it was worked out from."""


class _Tools(dict[str, Any]):
    """A session's tools by name for one shared graph, shared by the sessions given the same tool objects.

    Read only: every mutating method raises ``TypeError`` (a change would bind another session's
    calls too); a session given other tools gets another table. Reads are ``dict``'s own (not
    overridden: the tool guard reads the table per call); it can be weakly referenced.
    """

    __slots__ = ("__weakref__",)

    def __new__(cls, tools: Mapping[str, Any] = types.MappingProxyType({})) -> _Tools:
        table = super().__new__(cls)
        dict.update(table, tools)  # filled once, here; __init__ (called again or not) changes nothing
        return table

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("langacp: a session's table of tools is read only (it may be shared by sessions)")

    __setitem__ = __delitem__ = __ior__ = _read_only
    update = pop = popitem = clear = setdefault = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (dict(self),)  # copy, deepcopy and pickle build a new table, never fill one in place


@dataclass
class _Parts:
    """One session's own objects for one shared graph."""

    model: Any
    middleware: list[Any]
    tools: _Tools


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


def _is_tool(obj: Any) -> bool:
    from langchain_core.tools import BaseTool

    return isinstance(obj, BaseTool)


class SharedGraphs:
    """The graphs compiled per configuration in this process (see the module docstring)."""

    def __init__(self, size: int = MAX_CONFIGURATIONS) -> None:
        self.size = size
        self._graphs: OrderedDict[Hashable, tuple[int, Any]] = OrderedDict()
        self._tokens = itertools.count(1)
        self._tools: dict[int, weakref.ref[_Tools]] = {}
        """Per shared graph: the tools by name its last session was given (see :meth:`_tools_of`)."""
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
        """``create_agent(...)`` for ``session``: the configuration's shared graph (compiled on first use)."""
        from langchain.agents import create_agent

        tools = [function_tool(t) for t in tools]
        try:
            key = configuration_key(model, tools, system_prompt, middleware, kwargs)
        except NotShareable as exc:
            log.debug("langacp: session %s gets a graph of its own: %s", session.session_id, exc)
            return create_agent(model, tools=tools, system_prompt=system_prompt, middleware=middleware, **kwargs)
        found = self._graphs.get(key)
        if found is None:
            token = next(self._tokens)
            bind_model = not isinstance(model, str)
            graph = create_agent(
                _unbound_model_class()() if bind_model else model,
                tools=[_stand_in(t) for t in tools],
                system_prompt=system_prompt,
                middleware=_middleware_stand_ins(middleware, token, bind_model=bind_model),
                **kwargs,
            )
            found = (token, graph)
            self.compiled += 1
        self._graphs[key] = found
        self._graphs.move_to_end(key)
        while len(self._graphs) > self.size:
            self._tools.pop(self._graphs.popitem(last=False)[1][0], None)
        token, graph = found
        own = {t.name: t for t in tools if _is_tool(t)}
        own.update({t.name: t for m in middleware for t in getattr(m, "tools", None) or () if _is_tool(t)})
        session.scratch(_Bound).by_graph[token] = _Parts(model, list(middleware), self._tools_of(token, own))
        return graph

    def _tools_of(self, token: int, own: dict[str, Any]) -> _Tools:
        """``own`` as the table a session of graph ``token`` keeps: the one its last session was given
        when that maps the same names to the very same tool objects, else a new one.

        Sound because the table is never changed once made and only ever looked up by name: two
        sessions whose tables hold the same objects under the same names bind every call alike.
        Tools made once per process (the plugins' shared tools, an app's module-level tools) so
        cost one table per graph instead of one per session; a session with a tool object of its
        own gets its own table. Held weakly: it goes with the last session using it.
        """
        ref = self._tools.get(token)
        last = ref() if ref is not None else None
        if last is not None and last.keys() == own.keys() and all(last[name] is t for name, t in own.items()):
            return last
        table = _Tools(own)
        self._tools[token] = weakref.ref(table)
        return table


# --------------------------------------------------------------------------------------------
# Stand-ins
# --------------------------------------------------------------------------------------------


def _unbound_call(*args: Any, **kwargs: Any) -> Any:  # its code runs with the tool module's globals
    raise RuntimeError("langacp: a shared graph's stand-in ran instead of the running session's own object")


async def _unbound_acall(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("langacp: a shared graph's stand-in ran instead of the running session's own object")


def _stand_in_function(fn: Any) -> Any:
    """A function with ``fn``'s name, signature and annotations that raises: it holds nothing of ``fn``.

    ``ToolNode`` reads a tool's function for its injected arguments (its annotations, resolved in
    its module); the stand-in tells it the same and never runs (the session's own tool runs).
    """
    if fn is None:
        return None
    func = getattr(fn, "__func__", fn)
    code = (_unbound_acall if inspect.iscoroutinefunction(func) else _unbound_call).__code__
    copy = types.FunctionType(code, func.__globals__, func.__name__)
    copy.__annotations__ = dict(func.__annotations__)
    copy.__qualname__, copy.__doc__, copy.__module__ = func.__qualname__, func.__doc__, func.__module__
    copy.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return copy


def _stand_in(tool: Any) -> Any:
    """The tool as the shared graph holds it: its name, schema and signature, none of a session's objects."""
    if isinstance(tool, dict):
        return tool
    return tool.model_copy(
        update={
            "func": _stand_in_function(tool.func),
            "coroutine": _stand_in_function(tool.coroutine),
            "metadata": None,
            "callbacks": None,
        }
    )


@functools.cache
def _unbound_model_class() -> type[Any]:
    from langchain_core.language_models import BaseChatModel

    class UnboundModel(BaseChatModel):
        """The shared graph's model: each model call is given the session's own (it raises if it is not)."""

        @property
        def _llm_type(self) -> str:
            return "langacp-unbound"

        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(UNBOUND)

        async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(UNBOUND)

    return UnboundModel


_STAND_IN_CLASSES: weakref.WeakKeyDictionary[type[Any], type[Any]] = weakref.WeakKeyDictionary()
"""A stand-in class per middleware class (dropped with the class: a class made per session never stays)."""


_BOUND_HOOKS = ("awrap_model_call", "awrap_tool_call")  # a stand-in may bind their request (_bind_request)


def _bind_request(hook: str, parts: _Parts, request: Any) -> tuple[Any, Any]:
    """``(request with the session's own model or tool of that name, None)``, or ``(None, refusal)``
    for a tool call the session has no tool for: the graph's stand-in never runs in its place."""
    if hook == "awrap_model_call":
        return (request if parts.model is request.model else request.override(model=parts.model)), None
    tool = parts.tools.get(request.tool_call["name"])
    if tool is None and request.tool is not None:  # (no tool at all: LangChain answers it as unknown)
        from langchain_core.messages import ToolMessage

        name, call_id = request.tool_call["name"], request.tool_call.get("id") or ""
        log.error("langacp: the tool %r is not bound to the running session: refused", name)
        text = f"The call to {name} did not run: this session has no such tool. Do not retry it unchanged."
        return None, ToolMessage(content=text, tool_call_id=call_id, name=name, status="error")
    return (request if tool is None or tool is request.tool else request.override(tool=tool)), None


def _delegate(hook: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(impl):
        if hook in _BOUND_HOOKS:

            async def bound(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
                parts = _parts(self._token)
                if hook in self._binds:
                    request, refusal = _bind_request(hook, parts, request)
                    if refusal is not None:
                        return refusal
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
            for hook in middleware_hooks()
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

    async def awrap_tool_call(self: Any, request: Any, handler: Callable[[Any], Any]) -> Any:
        request, refusal = _bind_request("awrap_tool_call", _parts(token), request)
        return refusal if refusal is not None else await handler(request)

    async def awrap_model_call(self: Any, request: Any, handler: Callable[[Any], Any]) -> Any:
        return await handler(_bind_request("awrap_model_call", _parts(token), request)[0])

    hooks = {"awrap_tool_call": awrap_tool_call} if bind_tools else {}
    hooks.update({"awrap_model_call": awrap_model_call} if bind_model else {})
    return type("SessionBinding", (AgentMiddleware,), {"name": BINDING_NAME, **hooks})()
