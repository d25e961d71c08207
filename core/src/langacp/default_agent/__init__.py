"""The agent ``langacp serve`` runs when no TARGET is given.

A ``create_agent`` agent with read-only file tools confined to the session's directories and
a todo list. Its model comes from ``--model`` / ``LANGACP_MODEL`` (any ``init_chat_model``
string); without one it runs the offline demo model (:mod:`langacp.default_agent.demo_model`).
"""

from __future__ import annotations

__all__ = ["DEFAULT_TARGET"]

DEFAULT_TARGET = "langacp.default_agent.agent:agent"
"""The TARGET ``langacp serve`` uses when none is given."""
