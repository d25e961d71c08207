"""A sub-agent's work as a child session (ACP's unstable subagents), for a client with ``clientCapabilities.subagents``.

:class:`Child` builds the updates of one child session: ``subagent_update`` on the parent
(announce, then ``running`` / ``idle``), the task as a ``session_message`` from the parent
(in both transcripts), the answer as a ``session_message`` (+ ``session_message_chunk``) from
the child in the parent's, and the child's own updates wrapped in
:class:`~langacp.protocol.ForSession`, so they go through the parent's outbox in order with
its updates (the announce first, as ACP asks) and out with the child's ``sessionId``.

Two sources use it: ``acp_agent_tool`` / ``acp_node`` (:mod:`langacp.client.tool`), forwarding
the ACP sub-agent's updates, and :class:`SubagentWatcher`, a callback handler that finds a
graph run inside a tool of the turn's graph (a deepagents-style ``task`` tool) and reports that
graph's model output and tool calls through a :class:`~langacp.bridge.turn.TurnReporter` of its own.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, ToolMessage

from langacp.bridge.outbox import new_message_id, with_message_id
from langacp.bridge.turn import TurnReporter
from langacp.bridge.turn_callbacks import TurnCallbacks
from langacp.compat.langgraph import own_graph_task
from langacp.types import ToolCallInfo

if TYPE_CHECKING:
    from langacp.bridge.outbox import UpdateSink
    from langacp.types import SessionContext

__all__ = ["SUBAGENT_META", "Child", "SubagentWatcher", "plan_of", "task_text"]

SUBAGENT_META = "subagentSessionId"
"""The ``_meta`` key on the parent's tool call that names the child session running its work."""

_CHUNKS = {"user_message_chunk", "agent_message_chunk", "agent_thought_chunk"}
_TASK_KEYS = ("prompt", "description", "task", "instructions", "query", "input")


def task_text(args: Any) -> str:
    """The task a sub-agent tool call hands over: its ``prompt`` / ``description`` / … argument, else its arguments."""
    if isinstance(args, dict):
        for key in _TASK_KEYS:
            if isinstance(args.get(key), str) and args[key].strip():
                return str(args[key])
        return json.dumps(args, ensure_ascii=False, default=str)
    return str(args)


class Child:
    """One child session of ``parent``, run for the parent's tool call ``tool_call_id``; builds its updates."""

    def __init__(self, parent: SessionContext, tool_call_id: str) -> None:
        self.parent_id = parent.session_id
        self.tool_call_id = tool_call_id
        self.session_id = f"{parent.session_id}/subagent-{uuid.uuid4().hex[:12]}"

    def started(self, title: str, task: str, description: str | None = None) -> list[Any]:
        """Announce the child (on the parent), link the tool call to it, and hand it ``task``."""
        from acp import update_tool_call

        from langacp.protocol import ForSession, SessionMessage, SubagentUpdate

        link = update_tool_call(self.tool_call_id)
        link.field_meta = {SUBAGENT_META: self.session_id}
        sent, received = new_message_id(), new_message_id()
        message = {
            "senderSessionId": self.parent_id,
            "recipientSessionId": self.session_id,
            "content": [{"type": "text", "text": task}],
        }
        announce = {"sessionId": self.session_id, "title": title[:200] or "sub-agent", "state": {"state": "running"}}
        if description:
            announce["description"] = description
        return [
            SubagentUpdate.model_validate(announce),
            link,
            SessionMessage.model_validate({**message, "messageId": sent, "recipientMessageId": received}),
            ForSession(
                self.session_id,
                SessionMessage.model_validate({**message, "messageId": received, "senderMessageId": sent}),
            ),
        ]

    def own(self, update: Any) -> Any:
        """The child's own update (an ACP update model) for its session; a chunk without ``messageId`` gets one."""
        from langacp.protocol import ForSession

        if getattr(update, "session_update", None) in _CHUNKS and getattr(update, "message_id", "") is None:
            update = with_message_id(update, new_message_id())
        return ForSession(self.session_id, update)

    def finished(self, answer: str, stop_reason: str = "end_turn") -> list[Any]:
        """The child's answer to the parent (a session message in the parent's transcript), and the child idle."""
        from langacp.protocol import SessionMessage, SessionMessageChunk, SubagentUpdate

        updates: list[Any] = []
        if answer:
            message_id = new_message_id()
            ends = {"messageId": message_id, "senderSessionId": self.session_id, "recipientSessionId": self.parent_id}
            chunk = {"messageId": message_id, "content": {"type": "text", "text": answer}}
            updates += [SessionMessage.model_validate(ends), SessionMessageChunk.model_validate(chunk)]
        idle = {"sessionId": self.session_id, "state": {"state": "idle", "stopReason": stop_reason}}
        return [*updates, SubagentUpdate.model_validate(idle)]


class ChildSink:
    """What a child's :class:`TurnReporter` writes to: its updates, for the child, into the parent's outbox.

    Streamed text of one message is joined until something else is sent (:meth:`flush`).
    """

    def __init__(self, child: Child, parent: UpdateSink, session: SessionContext) -> None:
        self.child = child
        self.parent = parent
        self.session = session
        self._text: list[str] = []
        self._text_id: str | None = None

    def put(self, update: Any, message_id: str | None = None) -> None:
        self.flush()
        self._put(update, message_id)

    def _put(self, update: Any, message_id: str | None) -> None:
        if getattr(update, "session_update", None) in _CHUNKS and getattr(update, "message_id", "") is None:
            update = with_message_id(update, message_id or new_message_id())
        self.parent.put(self.child.own(update))

    def put_block(self, block: dict[str, Any], message_id: str | None = None) -> None:
        self.flush()
        message_id = message_id or new_message_id()
        for update in self.session.plugins.output_block(dict(block), self.session):
            self._put(update, message_id)

    def put_text(self, text: str, message_id: str | None = None) -> None:
        if self._text and message_id != self._text_id:
            self.flush()
        self._text.append(text)
        self._text_id = message_id

    def flush(self) -> None:
        """Send the text gathered so far as one message chunk."""
        if not self._text:
            return
        text, message_id = "".join(self._text), self._text_id or new_message_id()
        self._text, self._text_id = [], None
        for update in self.session.plugins.output_block({"type": "text", "text": text}, self.session):
            self._put(update, message_id)


class _Running:
    """A tool of the turn's graph with a graph run inside it: its child session and that graph's turn."""

    def __init__(self, watcher: SubagentWatcher, call_id: str, name: str, args: Any) -> None:
        turn = watcher.turn
        self.child = Child(turn.session, call_id)
        self.sink = ChildSink(self.child, turn.sink, turn.session)
        self.reporter = TurnReporter(turn.plugins, turn.session, self.sink)  # type: ignore[arg-type]
        for update in self.child.started(name, task_text(args)):
            turn.sink.put(update)


def plan_of(update: Any, parent_call_id: str) -> Any:
    """A sub-agent's ``plan_update`` / ``plan_removed`` as a plan of the parent session whose id is the
    tool call's (``CALL/ID`` for a plan the sub-agent named); ``None`` for any other update."""
    from langacp.plan_updates import MAIN_PLAN

    kind = getattr(update, "session_update", None)
    if kind == "plan_update":
        own = update.plan.plan_id
        plan_id = parent_call_id if own == MAIN_PLAN else f"{parent_call_id}/{own}"
        return update.model_copy(update={"plan": update.plan.model_copy(update={"plan_id": plan_id})})
    if kind == "plan_removed":
        plan_id = parent_call_id if update.plan_id == MAIN_PLAN else f"{parent_call_id}/{update.plan_id}"
        return update.model_copy(update={"plan_id": plan_id})
    return None


class SubagentWatcher(TurnCallbacks):
    """Reports a graph run inside a tool of the turn's graph (a ``task`` tool running a sub-agent) as a child session.

    The turn's own tools are told apart from the inner graph's runs as LangGraph's stream
    handlers tell them (:func:`~langacp.compat.langgraph.own_graph_task`); an inner run belongs
    to the tool whose checkpoint namespace its own starts with. The child is announced at the
    inner graph's first model call or tool, so a tool that runs no graph sends nothing new.

    With ``children=False`` (a client with ``plan`` and without ``subagents``) only the inner
    graph's plans are reported, each as a plan of the parent by id (:func:`plan_of`).
    """

    ignore_llm = False
    ignore_chat_model = False
    ignore_agent = False  # a tool's start and end

    def __init__(self, turn: TurnReporter, *, children: bool = True) -> None:
        super().__init__(turn)
        self.children = children
        if not children:
            self.ignore_llm = self.ignore_chat_model = True  # tools only
        self._plans: dict[Any, tuple[str, ToolCallInfo]] = {}
        """An inner tool run, when only plans are reported → (the parent's tool call id, the call)."""
        self._tools: dict[str, tuple[str, str, Any] | None] = {}
        """Namespace of a running tool of the turn's graph → (tool call id, name, arguments); ``None`` when
        several calls run in one namespace (a hand-made graph's ``ToolNode`` running them in one task):
        an inner run there cannot be told to belong to one of them, and is not shown."""
        self._own_runs: dict[Any, str] = {}
        self._children: dict[str, _Running] = {}
        """Namespace → the child running there."""
        self._models: dict[Any, tuple[_Running, dict[str, Any], bool]] = {}
        self._inner_tools: dict[Any, tuple[_Running, str, str]] = {}

    @staticmethod
    def _namespace(metadata: dict[str, Any] | None) -> str:
        return str((metadata or {}).get("langgraph_checkpoint_ns") or "").split("|", 1)[0]

    def _child(self, metadata: dict[str, Any] | None) -> _Running | None:
        namespace = self._namespace(metadata)
        running = self._children.get(namespace)
        tool = self._tools.get(namespace)
        if running is None and tool is not None:
            call_id, name, args = tool
            running = self._children[namespace] = _Running(self, call_id, name, args)
        return running

    # -- the inner graph's model -------------------------------------------------------------

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, **kwargs: Any) -> None:
        metadata = kwargs.get("metadata")
        if own_graph_task(metadata):
            return
        self.call(self._model_started, run_id, metadata)

    def _model_started(self, run_id: Any, metadata: dict[str, Any] | None) -> None:
        running = self._child(metadata)
        if running is not None:
            self._models[run_id] = (running, dict(metadata or {}), False)

    def on_llm_new_token(self, token: Any, *, chunk: Any = None, run_id: Any, **kwargs: Any) -> None:
        message = getattr(chunk, "message", None)
        if isinstance(message, AIMessage):
            self.call(self._token, run_id, message)

    def _token(self, run_id: Any, message: AIMessage) -> None:
        found = self._models.get(run_id)
        if found is not None:
            running, metadata, _ = found
            self._models[run_id] = (running, metadata, True)
            running.reporter.on_message(message, metadata)

    def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
        generations = getattr(response, "generations", None) or [[]]
        message = getattr(generations[0][0], "message", None) if generations[0] else None
        self.call(self._model_ended, run_id, message)

    def _model_ended(self, run_id: Any, message: Any) -> None:
        found = self._models.pop(run_id, None)
        if found is None or not isinstance(message, AIMessage):
            return
        running, metadata, streamed = found
        if not streamed:
            running.reporter.on_message(message, metadata)
        running.reporter.on_model_message(message)
        running.sink.flush()

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        self.call(self._models.pop, run_id, None)

    # -- tools: the turn's own (a sub-agent may run inside) and the inner graph's --------------

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: Any,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        call_id = kwargs.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            return
        name = str((serialized or {}).get("name") or kwargs.get("name") or "tool")
        self.call(self._tool_started, run_id, call_id, name, inputs, metadata)

    def _tool_started(self, run_id: Any, call_id: str, name: str, args: Any, metadata: dict[str, Any] | None) -> None:
        if own_graph_task(metadata):
            namespace = self._namespace(metadata)
            if namespace:
                self._tools[namespace] = None if namespace in self._tools else (call_id, name, args)
                self._own_runs[run_id] = namespace
            return
        if not self.children:
            tool = self._tools.get(self._namespace(metadata))
            if tool is not None:
                self._plans[run_id] = (tool[0], ToolCallInfo(call_id, name, args if isinstance(args, dict) else {}))
            return
        running = self._child(metadata)
        if running is not None:
            running.sink.flush()
            running.reporter.tool_started(call_id, name, args if isinstance(args, dict) else None)
            self._inner_tools[run_id] = (running, call_id, name)

    def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
        self.call(self._tool_ended, run_id, output, False)

    def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        self.call(self._tool_ended, run_id, error, True)

    def _tool_ended(self, run_id: Any, output: Any, failed: bool) -> None:
        planned = self._plans.pop(run_id, None)
        if planned is not None:
            parent_call_id, call = planned
            result = _result(output, call.tool_call_id, call.name, failed)
            for update in self.turn.plugins.tool_updates(call, result, self.turn.session):
                plan = plan_of(update, parent_call_id)
                if plan is not None:
                    self.turn.sink.put(plan)
            return
        inner = self._inner_tools.pop(run_id, None)
        if inner is not None:
            running, call_id, name = inner
            running.reporter.finish_tool(_result(output, call_id, name, failed))
            return
        namespace = self._own_runs.pop(run_id, None)
        if namespace is None:
            return
        self._tools.pop(namespace, None)
        child = self._children.pop(namespace, None)
        if child is None:
            return
        child.sink.flush()
        child.reporter.close_open_tools("The sub-agent stopped.")
        answer = output.text if isinstance(output, ToolMessage) else ("" if failed else str(output))
        for update in child.child.finished(answer, "end_turn" if not failed else "cancelled"):
            self.turn.sink.put(update)

    def close(self, reason: str) -> None:
        """The turn ended (cancelled, failed) with children still running: each ends ``cancelled``."""
        for namespace in list(self._children):
            child = self._children.pop(namespace)
            child.sink.flush()
            child.reporter.close_open_tools(reason)
            for update in child.child.finished("", "cancelled"):
                self.turn.sink.put(update)


def _result(output: Any, call_id: str, name: str, failed: bool) -> ToolMessage:
    """A tool's output as the ``ToolMessage`` the turn reports (a ``Command`` or a raw value is wrapped)."""
    if isinstance(output, ToolMessage):
        return output
    text = f"Error: {output}" if failed else str(output)
    return ToolMessage(text, tool_call_id=call_id, name=name, status="error" if failed else "success")
