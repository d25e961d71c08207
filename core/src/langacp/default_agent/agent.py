"""The default agent's per-session factory: ``langacp serve`` with no TARGET serves :func:`agent`."""

from __future__ import annotations

import os
from typing import Any

from langacp.default_agent.fs_tools import make_fs_tools
from langacp.default_agent.models import MODEL_ENV, MissingKeyError, load_model
from langacp.target import SessionSetup
from langacp.types import ToolCallInfo

__all__ = ["SYSTEM_PROMPT", "agent"]

SYSTEM_PROMPT = (
    "You are langacp's default agent, a helpful assistant working in the user's project at {cwd}. "
    "You can list, read and search its files ({access}; paths are relative to the project). "
    "For multi-step work, keep a todo list with write_todos. Be concise."
)
WRITE_KINDS = frozenset({"edit", "delete", "move", "execute"})
"""Kinds of contributed tools (a client-tools plugin's writes and commands) that make the agent more than read-only."""

_model: Any = None


def _shared_model() -> Any:
    """One model per process (chat models are stateless and safe to share between sessions).

    A missing API key is -32000 (auth required): the editor offers the auth methods of ``initialize``.
    """
    global _model
    if _model is None:
        from acp import RequestError

        from langacp import auth

        auth.use_stored_key(auth.current_key())  # a login may have stored it since the start
        try:
            _model = load_model(os.environ.get(MODEL_ENV) or None)
        except MissingKeyError as exc:
            raise RequestError.auth_required({"details": str(exc)}) from exc
    return _model


def agent(setup: SessionSetup) -> Any:
    """Build the default agent for one session: file tools confined to its directories, a todo list."""
    from langchain.agents.middleware import TodoListMiddleware

    session = setup.session
    # A plugin's tool of the same name (e.g. one reading through the editor) replaces ours.
    contributed = {getattr(t, "name", None) for t in setup.tools}
    tools = [t for t in make_fs_tools(session.cwd, session.additional_directories) if t.name not in contributed]
    # A plugin may already contribute a todo list; create_agent rejects the same middleware twice.
    extra = [] if any(isinstance(m, TodoListMiddleware) for m in setup.middleware) else [TodoListMiddleware()]
    return setup.create_agent(
        _shared_model(),
        tools=tools,
        system_prompt=SYSTEM_PROMPT.format(
            cwd=session.cwd,
            access="and change them with the tools listed below" if _writes(setup) else "read-only",
        ),
        middleware=extra,
    )


def _writes(setup: SessionSetup) -> bool:
    """Whether a plugin contributed a tool that changes files or runs commands (by its kind, as the plugins map it)."""
    session, plugins = setup.session, setup.session.plugins
    if plugins is None:
        return False
    names = {name for name in (getattr(t, "name", None) for t in setup.tools) if isinstance(name, str)}
    return any(plugins.tool_kind(ToolCallInfo("", name, {}), session) in WRITE_KINDS for name in names)
