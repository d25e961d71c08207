"""The ``[plans]`` table's model (imported when a session reads it)."""

from __future__ import annotations

from langacp.api import ConfigModel

__all__ = ["PlansTable"]


class PlansTable(ConfigModel):
    """``[plans]``: whether the built-in ``update_plan`` tool is offered."""

    builtin_tool: bool = True
