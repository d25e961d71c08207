"""The ``[permissions]`` table's model (imported when a session reads it: pydantic stays out of plugin loading)."""

from __future__ import annotations

from pydantic import Field

from langacp.api import ConfigModel, Decision, Strings

__all__ = ["PermissionsTable"]


class PermissionsTable(ConfigModel):
    """``[permissions]``: decisions by tool kind and by tool name (glob patterns), trusted projects."""

    kinds: dict[str, Decision] = Field(default_factory=dict)
    tools: dict[str, Decision] = Field(default_factory=dict)
    trusted_projects: Strings = ()
    """Directories whose ``.langacp.toml`` applies in full (read by the core: only the user's file may set it)."""
