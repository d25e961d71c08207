"""langacp as a library: LangChain pieces that speak ACP, for an ACP agent you write yourself on the SDK.

Everything here runs the same code as ``langacp serve`` (the installed plugins' hooks, the
core's turn reporter and tool guard steps), so your agent sends the same updates. See
``docs/library.md`` and ``examples/own_acp_agent.py``::

    from langacp.lib import ACPCallbackHandler, ACPSessionMiddleware, ACPToolMiddleware, open_session
"""

from __future__ import annotations

from langacp.lib.callbacks import ACPCallbackHandler
from langacp.lib.mappers import (
    finish_turn,
    from_acp_blocks,
    load_mcp_tools,
    pending_interrupts,
    restore_state,
    resume_interrupts,
    serialize_state,
    stop_reason,
    to_acp_updates,
    to_request_error,
)
from langacp.lib.middleware import (
    SNAPSHOT_METHOD,
    ACPModeMiddleware,
    ACPPermissionMiddleware,
    ACPSessionMiddleware,
    ACPSessionState,
    ACPToolMiddleware,
    Snapshots,
)
from langacp.lib.sessions import (
    LibrarySession,
    close_session,
    current_turn,
    default_plugins,
    get_session,
    open_session,
    session_id_from,
    start_turn,
)

__all__ = [
    "SNAPSHOT_METHOD",
    "ACPCallbackHandler",
    "ACPModeMiddleware",
    "ACPPermissionMiddleware",
    "ACPSessionMiddleware",
    "ACPSessionState",
    "ACPToolMiddleware",
    "LibrarySession",
    "Snapshots",
    "close_session",
    "current_turn",
    "default_plugins",
    "finish_turn",
    "from_acp_blocks",
    "get_session",
    "load_mcp_tools",
    "open_session",
    "pending_interrupts",
    "restore_state",
    "resume_interrupts",
    "serialize_state",
    "session_id_from",
    "start_turn",
    "stop_reason",
    "to_acp_updates",
    "to_request_error",
]
