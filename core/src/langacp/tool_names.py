"""One tool per name: the agent's own tools win a name clash with a tool a plugin contributes.

LangChain keeps the last tool of a name (and a provider rejects two tools of one name), so
putting a plugin's ``write_file`` after the app's would silently replace the app's. Instead
the plugin's tool is left out, with one warning on stderr naming both. Plugins that act on
their tools by name (a diff preview, a kind) ask :func:`left_out` first.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langacp.running import running_session
from langacp.types import SessionContext

__all__ = [
    "CHECK_KEY",
    "LeftOut",
    "current_session",
    "left_out",
    "merge_tools",
    "origin_of",
    "session_tool",
    "tell_left_out",
]

log = logging.getLogger("langacp")

CHECK_KEY = "langacp_check"
"""``BaseTool.metadata`` key of a tool's own check of its arguments, which the core's tool guard
runs before the permission policy (``langacp.middleware``): a callable given the arguments,
returning why the call cannot run, or ``None``."""


@dataclass
class LeftOut:
    """The plugin tools left out of a session's agent (in ``session.scratch``, only once there are some)."""

    tools: list[Any] = field(default_factory=list)


def _left_out_of(session: SessionContext) -> list[Any]:
    """The plugin tools left out of ``session``'s agent, making nothing when none were (most sessions)."""
    found = session.scratch_if_any(LeftOut)
    return found.tools if found is not None else []


_warned: set[tuple[str, str, str]] = set()


def origin_of(tool: Any) -> str:
    """Where a tool comes from, for messages: its function's module (``my_pkg.agent``) or its class."""
    func = getattr(tool, "coroutine", None) or getattr(tool, "func", None)
    module = getattr(func, "__module__", None) or type(tool).__module__
    return str(module)


def _name(tool: Any) -> str | None:
    name = getattr(tool, "name", None)
    if name is None and callable(tool):
        name = getattr(tool, "__name__", None)  # a plain function becomes a tool of its name
    return name if isinstance(name, str) else None


def merge_tools(own: Sequence[Any], contributed: Sequence[Any], session: SessionContext | None = None) -> list[Any]:
    """``own`` tools, then the ``contributed`` (plugins') tools whose name is still free.

    A plugin tool of a name already taken (by one of ``own``, or an earlier plugin tool) is
    left out with one warning naming both; ``session`` (when given) records it (:class:`LeftOut`)
    so the plugin can tell its tool is not the one that runs.
    """
    merged = list(own)
    taken: dict[str, Any] = {}
    for tool in merged:
        name = _name(tool)
        if name is not None:
            taken.setdefault(name, tool)
    dropped: list[Any] = []
    for tool in contributed:
        name = _name(tool)
        kept = taken.get(name) if name is not None else None
        if kept is None:
            if name is not None:
                taken[name] = tool
            merged.append(tool)
            continue
        dropped.append(tool)
        whose = "the agent's own" if any(kept is t for t in own) else "another plugin's"
        key = (name or "", origin_of(kept), origin_of(tool))
        if key not in _warned:
            _warned.add(key)
            log.warning(
                "langacp: the plugin tool %r (from %s) has the same name as %s tool %r (from %s); "
                "the plugin's tool is left out",
                name,
                origin_of(tool),
                whose,
                name,
                origin_of(kept),
            )
    if session is not None and (dropped or _left_out_of(session)):
        session.scratch(LeftOut).tools = dropped
    return merged


def left_out(session: SessionContext, tool: Any) -> bool:
    """Whether ``tool`` (a plugin's) was left out of the session's agent because its name was taken."""
    return any(t is tool for t in _left_out_of(session))


async def tell_left_out(session: SessionContext) -> None:
    """A notice per plugin tool :func:`merge_tools` left out of ``session``'s agent, to a client that shows
    notices (the warning on stderr is the others')."""
    for tool in _left_out_of(session):
        name = _name(tool) or "?"
        text = f"The plugin tool {name!r} (from {origin_of(tool)}) is named like another tool: that one runs."
        await session.notify("warning", f"Tool {name} left out", text)


def current_session() -> SessionContext | None:
    """The session whose turn the calling code runs in (a tool, its check, a middleware), else ``None``.

    For a tool made once and offered to every session: at each call it finds the session it acts
    for here, from the running turn (which LangChain and LangGraph carry into the graph, its tasks
    and the worker thread of a sync tool). Such a tool must refuse to act when this is ``None``
    (outside a turn) or a session it was not offered to; :func:`session_tool` gives a session its
    own copy instead.
    """
    session: SessionContext | None = running_session()
    return session


_EVERY_FIELD: dict[type[Any], set[str]] = {}
"""Per tool class: the names of all its fields, the ``model_fields_set`` every :func:`session_tool` copy shares."""


def session_tool(template: Any, **update: Any) -> Any:
    """A copy of ``template`` (a LangChain tool made once, holding no session's objects) with ``update``.

    For a plugin that gives every session its own copy of one tool (``coroutine``: the session's
    function; ``metadata``: its check). Like ``template.model_copy(update=update)``, but each
    copy does not carry its own set of the field names pydantic records as explicitly set (a
    set is most of a shallow copy): every copy of a class shares one set holding all of its
    fields, which setting a field leaves as it is (it adds a name already there). The values
    stay each copy's own; nothing else is shared. A tool class that accepts extra fields, or an
    update naming something other than a field, gets an ordinary ``model_copy``.
    """
    cls = type(template)
    fields = getattr(cls, "model_fields", None)
    if (
        not isinstance(fields, dict)
        or not hasattr(cls, "model_construct")
        or cls.model_config.get("extra") == "allow"
        or not update.keys() <= fields.keys()
    ):
        return template.model_copy(update=update)
    every = _EVERY_FIELD.get(cls)
    if every is None:
        every = _EVERY_FIELD[cls] = set(fields)
    return cls.model_construct(_fields_set=every, **{**template.__dict__, **update})
