"""What ``langacp serve TARGET`` serves: a compiled graph, or a factory that builds one per session.

TARGET is ``package.module:attr`` or ``path/to/file.py:attr`` (``attr`` defaults to ``agent``,
then ``graph``). A **factory** is a callable taking a :class:`SessionSetup` (sync or async) and
returning a compiled graph: it is how plugins reach inside the agent (middleware, tools,
system-prompt additions). A **compiled graph** is served as it is: nothing can be inserted
into it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from langacp.hints import closest, import_fix, where_raised
from langacp.tool_names import merge_tools, tell_left_out
from langacp.types import SessionContext

if TYPE_CHECKING:
    from langacp.shared_graphs import SharedGraphs

__all__ = [
    "TARGET_GROUP",
    "DriverTarget",
    "SessionSetup",
    "Target",
    "TargetDriver",
    "TargetError",
    "load_target",
    "load_target_driver",
]

DEFAULT_ATTRS = ("agent", "graph")
TARGET_GROUP = "langacp.targets"
"""Entry-point group (stevedore) of target drivers: ways to serve something that is not imported."""


class TargetError(Exception):
    """TARGET could not be imported or is not something langacp can serve; ``fix`` says what to do."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


class SessionSetup:
    """What plugins contribute to one session's agent; a factory passes it on to ``create_agent``.

    The simplest factory::

        def agent(setup: SessionSetup):
            return setup.create_agent(model, tools=[my_tool], system_prompt="You are …")

    A factory that builds its agent by hand must pass ``setup.middleware`` on: it carries the
    core's tool guard (permission policy, tool errors). langacp warns when it is never read.
    """

    def __init__(
        self,
        session: SessionContext,
        checkpointer: Any,
        middleware: Sequence[Any] = (),
        tools: Sequence[Any] = (),
        system_prompt_additions: Sequence[str] = (),
        *,
        graphs: SharedGraphs | None = None,
        replace_instructions: bool = False,
    ) -> None:
        self.session = session
        self.checkpointer = checkpointer
        """The session store's LangGraph checkpointer: pass it to ``create_agent``."""
        self._middleware = list(middleware)
        self.middleware_used = False
        """Whether the factory read :attr:`middleware` (directly or through :meth:`create_agent`)."""
        self.tools = list(tools)
        self.system_prompt_additions = list(system_prompt_additions)
        self.replace_instructions = replace_instructions
        """The client's ``systemPrompt`` overrides the factory's instructions (``base`` of :meth:`system_prompt`)."""
        self.prompt_asked = False
        """Whether the factory built its instructions through :meth:`system_prompt` (or :meth:`create_agent`)."""
        self.graphs = graphs
        """Where :meth:`create_agent` finds the graph of a configuration already compiled
        (``langacp serve`` passes its own; ``None``: every call compiles, as ``create_agent`` does)."""

    @property
    def middleware(self) -> list[Any]:
        """LangChain middleware to pass to ``create_agent``: the core's first, then plugins'."""
        self.middleware_used = True
        return self._middleware

    @middleware.setter
    def middleware(self, value: Sequence[Any]) -> None:
        self._middleware = list(value)

    def tools_with(self, tools: Sequence[Any]) -> list[Any]:
        """Your ``tools`` first, then the plugins' tools whose names yours do not take.

        A plugin tool named like one of yours is left out, with one warning on stderr: yours
        is the one that runs (see :func:`langacp.tool_names.merge_tools`).
        """
        return merge_tools(tools, self.tools, self.session)

    def system_prompt(self, base: str | None = None) -> str | None:
        """``base`` followed by the plugins' additions (``None`` if there is nothing).

        When the client's unstable ``systemPrompt`` is an ``override``, ``base`` (your agent's own
        instructions) is left out; the plugins' additions, the client's text last, stay.
        """
        self.prompt_asked = True
        parts = [p for p in (None if self.replace_instructions else base, *self.system_prompt_additions) if p]
        return "\n\n".join(parts) if parts else None

    def create_agent(
        self,
        model: Any,
        tools: Sequence[Any] = (),
        *,
        system_prompt: str | None = None,
        middleware: Sequence[Any] = (),
        **kwargs: Any,
    ) -> Any:
        """``langchain.agents.create_agent`` with this session's contributions merged in.

        Your tools win a name clash with a plugin's (:meth:`tools_with`).

        Under ``langacp serve`` the compiled graph is shared by the sessions built alike (the same
        model class or name, prompt, tools and middleware classes: one *configuration*), each
        session's own model, middleware and tools bound to it at run time; see
        :mod:`langacp.shared_graphs`. ``share_graph=False`` compiles a graph for this session alone.
        """
        from langchain.agents import create_agent

        share = kwargs.pop("share_graph", True)
        kwargs["checkpointer"] = kwargs.pop("checkpointer", self.checkpointer)
        merged_tools = self.tools_with(tools)
        prompt = self.system_prompt(system_prompt)
        merged_middleware = [*self.middleware, *middleware]
        if self.graphs is not None and share:
            return self.graphs.create_agent(self.session, model, merged_tools, prompt, merged_middleware, kwargs)
        return create_agent(model, tools=merged_tools, system_prompt=prompt, middleware=merged_middleware, **kwargs)


@dataclass
class Target:
    """A resolved TARGET: exactly one of ``graph`` and ``factory`` is set."""

    spec: str
    graph: Any = None
    factory: Any = None
    store: Any = None
    """A target that keeps its own sessions (a server's threads) brings its ``SessionStore``:
    it is used instead of ``--store``, and ``graph`` is served with the checkpointer it has."""
    notice: str | None = None
    """Logged once when the target is loaded (what works and what does not)."""

    @property
    def is_factory(self) -> bool:
        return self.factory is not None

    async def build(self, setup: SessionSetup) -> Any:
        """The compiled graph for one session (the shared graph, for a precompiled target).

        A ``ValueError`` / ``TypeError`` the factory raises becomes a :class:`TargetError` naming
        the cause and where it was raised (answered -32603, an internal error, not -32602).
        """
        if self.factory is None:
            return _overridable(setup, self.graph)
        try:
            result = self.factory(setup) if _takes_setup(self.factory) else self.factory()
            if inspect.isawaitable(result):
                result = await result
        except (ValueError, TypeError) as exc:  # the agent's bug, not the client's: never "invalid params"
            raise TargetError(
                f"the agent {self.spec} failed to build this session's graph: {type(exc).__name__}: {exc}",
                where_raised(exc),
            ) from exc
        if not _is_graph(result):
            raise TargetError(f"factory {self.spec} returned {type(result).__name__}, not a compiled graph")
        await tell_left_out(setup.session)
        return _overridable(setup, result)


def _overridable(setup: SessionSetup, graph: Any) -> Any:
    """``graph``, unless the client overrides the instructions and they were not built through ``setup``.

    ACP asks for an error then (-32602: the session is not opened), not a session that ignores the override.
    """
    if setup.replace_instructions and not setup.prompt_asked:
        raise ValueError("this agent's instructions cannot be overridden (systemPrompt mode override)")
    return graph


@dataclass(frozen=True)
class DriverTarget:
    """A TARGET served by the driver ``driver`` (group ``langacp.targets``) instead of being imported.

    ``langacp serve --remote URL GRAPH`` is ``DriverTarget("remote", "GRAPH", {"url": URL, …})``.
    """

    driver: str
    spec: str
    options: Mapping[str, Any] = field(default_factory=dict)


class TargetDriver(Protocol):
    """What a target driver provides (instantiated without arguments)."""

    persistent: ClassVar[bool]
    """Whether its sessions outlive the process (``loadSession`` is offered)."""
    # Optional: ``deletable: ClassVar[bool] = True`` when its store's ``delete(session_id)`` removes
    # the session's threads too (``session/delete`` is offered then).

    def check(self, target: DriverTarget) -> None:
        """Raise :class:`TargetError` with a one-line reason if ``target`` cannot be served (at start)."""

    async def load(self, target: DriverTarget) -> Target:
        """The :class:`Target` to serve, usually with its own ``store``."""


def load_target_driver(name: str) -> TargetDriver:
    """The target driver registered as ``name`` in group ``langacp.targets``; :class:`TargetError` if none."""
    from stevedore import DriverManager

    try:
        manager: Any = DriverManager(namespace=TARGET_GROUP, name=name, invoke_on_load=True)
    except Exception as exc:  # stevedore raises NoMatches / NoUniqueMatch / import errors
        raise TargetError(f"no target driver {name!r} is installed (entry-point group {TARGET_GROUP}): {exc}") from exc
    driver: TargetDriver = manager.driver
    return driver


_TAKES_SETUP: dict[Any, bool] = {}


def _takes_setup(factory: Any) -> bool:
    """Whether the factory has a required positional parameter (the setup): worked out once per factory."""
    try:
        return _TAKES_SETUP[factory]
    except (KeyError, TypeError):  # not seen yet, or not hashable
        pass
    takes = any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        for p in inspect.signature(factory).parameters.values()
    )
    try:
        _TAKES_SETUP[factory] = takes
    except TypeError:
        pass
    return takes


def _is_graph(obj: Any) -> bool:
    from langgraph.pregel import Pregel

    return isinstance(obj, Pregel)


def _import_file(path: Path) -> Any:
    name = f"_langacp_target_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # sibling imports, as `python file.py` allows
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _servable_names(module: Any) -> list[str]:
    """The module's public attributes a TARGET could name: factories and graphs (not modules or classes)."""
    import types

    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, (types.ModuleType, type))
        and (callable(value) or hasattr(value, "invoke"))
    ]


def load_target(spec: str) -> Target:
    """Import TARGET and tell a compiled graph from a factory."""
    module_part, _, attr = spec.partition(":")
    if not module_part:
        raise TargetError(f"empty TARGET {spec!r}: expected module:attr or path/to/file.py:attr")
    try:
        if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
            path = Path(module_part).expanduser().resolve()
            if not path.is_file():
                raise TargetError(f"no such file: {path}")
            module = _import_file(path)
        else:
            if "" not in sys.path and str(Path.cwd()) not in sys.path:
                sys.path.insert(0, str(Path.cwd()))
            module = importlib.import_module(module_part)
    except TargetError:
        raise
    except Exception as exc:
        raise TargetError(
            f"cannot import {module_part}: {type(exc).__name__}: {exc}", import_fix(exc, module_part)
        ) from exc
    attrs = [attr] if attr else list(DEFAULT_ATTRS)
    for name in attrs:
        obj = module
        try:
            for part in name.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        if _is_graph(obj):
            return Target(spec, graph=obj)
        if callable(obj):
            return Target(spec, factory=obj)
        raise TargetError(f"{spec} is a {type(obj).__name__}: expected a compiled graph or a factory")
    names = _servable_names(module)
    guess = closest(attrs[0], names) if attr else None
    if guess is not None:
        raise TargetError(
            f"{module_part} has no attribute {attr!r}; did you mean `{guess}`?", f"serve {module_part}:{guess}"
        )
    listed = ", ".join(sorted(names)[:8]) or "none"
    raise TargetError(
        f"{module_part} has no attribute {' or '.join(attrs)}",
        f"name one of its factories or graphs after the colon ({listed})",
    )
