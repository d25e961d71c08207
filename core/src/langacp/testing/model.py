"""A scripted LangChain chat model for tests and benchmarks: ``ScriptedChatModel`` plays back ``Reply`` objects.

It streams reasoning, text and (parallel) tool calls and supports ``bind_tools``, so it drives
``langchain.agents.create_agent`` end to end. (The implementation is in
``langacp.default_agent.scripted_model``, which the offline demo model also runs on; import it
from here.)
"""

from __future__ import annotations

from langacp.default_agent.scripted_model import Reply, ScriptedChatModel, ScriptedToolCall, echo_last_human

__all__ = ["Reply", "ScriptedChatModel", "ScriptedToolCall", "echo_last_human"]
