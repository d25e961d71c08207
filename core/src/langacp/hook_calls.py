"""Synchronous hooks called without pluggy's general machinery, with the same answers.

pluggy's ``HookCaller.__call__`` copies the implementation list, checks the arguments against
the spec and runs ``_multicall``, which handles wrappers and teardowns: a few microseconds per
call, most of a mapper's cost when the implementation is a dictionary lookup (a replay of a
long session asks thousands). :class:`DirectCalls` calls the registered implementations itself
when nothing that machinery exists for is in play, and hands the call to pluggy otherwise.

Sound by construction, assuming only pluggy's public API:

- the implementations are read from ``HookCaller.get_hookimpls()`` at every call and the plan
  is rebuilt when that list changed (a plugin registered or unregistered, in any way);
- a hook with a wrapper (``wrapper`` / ``hookwrapper``) or an implementation taking keyword-only
  arguments goes to pluggy; so does a call missing an argument an implementation takes (pluggy
  fills a spec's defaults or raises ``HookCallError``), decided before any implementation runs;
- once call monitoring is installed on the manager (``add_hookcall_monitoring``, which
  ``enable_tracing`` uses), every call goes to pluggy (:class:`MonitoredManager` records it);
- the order is pluggy's (the list reversed: last registered and ``tryfirst`` first), each
  implementation gets its arguments by name as ``_multicall`` gives them, ``None`` means "no
  answer", a first-result hook stops at the first other answer, an exception propagates.

``tests: core/tests/test_hook_calls.py`` compares both ways on every facade hook.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import Any

import pluggy

__all__ = ["DirectCalls", "MonitoredManager"]

_Plan = tuple[tuple[Callable[..., Any], Callable[[Mapping[str, Any]], tuple[Any, ...]]], ...]


class MonitoredManager(pluggy.PluginManager):
    """A ``PluginManager`` that remembers whether call monitoring was ever installed on it."""

    monitored = False

    def add_hookcall_monitoring(self, before: Any, after: Any) -> Callable[[], None]:
        self.monitored = True
        return super().add_hookcall_monitoring(before, after)


class DirectCalls:
    """Calls of a manager's synchronous hooks: directly when that gives pluggy's answer, else through pluggy."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self._plans: dict[str, tuple[list[Any], _Plan | None, frozenset[str], bool]] = {}

    def call(self, hook: str, kwargs: Mapping[str, Any]) -> Any:
        """``pm.hook.<hook>(**kwargs)``: a first-result hook's first answer other than ``None``, else all such."""
        caller = getattr(self.pm.hook, hook)
        impls = caller.get_hookimpls()
        known = self._plans.get(hook)
        if known is None or known[0] != impls:
            first = bool(caller.spec is not None and caller.spec.opts.get("firstresult"))
            known = self._plans[hook] = (impls, *_plan(impls), first)
        _, plan, needed, first = known
        if plan is None or getattr(self.pm, "monitored", True) or not kwargs.keys() >= needed:
            return caller(**kwargs)
        if first:
            for function, arguments in plan:
                answer = function(*arguments(kwargs))
                if answer is not None:
                    return answer
            return None
        answers = []
        for function, arguments in plan:
            answer = function(*arguments(kwargs))
            if answer is not None:
                answers.append(answer)
        return answers


def _plan(impls: list[Any]) -> tuple[_Plan | None, frozenset[str]]:
    """The implementations in pluggy's calling order with their argument names; ``None`` when pluggy must call."""
    plan = []
    needed: set[str] = set()
    for impl in reversed(impls):
        if impl.hookwrapper or impl.wrapper or getattr(impl, "kwargnames", ()):
            return None, frozenset()
        plan.append((impl.function, _arguments(tuple(impl.argnames))))
        needed.update(impl.argnames)
    return tuple(plan), frozenset(needed)


def _arguments(names: tuple[str, ...]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """A function picking ``names``' values, in order, out of a call's keyword arguments (as a tuple)."""
    if len(names) >= 2:
        return itemgetter(*names)  # a tuple already
    if names:
        name = names[0]
        return lambda kwargs: (kwargs[name],)
    return lambda kwargs: ()
