"""``ACPCallbackHandler``: a LangChain callback handler that reports any graph's run as ACP updates.

For graphs not built with ``create_agent`` (hand-made LangGraph graphs, chains), where
middleware cannot be inserted: pass it in the run's config (``{"callbacks": [handler]}``).
With it the chat model streams, and the run is reported through the same turn reporter as
``langacp serve``: text as ``agent_message_chunk``, reasoning as ``agent_thought_chunk``
(both mapped by ``langacp_output_block``), tool calls from their first streamed chunk, then
``in_progress`` and the result (``completed`` / ``failed``) with the tool hooks' kinds,
titles and content. With ``create_agent`` and the ACP middleware it is what streams the tokens;
every event is reported once, whoever tells first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk

from langacp.bridge.turn import TurnReporter
from langacp.compat.langchain import StreamingCallbackHandler
from langacp.lib.sessions import current_turn, get_session
from langacp.middleware import error_result
from langacp.types import ToolCallInfo

__all__ = ["ACPCallbackHandler"]

T = TypeVar("T")


class ACPCallbackHandler(AsyncCallbackHandler, StreamingCallbackHandler[Any]):
    """Streams a run to the ACP client behind ``conn``.

    The session is ``session_id`` if given, else the run's ``session_id`` / ``thread_id``
    (LangGraph puts the ``configurable`` values in the callbacks' metadata). ``tool_events=False``
    reports only the model's output.
    """

    run_inline = True  # called in order, on the event loop, as the tokens arrive

    def __init__(self, conn: Any, session_id: str | None = None, *, tool_events: bool = True) -> None:
        super().__init__()
        self.conn = conn
        self.session_id = session_id
        self.tool_events = tool_events
        self._metadata: dict[UUID, dict[str, Any]] = {}
        self._tools: dict[UUID, tuple[ToolCallInfo, TurnReporter]] = {}
        """Running tools: their calls and turns (the end and error callbacks get no metadata)."""

    def _turn(self, metadata: dict[str, Any] | None) -> TurnReporter | None:
        found = self.session_id or (metadata or {}).get("session_id") or (metadata or {}).get("thread_id")
        if not found:
            return None
        return current_turn(get_session(self.conn, str(found)))

    # -- chat model ------------------------------------------------------------------------

    async def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[Any]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        self._metadata[run_id] = dict(kwargs.get("metadata") or {})

    async def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        message = getattr(chunk, "message", None)
        metadata = self._metadata.get(run_id)
        turn = self._turn(metadata)
        if turn is None:
            return
        if isinstance(message, AIMessage):
            turn.on_message(message, metadata or {})
        elif isinstance(token, str) and token:
            turn.on_message(AIMessage(content=token), metadata or {})

    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        metadata = self._metadata.pop(run_id, None)
        if (metadata or {}).get("langgraph_node") == "tools":
            return  # a model called inside a tool: not the agent's answer
        turn = self._turn(metadata)
        generations = getattr(response, "generations", None) or [[]]
        message = getattr(generations[0][0], "message", None) if generations[0] else None
        if turn is not None and isinstance(message, AIMessage):
            turn.on_model_message(message, announce=self.tool_events)

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._metadata.pop(run_id, None)

    # -- tools -------------------------------------------------------------------------------

    async def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        call_id = kwargs.get("tool_call_id")
        turn = self._turn(kwargs.get("metadata"))
        if not self.tool_events or turn is None or not call_id:
            return
        name = str((serialized or {}).get("name") or kwargs.get("name") or "tool")
        call = ToolCallInfo(str(call_id), name, dict(inputs or {}))
        self._tools[run_id] = (call, turn)
        turn.tool_started(call.tool_call_id, call.name, call.args)

    async def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        running = self._tools.pop(run_id, None)
        if running is None:
            return
        call, turn = running
        if not isinstance(output, ToolMessage):
            output = ToolMessage(content=str(output), tool_call_id=call.tool_call_id, name=call.name)
        turn.finish_tool(output)

    async def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        running = self._tools.pop(run_id, None)
        if running is not None:
            call, turn = running
            turn.finish_tool(error_result(call, error))

    # -- _StreamingCallbackHandler: its presence makes chat models stream -----------------------

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output

    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
        return output
