"""LangChain's private names langacp uses."""

from __future__ import annotations

__all__ = ["StreamingCallbackHandler"]

from langchain_core.tracers._streaming import _StreamingCallbackHandler as StreamingCallbackHandler

"""LangChain's marker base of a callback handler that streams (``tap_output_iter``): LangGraph
then sends the model's tokens to it as they arrive."""
