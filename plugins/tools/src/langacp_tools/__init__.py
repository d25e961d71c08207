"""langacp-tools: tool calls as an editor shows them (kind, title, locations, diffs, terminals).

Library use: :func:`kind_of` maps a tool name to its ACP kind, :func:`pin_kinds` pins kinds
from code. Importing this package is cheap (no ACP or LangChain import).
"""

from __future__ import annotations

from langacp_tools.config import pin_kinds
from langacp_tools.kinds import EXACT_KINDS, Kind, kind_of

__all__ = ["EXACT_KINDS", "Kind", "kind_of", "pin_kinds"]
