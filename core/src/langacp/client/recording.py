"""Record everything an agent did as activity events: one JSON object per line, and in memory.

Event types: ``prompt:sent``, ``message:chunk``, ``thought:chunk``, ``tool:call``,
``tool:result``, ``plan:update``, ``mode:change``, ``file:write`` (path and full content),
``file:read`` (path and length), ``permission:request``, ``permission:result``,
``terminal:create``, ``terminal:output``, ``terminal:exit``, ``terminal:kill``,
``message:complete`` (stop reason, the whole answer, usage updates counted). Each carries
``type``, ``sessionId`` and ``timestamp``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from langacp.client.local import LocalHandler
from langacp.client.policy import PermissionRecord, PermissionRequest

__all__ = ["EVENT_TYPES", "RecordingHandler", "load_activity"]

EVENT_TYPES = (
    "prompt:sent",
    "message:chunk",
    "thought:chunk",
    "tool:call",
    "tool:result",
    "plan:update",
    "mode:change",
    "file:write",
    "file:read",
    "permission:request",
    "permission:result",
    "terminal:create",
    "terminal:output",
    "terminal:exit",
    "terminal:kill",
    "message:complete",
)


def _dump(model: Any) -> Any:
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(model, list):
        return [_dump(m) for m in model]
    return model


def _text(content: Any) -> str:
    text = getattr(content, "text", None)
    return text if isinstance(text, str) else ""


def load_activity(path: str | Path) -> list[dict[str, Any]]:
    """The events of an activity file."""
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


class RecordingHandler:
    """A client handler that records each callback as an activity event, then delegates to ``inner``.

    ``inner`` (default: a :class:`~langacp.client.local.LocalHandler`: files confined to the
    session's directories, local terminals) serves the ``fs/*`` and ``terminal/*`` calls.
    ``path`` (optional) receives the events as JSON lines; :attr:`events` keeps them all.
    """

    def __init__(self, path: str | Path | None = None, inner: Any = None) -> None:
        self.inner = inner if inner is not None else LocalHandler()
        self.path = Path(path) if path is not None else None
        self.events: list[dict[str, Any]] = []
        self._file: IO[str] | None = None
        self._usage: dict[str, int] = {}
        self._text: dict[str, list[str]] = {}

    @classmethod
    def replay(cls, path: str | Path) -> RecordingHandler:
        """A handler holding the events recorded in ``path`` (to query them like a live one)."""
        handler = cls()
        handler.events = load_activity(path)
        return handler

    # -- queries -----------------------------------------------------------------------------

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def of(self, kind: str, session_id: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind and (session_id is None or e["sessionId"] == session_id)]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.events)

    # -- recording ---------------------------------------------------------------------------

    def record(self, event_type: str, session_id: str, /, **fields: Any) -> dict[str, Any]:
        """Append one event (and write it to the file)."""
        event = {"type": event_type, "sessionId": session_id, "timestamp": time.time(), **fields}
        self.events.append(event)
        if self.path is not None:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("a", encoding="utf-8")
            self._file.write(json.dumps(event, ensure_ascii=False) + "\n")
            if event_type == "message:complete":
                self._file.flush()
        return event

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    @property
    def client_capabilities(self) -> Any:
        return getattr(self.inner, "client_capabilities", None)

    def add_session(self, session_id: str, cwd: str, additional_directories: Any = ()) -> None:
        add = getattr(self.inner, "add_session", None)
        if add is not None:
            add(session_id, cwd, additional_directories)

    # -- events from the router --------------------------------------------------------------

    def on_prompt(self, session_id: str, prompt: list[Any]) -> None:
        self._text[session_id] = []
        self.record("prompt:sent", session_id, text="".join(_text(b) for b in prompt), prompt=_dump(prompt))

    def on_prompt_end(self, session_id: str, stop_reason: str) -> None:
        text = "".join(self._text.pop(session_id, []))
        usage = self._usage.pop(session_id, 0)
        self.record("message:complete", session_id, stopReason=stop_reason, text=text, usageUpdates=usage)

    def on_update(self, session_id: str, update: Any) -> None:
        kind = update.session_update
        if kind == "agent_message_chunk":
            text = _text(update.content)
            self._text.setdefault(session_id, []).append(text)
            self.record("message:chunk", session_id, text=text)
        elif kind == "agent_thought_chunk":
            self.record("thought:chunk", session_id, text=_text(update.content))
        elif kind == "tool_call":
            self.record(
                "tool:call",
                session_id,
                toolCallId=update.tool_call_id,
                title=update.title,
                kind=update.kind,
                status=update.status,
                rawInput=update.raw_input,
            )
        elif kind == "tool_call_update":
            final = update.status in ("completed", "failed")
            self.record(
                "tool:result" if final else "tool:call",
                session_id,
                toolCallId=update.tool_call_id,
                status=update.status,
                title=update.title,
                content=_dump(update.content),
                rawOutput=update.raw_output,
            )
        elif kind == "plan":
            self.record("plan:update", session_id, entries=_dump(update.entries))
        elif kind == "current_mode_update":
            self.record("mode:change", session_id, modeId=update.current_mode_id)
        elif kind == "usage_update":
            self._usage[session_id] = self._usage.get(session_id, 0) + 1

    def on_permission_request(self, request: PermissionRequest) -> None:
        call = request.tool_call
        options = [{"optionId": o.option_id, "kind": o.kind, "name": o.name} for o in request.options]
        self.record(
            "permission:request",
            request.session_id,
            toolCallId=call.tool_call_id,
            title=call.title,
            kind=call.kind,
            rawInput=call.raw_input,
            options=options,
            **({"question": request.title} if request.title else {}),  # ACP v2 asks in its own words
        )

    def on_permission_result(self, record: PermissionRecord) -> None:
        self.record(
            "permission:result",
            record.session_id,
            toolCallId=record.tool_call_id,
            decision=record.decision,
            optionId=record.option_id,
            source=record.source,
            rule=record.rule,
        )

    # -- fs and terminals, recorded then served by ``inner`` ---------------------------------

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        response = await self.inner.read_text_file(session_id=session_id, path=path, **kwargs)
        self.record("file:read", session_id, path=path, length=len(response.content))
        return response

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        response = await self.inner.write_text_file(session_id=session_id, path=path, content=content, **kwargs)
        self.record("file:write", session_id, path=path, content=content)
        return response

    async def create_terminal(self, session_id: str, command: str, **kwargs: Any) -> Any:
        response = await self.inner.create_terminal(session_id=session_id, command=command, **kwargs)
        self.record(
            "terminal:create",
            session_id,
            terminalId=response.terminal_id,
            command=command,
            args=kwargs.get("args"),
            cwd=kwargs.get("cwd"),
        )
        return response

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        response = await self.inner.terminal_output(session_id=session_id, terminal_id=terminal_id, **kwargs)
        self.record(
            "terminal:output",
            session_id,
            terminalId=terminal_id,
            output=response.output,
            truncated=response.truncated,
            exitStatus=_dump(response.exit_status),
        )
        return response

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        response = await self.inner.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal_id, **kwargs)
        self.record(
            "terminal:exit", session_id, terminalId=terminal_id, exitCode=response.exit_code, signal=response.signal
        )
        return response

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        response = await self.inner.kill_terminal(session_id=session_id, terminal_id=terminal_id, **kwargs)
        self.record("terminal:kill", session_id, terminalId=terminal_id)
        return response

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        return await self.inner.release_terminal(session_id=session_id, terminal_id=terminal_id, **kwargs)

    async def aclose(self) -> None:
        closer = getattr(self.inner, "aclose", None)
        if closer is not None:
            await closer()
        self.close()
