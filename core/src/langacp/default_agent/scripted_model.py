"""A scripted LangChain chat model: the engine of the offline demo model, of tests and of benchmarks.

None of langchain-core's fake chat models implements `bind_tools`, and
`GenericFakeChatModel` drops tool calls when streaming. `ScriptedChatModel`
plays back a script of `Reply` objects instead, with real streaming of
reasoning, text and (parallel) tool calls, so it can drive
`langchain.agents.create_agent` end to end.

It lives here because the default agent's demo model (:mod:`langacp.default_agent.demo_model`)
runs on it in production, which must not import :mod:`langacp.testing`; tests and plugin
authors import it from there (:mod:`langacp.testing.model`), its public name.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import operator
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_core.utils.utils import LC_ID_PREFIX
from pydantic import Field, PrivateAttr

__all__ = ["Reply", "ScriptedChatModel", "ScriptedToolCall", "echo_last_human"]

_WORD = re.compile(r"\s*\S+\s*|\s+")
_ARGS_PIECE = 16  # max characters of tool-call args JSON per streamed chunk


@dataclass(frozen=True)
class ScriptedToolCall:
    """A tool call the model will make; `id` is generated (`call_<n>`) when None."""

    name: str
    args: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """One model response.

    Streamed as: `reasoning` (reasoning content blocks), then `text`, then
    `blocks`, then each tool call, then a final metadata-only chunk. `error`, when set, is raised
    instead of answering, before anything is streamed.
    """

    text: str = ""
    reasoning: str = ""
    tool_calls: Sequence[ScriptedToolCall] = ()
    finish_reason: str | None = None
    """`response_metadata["finish_reason"]`; default "tool_calls" or "stop"."""
    stop_reason: str | None = None
    """`response_metadata["stop_reason"]` when given (e.g. "max_tokens", "refusal")."""
    error: BaseException | None = None
    usage: tuple[int, int] | None = None
    """(input_tokens, output_tokens); default: estimated as characters / 4."""
    blocks: Sequence[dict[str, Any]] = ()
    """Further content blocks (image, refusal, …), each streamed as one chunk after the text."""


def echo_last_human(messages: list[BaseMessage]) -> Reply:
    """A responder that answers with the text of the last human message."""
    for message in reversed(messages):
        if message.type == "human":
            return Reply(text=message.text)
    return Reply(text="")


def _split_words(text: str, size: int) -> list[str]:
    """Split `text` into pieces of `size` words, keeping all whitespace."""
    words = _WORD.findall(text)
    size = max(1, size)
    return ["".join(words[i : i + size]) for i in range(0, len(words), size)]


def _split_args(args_json: str) -> list[str]:
    """Split tool-call args JSON into at least two pieces."""
    piece = min(_ARGS_PIECE, max(1, math.ceil(len(args_json) / 2)))
    return [args_json[i : i + piece] for i in range(0, len(args_json), piece)]


def _estimate_tokens(chars: int) -> int:
    return math.ceil(chars / 4)


class ScriptedChatModel(BaseChatModel):
    """A chat model that plays back scripted replies, one per model call.

    Each call takes the next entry of `replies` (a `str` is `Reply(text=...)`);
    once they are exhausted, `responder(messages)` is used when set, otherwise
    `default`. The script position is shared by every `bind_tools` / `bind`
    result, and by sync, async, streaming and non-streaming calls.

    Streaming yields `AIMessageChunk`s: reasoning as
    `[{"type": "reasoning", "reasoning": ..., "index": 0}]` content, text in
    `chunk_size`-word pieces (plain `str` content, or indexed `"text"` blocks
    when the reply has reasoning), tool calls as `tool_call_chunks` (id and
    name on the first chunk of each call only), and finally an empty chunk
    with `response_metadata`, `usage_metadata` and `chunk_position="last"`.

    Example:
        ```python
        add_call = Reply(tool_calls=[ScriptedToolCall("add", {"a": 1, "b": 2})])
        model = ScriptedChatModel(replies=[add_call], responder=echo_last_human)
        agent = create_agent(model=model, tools=[add])
        result = await agent.ainvoke({"messages": [("user", "hi")]})
        assert result["messages"][-1].text == "hi"  # then the responder echoes
        ```
    """

    replies: list[Reply | str] = Field(default_factory=list)
    """Consumed in order, one per model call."""
    responder: Callable[[list[BaseMessage]], Reply | str] | None = None
    """Called with the full message list once `replies` are exhausted."""
    default: Reply | str = "(no more scripted replies)"
    """Answer when `replies` are exhausted and there is no `responder`."""
    chunk_size: int = 1
    """Words (whitespace kept) per streamed text or reasoning chunk."""
    token_delay: float = 0.0
    """Seconds slept before each streamed chunk (in total, for non-streaming calls)."""
    record: bool = True
    """Keep each call's messages for `seen`. Off for a model nobody inspects (a served agent):
    each call's list holds the whole conversation, so a session of N turns would keep ~N² messages."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _next_reply: int = PrivateAttr(default=0)
    _seen: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _calls: int = PrivateAttr(default=0)
    _call_ids: Iterator[int] = PrivateAttr(default_factory=lambda: itertools.count(1))

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": "scripted"}

    @property
    def calls(self) -> int:
        """Number of model calls made so far."""
        return self._calls

    @property
    def seen(self) -> list[list[BaseMessage]]:
        """The messages passed to each model call, in order (none kept when `record` is off)."""
        with self._lock:
            return [list(messages) for messages in self._seen]

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools (in OpenAI format); the script does not depend on them."""
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **kwargs)

    # -- script ---------------------------------------------------------------

    def _take(self, messages: list[BaseMessage]) -> Reply:
        """Record one model call and return its reply (tool call ids filled in)."""
        with self._lock:
            self._calls += 1
            if self.record:
                self._seen.append(list(messages))
            if self._next_reply < len(self.replies):
                entry: Reply | str | None = self.replies[self._next_reply]
                self._next_reply += 1
            else:
                entry = None
        if entry is None:
            entry = self.default if self.responder is None else self.responder(messages)
        reply = Reply(text=entry) if isinstance(entry, str) else entry
        if any(call.id is None for call in reply.tool_calls):
            with self._lock:
                calls = [
                    call
                    if call.id is not None
                    else ScriptedToolCall(call.name, call.args, f"call_{next(self._call_ids)}")
                    for call in reply.tool_calls
                ]
            reply = Reply(
                text=reply.text,
                reasoning=reply.reasoning,
                tool_calls=calls,
                finish_reason=reply.finish_reason,
                stop_reason=reply.stop_reason,
                error=reply.error,
                usage=reply.usage,
                blocks=reply.blocks,
            )
        return reply

    def _chunks(
        self,
        messages: list[BaseMessage],
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
    ) -> list[AIMessageChunk]:
        """Take the next reply and render it as the chunks to stream."""
        reply = self._take(messages)
        if reply.error is not None:
            raise reply.error
        # LangChain's wrappers fill in `lc_run-<run id>` when no run manager is given.
        msg_id = f"{LC_ID_PREFIX}-{run_manager.run_id}" if run_manager is not None else None
        blocks = itertools.count()  # running content-block index
        structured = bool(reply.reasoning or reply.blocks)  # list content iff there is reasoning or blocks
        empty: str | list[str | dict[str, Any]] = [] if structured else ""
        return [
            *self._content_chunks(reply, msg_id, blocks, structured=structured),
            *(
                AIMessageChunk(id=msg_id, content=empty, tool_call_chunks=[tcc])
                for call in reply.tool_calls
                for tcc in _tool_call_chunks(call, next(blocks))
            ),
            AIMessageChunk(
                id=msg_id,
                content=empty,
                response_metadata=_metadata(reply),
                usage_metadata=_usage(reply, messages),
                chunk_position="last",
            ),
        ]

    def _content_chunks(
        self, reply: Reply, msg_id: str | None, blocks: Iterator[int], *, structured: bool
    ) -> list[AIMessageChunk]:
        """The reasoning, then the text, then the other content blocks of ``reply``."""
        chunks: list[AIMessageChunk] = []
        if reply.reasoning:
            index = next(blocks)
            chunks.extend(
                AIMessageChunk(id=msg_id, content=[{"type": "reasoning", "reasoning": piece, "index": index}])
                for piece in _split_words(reply.reasoning, self.chunk_size)
            )
        if reply.text:
            index = next(blocks)
            for piece in _split_words(reply.text, self.chunk_size):
                content: str | list[str | dict[str, Any]] = (
                    [{"type": "text", "text": piece, "index": index}] if structured else piece
                )
                chunks.append(AIMessageChunk(id=msg_id, content=content))
        chunks.extend(AIMessageChunk(id=msg_id, content=[{**block, "index": next(blocks)}]) for block in reply.blocks)
        return chunks

    @staticmethod
    def _result(chunks: list[AIMessageChunk]) -> ChatResult:
        merged = reduce(operator.add, chunks)
        message = AIMessage(
            id=merged.id,
            content=merged.content,
            tool_calls=merged.tool_calls,
            invalid_tool_calls=merged.invalid_tool_calls,
            response_metadata=merged.response_metadata,
            usage_metadata=merged.usage_metadata,
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    # -- BaseChatModel hooks --------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chunks = self._chunks(messages, run_manager)
        if self.token_delay > 0:
            time.sleep(self.token_delay * len(chunks))
        return self._result(chunks)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chunks = self._chunks(messages, run_manager)
        if self.token_delay > 0:
            await asyncio.sleep(self.token_delay * len(chunks))
        return self._result(chunks)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, run_manager):
            if self.token_delay > 0:
                time.sleep(self.token_delay)
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(chunk.text, chunk=generation)
            yield generation

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, run_manager):
            if self.token_delay > 0:
                await asyncio.sleep(self.token_delay)
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                await run_manager.on_llm_new_token(chunk.text, chunk=generation)
            yield generation


def _tool_call_chunks(call: ScriptedToolCall, index: int) -> list[ToolCallChunk]:
    """A tool call streamed in pieces: only the first carries its name and id."""
    return [
        tool_call_chunk(name=call.name if n == 0 else None, args=piece, id=call.id if n == 0 else None, index=index)
        for n, piece in enumerate(_split_args(json.dumps(call.args)))
    ]


def _metadata(reply: Reply) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
        "model_name": "scripted",
    }
    if reply.stop_reason is not None:
        metadata["stop_reason"] = reply.stop_reason
    return metadata


def _usage(reply: Reply, messages: list[BaseMessage]) -> UsageMetadata:
    """The reply's token counts: as scripted, or estimated from the characters in and out."""
    if reply.usage is not None:
        input_tokens, output_tokens = reply.usage
    else:
        input_tokens = _estimate_tokens(sum(len(m.text) for m in messages))
        output_chars = len(reply.reasoning) + len(reply.text)
        output_chars += sum(len(json.dumps(c.args)) for c in reply.tool_calls)
        output_tokens = _estimate_tokens(output_chars)
    total = input_tokens + output_tokens
    return UsageMetadata(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=total)
