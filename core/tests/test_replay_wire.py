"""A replay's updates built as JSON (``langacp.protocol.wire``) are the bytes of the validated models' dumps."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp import text_block, tool_content, tool_diff_content, tool_terminal_ref
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ContentToolCallContent,
    ImageContentBlock,
    TextContentBlock,
    ToolCallLocation,
    UserMessageChunk,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langacp import replay
from langacp.bridge.outbox import _unnamed_chunk, with_message_id
from langacp.plugins import load_plugins
from langacp.protocol import send_updates, start_tool_call, update_json
from langacp.protocol.wire import WireUpdate, chunk_with_id, tool_call_start, user_text_chunk
from langacp.transport import encode_message
from langacp.types import SessionContext

KINDS = ["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
STATUSES = ["pending", "in_progress", "completed", "failed"]


class _SubContent(ContentToolCallContent):
    """A subclass of a content class: validation would dump it as its parent (dropping ``extra``)."""

    extra: str = "x"


def _odd_texts() -> list[Any]:
    """Text contents the fast dump must not take as plain: each dumps otherwise, or fails to."""
    from acp.schema import Annotations

    annotated = tool_content(TextContentBlock(type="text", text="a", annotations=Annotations(priority=0.5)))
    meta = tool_content(TextContentBlock(type="text", text="m", field_meta={"k": 1}))
    outer_meta = ContentToolCallContent(type="content", content=text_block("o"), field_meta={"k": 2})
    not_str = tool_content(text_block("n"))
    object.__setattr__(not_str.content, "text", 12)
    sub_block = tool_content(_SubText(type="text", text="s"))
    relabelled = tool_content(text_block("r"))
    object.__setattr__(relabelled.content, "type", "image")
    return [annotated, meta, outer_meta, not_str, sub_block, relabelled]


class _SubText(TextContentBlock):
    extra: str = "x"


def _wrong_type() -> Any:
    item = tool_content(text_block("mislabelled"))
    object.__setattr__(item, "type", "diff")  # its class says "content"
    return item


texts = st.text(max_size=12) | st.sampled_from(["", " ", "\u0000", "\ud800x", "é" * 3, "\n"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**64) | st.floats() | texts,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(texts, inner, max_size=3)
        | st.dictionaries(st.integers(), inner, max_size=2)
    ),
    max_leaves=8,
)
contents = st.one_of(
    texts.map(lambda t: tool_content(text_block(t))),
    st.just(tool_content(ImageContentBlock(type="image", data="aGk=", mime_type="image/png"))),
    st.just(tool_content(ImageContentBlock(type="image", data="", mime_type="image/png", uri="file:///a.png"))),
    st.builds(lambda p, o, n: tool_diff_content(p, n, o), texts, st.none() | texts, texts),
    texts.map(lambda t: tool_terminal_ref(t or "term")),
    st.just({"type": "content", "content": {"type": "text", "text": "a dict"}}),
    st.just({"type": "content", "content": {"type": "nonsense"}}),
    st.just({"type": "bogus"}),
    st.just(42),
    st.just(_SubContent(type="content", content=text_block("sub"))),
    st.builds(_wrong_type),
    st.sampled_from(range(6)).map(lambda i: _odd_texts()[i]),
)
locations = st.one_of(
    st.builds(lambda p, line: ToolCallLocation(path=p, line=line), texts, st.none() | st.integers(0, 10**6)),
    st.just({"path": "/a", "line": 3}),
    st.just({"line": "x"}),
)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tool_call_id=texts | st.just(7),
    title=texts | st.just(3),
    name=st.none() | texts,
    kind=st.none() | st.sampled_from([*KINDS, "bogus", ""]),
    status=st.none() | st.sampled_from([*STATUSES, "done"]),
    content=st.none() | st.lists(contents, max_size=4),
    locations=st.none() | st.lists(locations, max_size=3),
    raw_input=json_values,
    raw_output=json_values,
)
def test_a_tool_call_start_is_the_validated_models_json(**fields: Any) -> None:
    tool_call_id, title = fields.pop("tool_call_id"), fields.pop("title")
    built: Any = None

    def fast() -> dict[str, Any]:
        nonlocal built
        built = tool_call_start(tool_call_id, title, **fields)
        return built.data if isinstance(built, WireUpdate) else update_json(built)

    try:
        validated = update_json(start_tool_call(tool_call_id, title, **fields))
    except Exception as exc:  # noqa: BLE001 - the fast path must fail the same way, and no sooner than dumping
        with pytest.raises(type(exc)):
            fast()
        return
    assert _bytes(fast()) == _bytes(validated)
    if isinstance(built, WireUpdate):
        assert update_json(built.model()) == validated


def test_plain_inputs_take_the_fast_path_and_odd_ones_do_not() -> None:
    plain = {"name": "add", "kind": "other", "status": "completed", "raw_input": {"a": 1}, "raw_output": "2"}
    content = [tool_content(text_block("2"))]
    assert isinstance(tool_call_start("c", "t", content=content, locations=None, **plain), WireUpdate)
    for odd in ([{"type": "bogus"}], [_SubContent(type="content", content=text_block("s"))], [_wrong_type()]):
        assert not isinstance(tool_call_start("c", "t", content=odd, locations=None, **plain), WireUpdate)
    assert not isinstance(tool_call_start("c", "t", content=None, locations=None, **{**plain, "kind": "x"}), WireUpdate)
    assert isinstance(user_text_chunk("hi", "m"), WireUpdate)


def test_flat_raw_values_are_used_as_the_serializer_gives_them_back() -> None:
    from langacp.protocol.wire import _any_json, _flat_json

    for value in ("x", "\ud800", 7, 2**70, True, {"a": 1, "b": True, "c": None, "d": "x\ud800"}):
        assert _flat_json(value) == _any_json()(value, mode="json", by_alias=True, exclude_none=True)
    raw = {"a": 1}
    assert _flat_json(raw) is not raw  # a copy, as the serializer's
    for odd in (1.5, {"a": 1.5}, {"é": 1}, {"\ud800": 1}, {1: 1}, {"a": [1]}, [1], (1,), "", 0, {}):
        assert _flat_json(odd) is None  # the serializer's job


@settings(max_examples=200, deadline=None)
@given(text=texts, message_id=texts)
def test_a_user_text_chunk_is_the_validated_models_json(text: str, message_id: str) -> None:
    model = UserMessageChunk(session_update="user_message_chunk", content=text_block(text), message_id=message_id)
    built = user_text_chunk(text, message_id)
    assert isinstance(built, WireUpdate) and built.model() == model
    assert _bytes(built.data) == _bytes(_sdk_json(model))


def _chunks() -> st.SearchStrategy[Any]:
    """Agent message and thought chunks: plain texts, and odd ones the fast path must leave to the outbox."""
    from acp.schema import Annotations

    def odd(i: int, text: str) -> Any:
        chunk: Any = AgentMessageChunk(session_update="agent_message_chunk", content=text_block(text))
        if i == 0:
            chunk = chunk.model_copy(update={"message_id": "own"})
        elif i == 1:
            chunk.field_meta = {"k": 1}
        elif i == 2:
            chunk.content = TextContentBlock(type="text", text=text, annotations=Annotations(priority=1.0))
        elif i == 3:
            chunk.content = ImageContentBlock(type="image", data="aGk=", mime_type="image/png")
        elif i == 4:
            object.__setattr__(chunk, "session_update", "agent_thought_chunk")
        elif i == 5:
            chunk.content = _SubText(type="text", text=text)
        return chunk

    return st.one_of(
        texts.map(lambda t: AgentMessageChunk(session_update="agent_message_chunk", content=text_block(t))),
        texts.map(lambda t: AgentThoughtChunk(session_update="agent_thought_chunk", content=text_block(t))),
        st.builds(odd, st.integers(0, 5), texts),
    )


@settings(max_examples=300, deadline=None)
@given(chunk=_chunks(), message_id=texts)
def test_a_chunk_given_its_id_is_the_outboxs_copy(chunk: Any, message_id: str) -> None:
    """As the outbox would send it: the copy with its id, dumped (a chunk with an id of its own: as it is)."""
    expected = with_message_id(chunk, message_id) if _unnamed_chunk(chunk) else chunk
    built = chunk_with_id(chunk, message_id)
    queued = with_message_id(built, message_id) if _unnamed_chunk(built) else built
    try:
        validated = _bytes(update_json(expected))
    except Exception as exc:  # noqa: BLE001 - the fast path must fail the same way
        with pytest.raises(type(exc)):
            _bytes(update_json(queued))
        return
    assert _bytes(update_json(queued)) == validated
    if isinstance(built, WireUpdate):
        assert built.model() == expected


class _SubStr(str):
    pass


@settings(max_examples=200, deadline=None)
@given(text=texts | texts.map(_SubStr))
def test_text_models_made_are_the_sdk_helpers_models(text: str) -> None:
    """langacp.text_models' builders equal the SDK helpers' validated models: value, fields set, dump, copy."""
    from acp import update_agent_message_text, update_agent_thought_text

    from langacp.text_models import agent_text_chunk, tool_text_content

    pairs = [
        (lambda: tool_text_content(text), lambda: tool_content(text_block(text))),
        (lambda: agent_text_chunk(text), lambda: update_agent_message_text(text)),
        (lambda: agent_text_chunk(text, thought=True), lambda: update_agent_thought_text(text)),
    ]
    for make, validate in pairs:
        try:
            validated = validate()
        except Exception as exc:  # noqa: BLE001 - (a str subclass with a lone surrogate) refused alike
            with pytest.raises(type(exc)):
                make()
            continue
        made = make()
        assert made == validated and type(made) is type(validated) and type(made.content) is type(validated.content)
        assert made.model_fields_set == validated.model_fields_set
        assert made.content.model_fields_set == validated.content.model_fields_set
        assert type(made.content.text) is str
        assert _bytes(update_json(made)) == _bytes(update_json(validated))
        assert made.model_copy(update={"field_meta": {"k": 1}}) == validated.model_copy(update={"field_meta": {"k": 1}})


def test_only_plain_chunks_without_an_id_are_written_as_json() -> None:
    from acp import update_agent_message_text, update_agent_thought_text

    assert isinstance(chunk_with_id(update_agent_message_text("hi"), "m"), WireUpdate)
    thought = chunk_with_id(update_agent_thought_text("hm"), "m")
    assert isinstance(thought, WireUpdate) and thought.message_id == "m/thought"
    own = update_agent_message_text("hi").model_copy(update={"message_id": "own"})
    assert chunk_with_id(own, "m") is own
    annotated = _odd_texts()[0].content
    odd = AgentMessageChunk(session_update="agent_message_chunk", content=annotated)
    assert chunk_with_id(odd, "m") is odd


def test_a_wire_update_copied_with_another_id_is_the_models_copy() -> None:
    built = tool_call_start(
        "c1",
        "t",
        name=None,
        kind="read",
        status="failed",
        content=None,
        locations=None,
        raw_input=None,
        raw_output=None,
    )
    copied = built.model_copy(update={"tool_call_id": "c1#2"})
    assert isinstance(copied, WireUpdate) and copied.tool_call_id == "c1#2" and built.tool_call_id == "c1"
    assert _bytes(copied.data) == _bytes(update_json(built.model().model_copy(update={"tool_call_id": "c1#2"})))
    other = built.model_copy(update={"title": "u"})  # any other field: the model's copy
    assert not isinstance(other, WireUpdate) and other.title == "u"


# -- a whole replay: every installed plugin's mappers, generated conversations -----------------------


def _human(i: int, content: Any) -> HumanMessage:
    return HumanMessage(content, id=f"h{i}")


human_contents = st.one_of(
    texts,
    st.lists(
        st.one_of(
            texts.map(lambda t: {"type": "text", "text": t}),
            st.just({"type": "image", "base64": "aGk=", "mime_type": "image/png"}),
            st.just({"type": "image", "url": "https://example.com/a.png"}),
            st.just({"type": "file", "base64": "aGk=", "mime_type": "application/pdf"}),
        ),
        max_size=3,
    ),
)
tool_names = st.sampled_from(["add", "read_file", "write_file", "edit_file", "run_command", "update_plan", "nope"])
tool_args = st.fixed_dictionaries(
    {}, optional={"path": st.sampled_from(["a.py", "../x", "/etc/passwd", ""]), "a": st.integers(), "command": texts}
)
results = st.one_of(
    texts,
    st.lists(st.one_of(texts.map(lambda t: {"type": "text", "text": t}), st.just({"type": "image", "url": "x"}))),
)


ai_contents = st.one_of(
    texts,
    st.lists(
        st.one_of(
            texts.map(lambda t: {"type": "text", "text": t}),
            texts.map(lambda t: {"type": "reasoning", "reasoning": t}),
            texts.map(lambda t: {"type": "text", "text": t, "annotations": [{"type": "citation", "url": "https://x"}]}),
        ),
        max_size=3,
    ),
)


@st.composite
def conversations(draw: Any) -> list[Any]:
    messages: list[Any] = []
    for turn in range(draw(st.integers(1, 4))):
        messages.append(_human(turn, draw(human_contents)))
        calls = [
            {
                "name": draw(tool_names),
                "args": draw(tool_args),
                "id": f"call_{draw(st.integers(0, 2))}",
                "type": "tool_call",
            }
            for _ in range(draw(st.integers(0, 2)))
        ]
        messages.append(AIMessage(draw(ai_contents), tool_calls=calls, id=f"a{turn}"))
        for call in calls:
            if draw(st.booleans()):
                status = draw(st.sampled_from(["success", "error"]))
                messages.append(ToolMessage(draw(results), tool_call_id=call["id"], status=status, id=f"t{turn}"))
        messages.append(AIMessage(draw(ai_contents), id=f"b{turn}"))
    return messages


class _Sink:
    """The outbox's ``put`` (an unnamed chunk given ``message_id``), keeping what it is given."""

    def __init__(self) -> None:
        self.updates: list[Any] = []

    def put(self, update: Any, message_id: str | None = None) -> None:
        if _unnamed_chunk(update):
            update = with_message_id(update, message_id or "fixed")
        self.updates.append(update)


class _Connection:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send_notification(self, method: str, params: Any = None) -> None:
        self.sent.append(params)


class _Client:
    def __init__(self) -> None:
        self._conn = _Connection()


def _sent(updates: list[Any]) -> bytes:
    client = _Client()
    asyncio.run(send_updates(client, "s", updates))
    return b"".join(_bytes(p) for p in client._conn.sent)


PLUGINS = load_plugins()
CWD = "/nonexistent/langacp-replay-wire"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=conversations())
def test_a_replay_sends_the_bytes_of_the_validated_models(messages: list[Any]) -> None:
    fast, validated = _Sink(), _Sink()
    replay.replay_messages(PLUGINS, SessionContext(session_id="s", cwd=CWD, plugins=PLUGINS), messages, fast)
    built = replay.tool_call_start, replay.user_text_chunk, replay.chunk_with_id
    # the models, validated as before (a chunk copied with its id by the sink, as the outbox does)
    replay.tool_call_start, replay.user_text_chunk, replay.chunk_with_id = start_tool_call, _model, _as_is
    try:
        replay.replay_messages(PLUGINS, SessionContext(session_id="s", cwd=CWD, plugins=PLUGINS), messages, validated)
    finally:
        replay.tool_call_start, replay.user_text_chunk, replay.chunk_with_id = built
    assert not any(isinstance(u, WireUpdate) for u in validated.updates)
    assert _sent(fast.updates) == _sent(validated.updates)


def _as_is(update: Any, message_id: str) -> Any:
    return update


def _model(text: str, message_id: str) -> Any:
    return UserMessageChunk(session_update="user_message_chunk", content=text_block(text), message_id=message_id)


def _sdk_json(model: Any) -> dict[str, Any]:
    from langacp.protocol import sdk_update_json

    return sdk_update_json(model)


def _bytes(value: Any) -> bytes:
    """``value`` as the transport writes it."""
    return encode_message({"jsonrpc": "2.0", "method": "session/update", "params": {"update": value}})
