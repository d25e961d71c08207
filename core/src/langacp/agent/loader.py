"""The agent's target and session store, loaded in the background once per connection."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp import RequestError

from langacp.stores import SessionStore, load_store_driver, open_store

if TYPE_CHECKING:
    from langacp.target import DriverTarget, Target

__all__ = ["Loader"]

log = logging.getLogger("langacp.agent")


class Loader:
    """Imports the target and opens the store off the event loop; every request awaits the same load."""

    def __init__(self, target_spec: str | DriverTarget | None, store_url: str) -> None:
        self.target_spec = target_spec
        self.store_url = store_url
        self._ready: asyncio.Task[tuple[Target, SessionStore]] | None = None
        self._persistent: bool | None = None
        self.on_fatal: Callable[[str], None] | None = None
        self._stage = "target"
        """What ``_load`` is doing: ``target`` (importing it), then ``store``."""
        """Called with a one-line reason when the target or the store cannot be loaded (``langacp serve`` exits)."""

    def start(self) -> None:
        """Start importing the target and opening the store in the background (idempotent)."""
        if self._ready is None:
            self._ready = asyncio.get_running_loop().create_task(self._load(), name="langacp.load")
            self._ready.add_done_callback(self._load_done)

    def ready(self) -> bool:
        """The target and store are loaded (and did not fail)."""
        return (
            self._ready is not None
            and self._ready.done()
            and not self._ready.cancelled()
            and not self._ready.exception()
        )

    def _load_done(self, task: asyncio.Task[Any]) -> None:
        """A target that cannot load is fatal when served (``on_fatal``); a store that cannot be
        opened (a database that may come back) fails each session request with the reason."""
        if task.cancelled() or task.exception() is None:
            return
        if self._stage != "target":
            log.error("langacp: cannot open the session store: %s", task.exception())
            return
        exc = task.exception()
        details = getattr(exc, "data", None)
        if isinstance(details, dict):
            details = details.get("details", details)
        message = f"cannot serve {self.target_spec}: {details or exc}"
        fix = getattr(exc, "fix", "")
        if fix:
            message += f"; fix: {fix}"
        if self.on_fatal is not None:
            self.on_fatal(message)
        else:
            log.error("langacp: %s", message)

    async def target_and_store(self) -> tuple[Target, SessionStore]:
        """The loaded target and store; -32603 with the reason if they cannot be loaded."""
        self.start()
        assert self._ready is not None
        try:
            return await asyncio.shield(self._ready)
        except RequestError:
            raise
        except Exception as exc:
            raise RequestError.internal_error({"details": f"cannot load the agent: {exc}"}) from exc

    async def store(self) -> SessionStore:
        """The session store (loading the target too)."""
        _target, store = await self.target_and_store()
        return store

    def persistent(self) -> bool:
        """Whether the store driver keeps sessions across processes (so ``session/load`` is offered)."""
        if self._persistent is None:
            from langacp.target import DriverTarget, load_target_driver

            try:
                if isinstance(self.target_spec, DriverTarget):  # the target keeps its own sessions
                    self._persistent = bool(load_target_driver(self.target_spec.driver).persistent)
                    return self._persistent
                self._persistent = bool(load_store_driver(self.store_url).persistent)
            except Exception:
                log.exception("langacp: cannot load session store driver for %r", self.store_url)
                self._persistent = False
        return self._persistent

    def deletable(self) -> bool:
        """Whether the store driver can delete a session (so ``session/delete`` is offered)."""
        from langacp.target import DriverTarget

        try:
            if isinstance(self.target_spec, DriverTarget):  # the target keeps its own sessions
                from langacp.target import load_target_driver

                return bool(getattr(load_target_driver(self.target_spec.driver), "deletable", False))
            return hasattr(load_store_driver(self.store_url), "delete")
        except Exception:  # noqa: BLE001 - a broken driver is reported by persistent(); it offers no delete
            return False

    async def aclose(self) -> None:
        """Close the store if it was opened."""
        if self._ready is not None and self._ready.done() and not self._ready.exception():
            _, store = self._ready.result()
            try:
                await asyncio.wait_for(store.aclose(), timeout=1.0)
            except Exception:
                log.exception("closing the session store failed")

    async def _load(self) -> tuple[Target, SessionStore]:
        from langacp import startup_gc, startup_imports

        try:
            return await self._load_both()
        finally:
            startup_gc.resume()  # start-up is over: what it built is left out of later collections
            startup_imports.unblock()

    async def _load_both(self) -> tuple[Target, SessionStore]:
        # A short pause lets the initialize response leave before the imports hold the GIL.
        await asyncio.sleep(0.01)
        from langacp.target import DriverTarget, load_target_driver

        if isinstance(self.target_spec, DriverTarget):
            spec = self.target_spec
            target = await (await asyncio.to_thread(load_target_driver, spec.driver)).load(spec)
        else:
            target = await asyncio.to_thread(self._load_target)
        self._stage = "store"
        store = target.store if target.store is not None else await asyncio.to_thread(open_store, self.store_url)
        opener = getattr(store, "aopen", None)
        if opener is not None:  # drivers whose connection must be made on the event loop
            await opener()
        if not target.is_factory and getattr(target.graph, "checkpointer", None) is None:
            target.graph = target.graph.copy(update={"checkpointer": store.checkpointer})
        if target.notice:
            log.warning("langacp: %s", target.notice)
        elif not target.is_factory:
            log.warning(
                "langacp: %s is a precompiled graph: plugins cannot add middleware or tools to it, so "
                "permission policies and modes are not enforced before its tools run (only its own "
                "HumanInTheLoopMiddleware interrupts reach the editor). Serve a factory to get them.",
                target.spec,
            )
        return target, store

    def _load_target(self) -> Target:
        from langacp import tracing
        from langacp.target import load_target

        if not self.target_spec or not isinstance(self.target_spec, str):
            raise RequestError.internal_error({"details": "no TARGET to serve"})
        tracing.install()  # before the application's code: an override of its own replaces this one
        return load_target(self.target_spec)
