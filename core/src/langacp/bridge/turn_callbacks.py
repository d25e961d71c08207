"""The base of the callback handlers that report a graph run's events to its turn."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler

if TYPE_CHECKING:
    from langacp.bridge.turn import TurnReporter

__all__ = ["TurnCallbacks"]


class TurnCallbacks(BaseCallbackHandler):
    """A callback handler that reports to a turn, from the event loop's thread.

    It runs inline and is skipped by every event (the ``ignore_*`` flags): a subclass sets to
    ``False`` the flag of what it listens to. A sync tool or node runs in a worker thread, whose
    callbacks run there: :meth:`call` hands the report to the event loop then.
    """

    run_inline = True
    ignore_llm = True
    ignore_chain = True
    ignore_chat_model = True
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True
    ignore_agent = True

    def __init__(self, turn: TurnReporter) -> None:
        self.turn = turn
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()

    def call(self, method: Any, *args: Any) -> None:
        """``method(*args)`` on the event loop's thread."""
        if threading.get_ident() == self.thread:
            method(*args)
        else:
            self.loop.call_soon_threadsafe(method, *args)
