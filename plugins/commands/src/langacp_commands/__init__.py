"""langacp-commands: the slash commands /help, /mode, /model, /tools, /clear; unknown ones get a helpful answer.

Other plugins add commands with the ``langacp_available_commands`` and ``langacp_run_command``
hooks; ``/help`` lists them too. See ``docs/commands.md``.
"""

from __future__ import annotations

from langacp_commands.builtins import BUILTINS, graph_tools

__all__ = ["BUILTINS", "graph_tools"]
