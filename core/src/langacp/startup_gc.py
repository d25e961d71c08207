"""The cyclic garbage collector paused while ``langacp serve`` starts, then told to skip what start-up made.

Starting builds well over a hundred thousand long-lived objects (the ACP SDK's pydantic models,
LangChain, the target) and almost no garbage, yet the collector keeps walking them: measured
here, ~10 % of spawn → ``session/new`` went to collections that freed nothing. ``langacp serve``
pauses it from the start until the target and the store are loaded, then moves every object
alive at that point to the permanent generation (``gc.freeze()``: later full collections skip
them; reference counting still frees them) and turns it back on. Freeing by reference count,
which frees nearly everything, is never paused.

It also empties :mod:`linecache`: the SDK's schema models take their field descriptions from
their source (pydantic's ``use_attribute_docstrings``), which leaves every line of
``acp/schema.py`` cached for the life of the process (~0.5 MB, measured with ``tracemalloc``).
A traceback reads a file again when it needs it.

The price, measured (graph form, lean environment, 2026-11-27): the cyclic garbage that importing
LangChain and pydantic leaves (~2,700 objects, ~1.3 MB traced, most of it copies of
:data:`sys.modules` held by ``inspect.signature``'s closures) is frozen with the rest and never
freed: +1.0 MB RSS after 100 sessions (89.5 against 88.5 MB). Getting it back costs a pass over
every start-up object: ``gc.collect()`` before the freeze +100 ms CPU of spawn → ``session/new``
(-0.7 MB), young-generation collections only during start-up +45-145 ms (-1.0 MB), no pause
+145 ms (-1.0 MB), against 1.23 s in all. Not worth it: the pause stays.
"""

from __future__ import annotations

import gc
import linecache

__all__ = ["pause", "resume"]

_paused = False


def pause() -> None:
    """Pause the collector for start-up (``langacp serve`` only; a no-op if it is already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """After start-up: what exists now is left out of later collections, and the collector runs again.

    A no-op unless :func:`pause` turned it off (an application or a test that embeds the agent
    keeps its own collector as it is).
    """
    global _paused
    if _paused:
        _paused = False
        linecache.clearcache()  # before the freeze: the cached lines are garbage, not start-up state
        gc.freeze()
        gc.enable()
