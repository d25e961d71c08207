"""langacp: serve any LangChain / LangGraph agent over the Agent Client Protocol.

Importing this package is cheap (no LangChain, no ACP SDK): editors spawn the agent on demand.
"""

from __future__ import annotations

from langacp._version import __version__
from langacp.hookspecs import hookimpl
from langacp.target import SessionSetup
from langacp.types import (
    PermissionDecision,
    PermissionRule,
    PermissionVerdict,
    PromptCancelled,
    SessionContext,
    ToolCallInfo,
    TurnOutcome,
)

__all__ = [
    "PermissionDecision",
    "PermissionRule",
    "PermissionVerdict",
    "PromptCancelled",
    "SessionContext",
    "SessionSetup",
    "ToolCallInfo",
    "TurnOutcome",
    "__version__",
    "hookimpl",
]
