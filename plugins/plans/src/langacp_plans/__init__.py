"""Plans for langacp: todo-list tool calls become ACP ``plan`` updates."""

from __future__ import annotations

from langacp_plans.entries import plan_entries

__all__ = ["plan_entries"]
