"""Synchronous hooks called without pluggy's general machinery, with the same answers.

pluggy's ``HookCaller.__call__`` copies the implementation list, checks the arguments against
the spec and runs ``_multicall``, which handles wrappers and teardowns: a few microseconds per
call, most of a mapper's cost when the implementation is a dictionary lookup (a replay of a
long session asks thousands). :class:`DirectCalls` calls the registered implementations itself
when nothing that machinery exists for is in play, and hands the call to pluggy otherwise.

Sound by construction, assuming only pluggy's public API:

- a hook's plan (its implementations in calling order) is rebuilt whenever the manager's
  registrations or specs may have changed: :class:`MonitoredManager` counts every call of the
  public methods that change them (``register``, ``unregister``, which ``set_blocked`` uses,
  ``add_hookspecs``, ``add_hookcall_monitoring``), and the plan also keeps the hook's caller and
  spec object, compared at every call (``HookCaller.set_specification`` called on its own);
  ``core/tests/test_hook_calls.py`` pins pluggy's public methods, so a new way to change them fails it;
- a hook with a wrapper (``wrapper`` / ``hookwrapper``) or an implementation taking keyword-only
  arguments goes to pluggy; so does a call missing an argument an implementation takes (pluggy
  fills a spec's defaults or raises ``HookCallError``), decided before any implementation runs;
- once call monitoring is installed on the manager (``add_hookcall_monitoring``, which
  ``enable_tracing`` uses), every call goes to pluggy (:class:`MonitoredManager` records it);
  a manager that is not a :class:`MonitoredManager` always calls through pluggy;
- the order is pluggy's (the list reversed: last registered and ``tryfirst`` first), each
  implementation gets its arguments by name as ``_multicall`` gives them, ``None`` means "no
  answer", a first-result hook stops at the first other answer, an exception propagates;
- an implementation :mod:`langacp.hook_guard` wrapped is run as its wrapper runs it
  (:class:`~langacp.hook_guard.Guarded`: the same failure and awaitable handling), without the
  wrapper's own call.

``tests: core/tests/test_hook_calls.py`` compares both ways on every facade hook.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import Any

import pluggy

from langacp.hook_guard import PLAIN_RESULTS, Guarded

__all__ = ["DirectCalls", "MonitoredManager"]

_Step = tuple[Callable[..., Any], Callable[[Mapping[str, Any]], tuple[Any, ...]], "Guarded | None"]
_Plan = tuple[_Step, ...]


class MonitoredManager(pluggy.PluginManager):
    """A ``PluginManager`` that remembers whether call monitoring was ever installed on it, and
    counts the changes to its registrations and specs (``changes``)."""

    monitored = False
    changes = 0

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        try:
            return super().register(plugin, name)
        finally:
            self.changes += 1

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        try:
            return super().unregister(plugin, name)
        finally:
            self.changes += 1

    def add_hookspecs(self, module_or_class: Any) -> None:
        try:
            super().add_hookspecs(module_or_class)
        finally:
            self.changes += 1

    def add_hookcall_monitoring(self, before: Any, after: Any) -> Callable[[], None]:
        self.monitored = True
        self.changes += 1
        return super().add_hookcall_monitoring(before, after)


class DirectCalls:
    """Calls of a manager's synchronous hooks: directly when that gives pluggy's answer, else through pluggy."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self._counted = pm if isinstance(pm, MonitoredManager) else None
        """The manager, when it counts its changes (else every call goes through pluggy)."""
        self._plans: dict[str, tuple[int, Any, Any, _Plan | None, frozenset[str], bool]] = {}

    def call(self, hook: str, kwargs: Mapping[str, Any]) -> Any:
        """``pm.hook.<hook>(**kwargs)``: a first-result hook's first answer other than ``None``, else all such."""
        pm = self._counted
        if pm is None:
            return getattr(self.pm.hook, hook)(**kwargs)
        known = self._plans.get(hook)
        if known is None or known[0] != pm.changes or known[1].spec is not known[2]:
            known = self._plan_of(pm, hook)
        _, caller, _, plan, needed, first = known
        if plan is None or pm.monitored or not kwargs.keys() >= needed:
            return caller(**kwargs)
        answers = []
        for function, arguments, guarded in plan:
            if guarded is None:
                answer = function(*arguments(kwargs))
            else:
                args = arguments(kwargs)
                try:
                    answer = function(*args)
                except Exception as exc:  # noqa: BLE001 - the guard's handling: logged and skipped, or re-raised
                    answer = guarded.failure(exc, args)
                else:
                    if answer is not None and type(answer) not in PLAIN_RESULTS and inspect.isawaitable(answer):
                        answer = guarded.awaitable(answer, args)
            if answer is not None:
                if first:
                    return answer
                answers.append(answer)
        return None if first else answers

    def _plan_of(self, pm: MonitoredManager, hook: str) -> tuple[int, Any, Any, _Plan | None, frozenset[str], bool]:
        changes = pm.changes
        caller = getattr(pm.hook, hook)
        spec = caller.spec
        first = bool(spec is not None and spec.opts.get("firstresult"))
        known = self._plans[hook] = (changes, caller, spec, *_plan(caller.get_hookimpls()), first)
        return known


def _plan(impls: list[Any]) -> tuple[_Plan | None, frozenset[str]]:
    """The implementations in pluggy's calling order with their argument names; ``None`` when pluggy must call."""
    plan: list[_Step] = []
    needed: set[str] = set()
    for impl in reversed(impls):
        if impl.hookwrapper or impl.wrapper or getattr(impl, "kwargnames", ()):
            return None, frozenset()
        guarded = getattr(impl.function, "guarded", None)
        if type(guarded) is Guarded:
            plan.append((guarded.function, _arguments(tuple(impl.argnames)), guarded))
        else:
            plan.append((impl.function, _arguments(tuple(impl.argnames)), None))
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
