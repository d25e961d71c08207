"""Plain data types passed to hooks.

Kept free of LangChain and ACP imports at runtime so that loading plugins (done before
``initialize`` is answered) stays cheap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from acp.schema import ClientCapabilities

    from langacp.plugins import Plugins

__all__ = [
    "PermissionDecision",
    "PermissionVerdict",
    "PromptCancelled",
    "SessionContext",
    "ToolCallInfo",
    "TurnOutcome",
]

PermissionDecision = Literal["allow", "ask", "deny"]
"""What a permission policy says about one tool call."""


@dataclass(frozen=True)
class PermissionVerdict:
    """A permission decision with the reason a tool call may not run.

    The permission hooks may return one instead of a plain decision: when the call is not
    allowed, ``reason`` is what the model is told (and the editor shows in the failed tool
    call), e.g. ``"the user declined it"``.
    """

    decision: PermissionDecision
    reason: str | None = None


class PromptCancelled(Exception):
    """Raise from a hook or tool to end the turn with stop reason ``cancelled``.

    For example when the client answers a permission request with ``cancelled``.
    (``asyncio.CancelledError`` raised inside a graph node is turned into an error by
    LangGraph; this exception is not.)
    """


@dataclass
class SessionContext:
    """What langacp knows about one ACP session; handed to every session-scoped hook.

    ``state`` is scratch space for plugins: key it by your plugin name. ``send_update`` sends
    one ``session/update`` for this session (an ACP update model from ``acp.schema``).
    """

    session_id: str
    cwd: str
    additional_directories: list[str] = field(default_factory=list)
    mcp_servers: list[Any] = field(default_factory=list)
    client_capabilities: ClientCapabilities | None = None
    mode_id: str | None = None
    state: dict[str, Any] = field(default_factory=dict)
    send_update: Callable[[Any], Awaitable[None]] | None = None
    client: Any = None
    """The SDK's connection to the client (``acp.Client``): permission requests, fs, terminal."""
    plugins: Plugins | None = None
    """The loaded plugins, so a hook can ask the other mappers (``plugins.describe_tool(...)``)."""
    graph: Any = None
    """The session's compiled graph, once built (e.g. to list its tools); ``None`` before."""
    new_thread: Callable[[], Awaitable[None]] | None = None
    """Start a fresh conversation thread for this session (what ``/clear`` does): the model no
    longer sees the earlier messages; the session, its settings and its old thread are kept."""


@dataclass(frozen=True)
class ToolCallInfo:
    """One tool call the model made: what mappers and permission policies look at."""

    tool_call_id: str
    name: str
    args: dict[str, Any]

    @classmethod
    def from_tool_call(cls, tool_call: Mapping[str, Any]) -> ToolCallInfo:
        """From a LangChain ``ToolCall`` dict (``{"id", "name", "args"}``)."""
        return cls(tool_call.get("id") or "", tool_call["name"], dict(tool_call.get("args") or {}))


@dataclass
class TurnOutcome:
    """How a prompt turn ended; the stop-reason hook reads it."""

    cancelled: bool = False
    last_message: Any = None
    """The last ``AIMessage`` the model produced in this turn, if any."""
    finish_reason: str | None = None
    """The provider's ``finish_reason`` / ``stop_reason`` from the last model response."""
    model_calls: int = 0
    tool_calls: int = 0
    error: BaseException | None = None
    interrupted: bool = False
    """The graph stopped on an interrupt nobody resumed."""
    usage: dict[str, int] = field(default_factory=dict)
    """Token totals of the turn's model calls, summed from their ``usage_metadata``:
    ``input_tokens``, ``output_tokens``, ``total_tokens``, and when reported ``cache_read``,
    ``cache_creation``, ``reasoning``."""
