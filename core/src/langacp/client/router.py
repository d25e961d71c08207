"""Where an agent's callbacks go: the local handler and permission policy, or an attached upstream client.

:class:`CallbackRouter` is the ``acp.Client`` object a connection hands to the SDK. It sends
each ``session/update`` to the handler's ``on_update``, to the listeners and to the upstream
client if one is attached; ``session/request_permission`` to the policy's rules, then the
upstream (if attached) or the policy's ``ask_else``; ``fs/*`` and ``terminal/*`` to the
upstream if it declared the capability, else to the local handler. Detaching falls back to
the local handler and policy.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from langacp.client.policy import PermissionPolicy, PermissionRecord, PermissionRequest, answer_record

if TYPE_CHECKING:
    from acp.schema import (
        ClientCapabilities,
        PermissionOption,
        RequestPermissionResponse,
        SessionNotification,
        ToolCallUpdate,
    )

__all__ = ["CallbackRouter", "Listener", "notification"]

log = logging.getLogger(__name__)

Listener = Callable[["SessionNotification"], Awaitable[None] | None]
"""Called with every ``session/update`` of a session (or of all sessions)."""


def notification(session_id: str, update: Any, meta: dict[str, Any] | None = None) -> SessionNotification:
    """A ``SessionNotification`` of parts the SDK has validated already, without validating them again.

    Per token this matters: validating costs ~7 µs here, pydantic's ``model_construct`` ~8 µs, this ~3 µs.
    """
    from acp.schema import SessionNotification

    note = SessionNotification.__new__(SessionNotification)
    fields = {"session_id", "update", "field_meta"}  # as SessionNotification(..., field_meta=meta) sets them
    object.__setattr__(note, "__dict__", {"session_id": session_id, "update": update, "field_meta": meta})
    object.__setattr__(note, "__pydantic_fields_set__", fields)
    object.__setattr__(note, "__pydantic_extra__", None)
    object.__setattr__(note, "__pydantic_private__", None)
    return note


def _not_found(method: str) -> Exception:
    from acp import RequestError

    return RequestError.method_not_found(method)


def _call(handler: Any, name: str, *args: Any) -> Any:
    method = getattr(handler, name, None)
    return method(*args) if method is not None else None


class CallbackRouter:
    """Routes one connection's client-side callbacks (see the module docstring)."""

    def __init__(self, handler: Any = None, permission_policy: PermissionPolicy | None = None) -> None:
        if handler is None:
            from langacp.client.local import LocalHandler

            handler = LocalHandler()
        self.handler = handler
        self.policy = permission_policy if permission_policy is not None else PermissionPolicy()
        self.upstream: Any = None
        self.upstream_capabilities: ClientCapabilities | None = None
        self._listeners: dict[str | None, list[Listener]] = {}
        self._collectors: dict[str, list[list[Any]]] = {}
        self._terminals: dict[str, Any] = {}

    @property
    def handler(self) -> Any:
        return self._handler

    @handler.setter
    def handler(self, handler: Any) -> None:
        self._handler = handler
        self._on_update = getattr(handler, "on_update", None)  # looked up once: it runs per token

    # -- upstream and listeners ----------------------------------------------------------------

    def attach(self, upstream: Any, capabilities: ClientCapabilities | None = None) -> None:
        """Send updates, permission requests and (as declared) fs/terminal calls to ``upstream``."""
        from acp.schema import ClientCapabilities

        self.upstream = upstream
        self.upstream_capabilities = capabilities or ClientCapabilities()

    def detach(self, upstream: Any = None) -> None:
        """Back to the local handler and policy (only if ``upstream`` is still the attached one)."""
        if upstream is None or upstream is self.upstream:
            self.upstream = None
            self.upstream_capabilities = None

    def add_listener(self, listener: Listener, session_id: str | None = None) -> Callable[[], None]:
        """Call ``listener`` with each update of ``session_id`` (``None``: every session); returns a remover."""
        self._listeners.setdefault(session_id, []).append(listener)

        def remove() -> None:
            listeners = self._listeners.get(session_id, [])
            if listener in listeners:
                listeners.remove(listener)

        return remove

    def collect(self, session_id: str) -> tuple[list[Any], Callable[[], None]]:
        """A list that receives every update of ``session_id`` (cheaper than a listener); and its remover."""
        updates: list[Any] = []
        self._collectors.setdefault(session_id, []).append(updates)

        def remove() -> None:
            collectors = self._collectors.get(session_id, [])
            if updates in collectors:
                collectors.remove(updates)
            if not collectors:
                self._collectors.pop(session_id, None)

        return updates, remove

    @property
    def client_capabilities(self) -> ClientCapabilities:
        """What ``initialize`` declares: the handler's capabilities."""
        from acp.schema import ClientCapabilities

        caps = getattr(self.handler, "client_capabilities", None)
        return caps if isinstance(caps, ClientCapabilities) else ClientCapabilities()

    # -- acp.Client ------------------------------------------------------------------------------

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if self._on_update is not None:
            self._on_update(session_id, update)
        for updates in self._collectors.get(session_id, ()):
            updates.append(update)
        listeners = [*self._listeners.get(session_id, ()), *self._listeners.get(None, ())]
        if listeners:
            note = notification(session_id, update, kwargs or None)
            for listener in listeners:
                result = listener(note)
                if inspect.isawaitable(result):
                    await result
        upstream = self.upstream
        if upstream is not None:
            try:
                await upstream.session_update(session_id=session_id, update=update, **kwargs)
            except Exception as exc:  # noqa: BLE001 # a gone upstream must not stop the agent's session
                log.warning("upstream client did not take an update: %s", exc)

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kwargs: Any
    ) -> RequestPermissionResponse:
        return await self.permission(PermissionRequest(session_id, tool_call, options), kwargs)

    async def permission(
        self, request: PermissionRequest, meta: dict[str, Any] | None = None
    ) -> RequestPermissionResponse:
        """Answer one permission request: the handler hears it, the policy or upstream decides."""
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        kwargs = meta or {}
        _call(self.handler, "on_permission_request", request)
        record = await self._decide(request, kwargs)
        _call(self.handler, "on_permission_result", record)
        if record.option_id is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=record.option_id))

    async def _decide(self, request: PermissionRequest, meta: dict[str, Any]) -> PermissionRecord:
        upstream = self.upstream
        if upstream is None or self.policy.match(request.tool_call) is not None:
            return await self.policy.decide(request)
        try:
            response = await upstream.request_permission(
                options=request.options, session_id=request.session_id, tool_call=request.tool_call, **meta
            )
        except Exception as exc:  # noqa: BLE001 # the upstream went away while asked: the local policy answers
            log.warning("upstream client did not answer a permission request: %s", exc)
            return await self.policy.decide(request)
        outcome = response.outcome
        answer = getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None
        record = answer_record(request, answer, "upstream")
        self.policy.decisions.append(record)
        return record

    def _target(self, capability: str) -> Any:
        caps = self.upstream_capabilities
        if self.upstream is not None and caps is not None:
            fs = caps.fs
            declared = {
                "read": bool(fs and fs.read_text_file),
                "write": bool(fs and fs.write_text_file),
                "terminal": bool(caps.terminal),
            }[capability]
            if declared:
                return self.upstream
        return self.handler

    async def _forward(self, capability: str, method: str, **params: Any) -> Any:
        target = self._target(capability)
        function = getattr(target, method, None)
        if function is None:
            raise _not_found(method)
        return await function(**params)

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        return await self._forward("read", "read_text_file", session_id=session_id, path=path, **kwargs)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        return await self._forward(
            "write", "write_text_file", session_id=session_id, path=path, content=content, **kwargs
        )

    async def create_terminal(self, session_id: str, command: str, **kwargs: Any) -> Any:
        target = self._target("terminal")
        if getattr(target, "create_terminal", None) is None:
            raise _not_found("terminal/create")
        response = await target.create_terminal(session_id=session_id, command=command, **kwargs)
        self._terminals[response.terminal_id] = target  # it stays where it was created
        return response

    async def _on_terminal(self, method: str, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        target = self._terminals.get(terminal_id, self.handler)
        function = getattr(target, method, None)
        if function is None:
            raise _not_found(method)
        return await function(session_id=session_id, terminal_id=terminal_id, **kwargs)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        return await self._on_terminal("terminal_output", session_id, terminal_id, **kwargs)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        return await self._on_terminal("wait_for_terminal_exit", session_id, terminal_id, **kwargs)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        return await self._on_terminal("kill_terminal", session_id, terminal_id, **kwargs)

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        response = await self._on_terminal("release_terminal", session_id, terminal_id, **kwargs)
        self._terminals.pop(terminal_id, None)
        return response

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        for target in (self.upstream, self.handler):
            function = getattr(target, "ext_method", None) if target is not None else None
            if function is not None:
                return dict(await function(method, params))
        raise _not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        for target in (self.upstream, self.handler):
            function = getattr(target, "ext_notification", None) if target is not None else None
            if function is not None:
                await function(method, params)
                return
