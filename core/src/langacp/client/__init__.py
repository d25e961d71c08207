"""The client side of ACP: drive any ACP agent from Python, record it, use it as a LangChain tool.

    from langacp.client import AcpConnection, ConnectionManager, RecordingHandler, PermissionPolicy

* :class:`AcpConnection`: one agent process (spawn, initialize, sessions, prompt, stream, cancel).
* :class:`ConnectionManager`: named connections, reused, disposed of together.
* :class:`CallbackRouter`, :class:`PermissionPolicy`, :class:`LocalHandler`: where the agent's
  permission, fs and terminal callbacks go.
* :class:`RecordingHandler`: every callback as an activity event (JSON lines).
* :class:`Gateway`: lets an editor attach to a connection the manager runs (``langacp attach``).
* :func:`acp_agent_tool`, :func:`acp_node`: an ACP agent as a LangChain tool / LangGraph node.
* :class:`RecordingClient`, :func:`spawn_agent`: the test client of ``langacp.testing``.

See docs/client.md. Names are imported on first use (the ACP SDK and LangChain are slow to import).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langacp.client.connection import AcpConnection, AgentExited, AgentNotReady
    from langacp.client.gateway import Gateway, socket_path
    from langacp.client.local import LocalHandler
    from langacp.client.manager import ConnectionManager
    from langacp.client.policy import PermissionPolicy, PermissionRecord, PermissionRequest
    from langacp.client.prompt_turn import PromptResult, PromptStream
    from langacp.client.recording import RecordingHandler, load_activity
    from langacp.client.router import CallbackRouter
    from langacp.client.testing_client import RecordingClient, spawn_agent, update_text
    from langacp.client.tool import AcpAgentTool, acp_agent_tool, acp_node

_WHERE = {
    "AcpConnection": "connection",
    "AgentExited": "connection",
    "AgentNotReady": "connection",
    "Gateway": "gateway",
    "socket_path": "gateway",
    "LocalHandler": "local",
    "ConnectionManager": "manager",
    "PermissionPolicy": "policy",
    "PermissionRecord": "policy",
    "PermissionRequest": "policy",
    "PromptResult": "prompt_turn",
    "PromptStream": "prompt_turn",
    "RecordingHandler": "recording",
    "load_activity": "recording",
    "CallbackRouter": "router",
    "RecordingClient": "testing_client",
    "spawn_agent": "testing_client",
    "update_text": "testing_client",
    "AcpAgentTool": "tool",
    "acp_agent_tool": "tool",
    "acp_node": "tool",
}

__all__ = [
    "AcpAgentTool",
    "AcpConnection",
    "AgentExited",
    "AgentNotReady",
    "CallbackRouter",
    "ConnectionManager",
    "Gateway",
    "LocalHandler",
    "PermissionPolicy",
    "PermissionRecord",
    "PermissionRequest",
    "PromptResult",
    "PromptStream",
    "RecordingClient",
    "RecordingHandler",
    "acp_agent_tool",
    "acp_node",
    "load_activity",
    "socket_path",
    "spawn_agent",
    "update_text",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"langacp.client.{module}"), name)
    globals()[name] = value
    return value
