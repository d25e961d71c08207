"""Fulfil the editor requests of :mod:`langacp_remote.editor` tools through the editor.

Each request is a tool call the model made on the server. Before anything is touched it goes
through the local permission policy (``langacp_permission``, then asking the user when it says
``ask``), exactly like a local tool call; paths must lie in the session's directories; the
editor then does the work (``fs/*``, ``terminal/*``). The answer resumes the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langacp.api import PathError, SessionContext, SessionPaths, ToolCallInfo, run_off_loop

__all__ = ["editor_request", "fulfil"]

REQUEST_TYPE = "langacp.editor_request"  # langacp_remote.editor.EDITOR_REQUEST (not imported: it needs LangChain)
OPERATIONS = ("read_file", "write_file", "edit_file", "run_command")
OUTPUT_LIMIT = 64 * 1024
MAX_DIFF_CHARS = 256 * 1024
"""Larger changes are not sent back as a diff: the artifact is stored in the server's thread."""


def editor_request(interrupt: Any) -> dict[str, Any] | None:
    """The interrupt's value if it is an editor request, else ``None``."""
    value = getattr(interrupt, "value", None)
    if not isinstance(value, Mapping) or value.get("type") != REQUEST_TYPE:
        return None
    if value.get("op") not in OPERATIONS or not isinstance(value.get("args"), Mapping):
        return None
    return dict(value)


async def fulfil(session: SessionContext, interrupts: Sequence[Any], requests: Sequence[dict[str, Any]]) -> Any:
    """The resume value: one answer, or ``{interrupt id: answer}`` for several interrupts."""
    answers = [await _answer(session, request) for request in requests]
    if len(answers) == 1:
        return answers[0]
    return {interrupt.id: answer for interrupt, answer in zip(interrupts, answers, strict=True)}


def _error(text: str) -> dict[str, Any]:
    return {"status": "error", "content": text}


async def _answer(session: SessionContext, request: dict[str, Any]) -> dict[str, Any]:
    op = str(request["op"])
    args = dict(request["args"])
    call = ToolCallInfo(str(request.get("tool_call_id") or ""), op, args)
    plugins = session.plugins
    if plugins is not None:
        kind = plugins.tool_kind(call, session)
        verdict = plugins.permission_verdict(call, kind, session)
        if verdict.decision == "ask":
            verdict = await plugins.ask_permission_verdict(call, kind, session)
        if verdict.decision != "allow":
            return _error(f"The call to {op} did not run: {verdict.reason or 'the user declined it'}.")
    if session.client is None:
        return _error("no editor is connected")
    if op == "run_command":
        try:
            return await _run(session, call)
        except _Unsupported as exc:
            return _error(str(exc))
    try:
        # Resolving touches the file system: in a worker thread, never on the event loop.
        path = await run_off_loop(_confined, None, session, await session.roots(), str(args.get("path") or ""), op)
    except PathError as exc:
        return _error(str(exc))
    try:
        if op == "read_file":
            _require(session, "read_text_file")
            read = await session.client.read_text_file(session_id=session.session_id, path=path)
            return {"status": "success", "content": read.content}
        if op == "write_file":
            _require(session, "write_text_file")
            content = str(args.get("content") or "")
            before = await _current_text(session, path)
            await session.client.write_text_file(session_id=session.session_id, path=path, content=content)
            return {"status": "success", "content": f"wrote {path}", "artifact": _diff(path, before, content)}
        return await _edit(session, path, args)
    except _Unsupported as exc:
        return _error(str(exc))
    except Exception as exc:  # noqa: BLE001 - the editor's error is the tool's result
        return _error(f"the editor could not {op.replace('_', ' ')} {path}: {_reason(exc)}")


class _Unsupported(Exception):
    pass


def _confined(session: SessionContext, roots: tuple[str, ...], path: str, op: str) -> str:
    """``path`` resolved inside the session's directories (``roots``: their real paths; :class:`PathError`
    if it leaves them)."""
    paths = SessionPaths(session.cwd, session.additional_directories, roots=roots)
    return str(paths.resolve(path, action="read" if op == "read_file" else "written"))


def _require(session: SessionContext, capability: str) -> None:
    caps = session.client_capabilities
    if capability == "terminal":
        if not getattr(caps, "terminal", False):
            raise _Unsupported("the editor does not run commands for agents (no terminal capability)")
        return
    fs = getattr(caps, "fs", None)
    if not getattr(fs, capability, False):
        raise _Unsupported(f"the editor does not offer fs/{capability}")


async def _edit(session: SessionContext, path: str, args: Mapping[str, Any]) -> dict[str, Any]:
    _require(session, "read_text_file")
    _require(session, "write_text_file")
    old, new = str(args.get("old_string") or ""), str(args.get("new_string") or "")
    if not old:
        return _error("old_string must not be empty")
    assert session.client is not None
    text = (await session.client.read_text_file(session_id=session.session_id, path=path)).content
    count = text.count(old)
    if count != 1:
        where = "does not occur" if count == 0 else f"occurs {count} times"
        return _error(f"old_string {where} in {path}; it must occur exactly once")
    edited = text.replace(old, new, 1)
    await session.client.write_text_file(session_id=session.session_id, path=path, content=edited)
    return {"status": "success", "content": f"edited {path}", "artifact": _diff(path, text, edited)}


async def _current_text(session: SessionContext, path: str) -> str | None:
    """The file's text as the editor has it before a write (``None``: new, or not readable)."""
    fs = getattr(session.client_capabilities, "fs", None)
    if session.client is None or not getattr(fs, "read_text_file", False):
        return None
    try:
        return str((await session.client.read_text_file(session_id=session.session_id, path=path)).content)
    except Exception:  # noqa: BLE001 - a file that does not exist yet
        return None


def _diff(path: str, old: str | None, new: str) -> dict[str, Any] | None:
    """The change as a tool artifact (the editor shows it as a diff), unless it is too big to send back."""
    if len(new) + len(old or "") > MAX_DIFF_CHARS:
        return None
    return {"diff": {"path": path, "old_text": old, "new_text": new}}


async def _run(session: SessionContext, call: ToolCallInfo) -> dict[str, Any]:
    from acp import tool_terminal_ref, update_tool_call

    _require(session, "terminal")
    command = str(call.args.get("command") or "")
    if not command.strip():
        return _error("command must not be empty")
    client = session.client
    assert client is not None
    try:
        created = await client.create_terminal(
            session_id=session.session_id, command=command, cwd=session.cwd, output_byte_limit=OUTPUT_LIMIT
        )
    except Exception as exc:  # noqa: BLE001 - the editor's error is the tool's result
        return _error(f"the editor could not run the command: {_reason(exc)}")
    terminal_id = created.terminal_id
    try:
        if session.send_update is not None and call.tool_call_id:  # the editor shows the live terminal
            await session.send_update(update_tool_call(call.tool_call_id, content=[tool_terminal_ref(terminal_id)]))
        exit_status = await client.wait_for_terminal_exit(session_id=session.session_id, terminal_id=terminal_id)
        output = await client.terminal_output(session_id=session.session_id, terminal_id=terminal_id)
    finally:
        try:
            await client.release_terminal(session_id=session.session_id, terminal_id=terminal_id)
        except Exception:  # noqa: BLE001 - releasing is best effort; the result is known
            pass
    code = getattr(exit_status, "exit_code", None)
    signal = getattr(exit_status, "signal", None)
    status = f"exit status {code}" if code is not None else f"killed by {signal}" if signal else "finished"
    text = f"{output.output}{' (output truncated)' if output.truncated else ''}\n[{status}]"
    return {"status": "success" if code == 0 else "error", "content": text, "artifact": {"terminal_id": terminal_id}}


def _reason(exc: BaseException) -> str:
    data = getattr(exc, "data", None)
    if isinstance(data, Mapping) and data.get("details"):
        return str(data["details"])
    return str(exc) or type(exc).__name__
