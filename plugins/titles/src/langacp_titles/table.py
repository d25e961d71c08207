"""The ``[titles]`` table's model (imported when a session reads it)."""

from __future__ import annotations

from langacp.api import ConfigModel

__all__ = ["TitlesTable"]


class TitlesTable(ConfigModel):
    """``[titles]``: whether the agent gets the ``set_session_title`` tool."""

    agent_tool: bool = True
