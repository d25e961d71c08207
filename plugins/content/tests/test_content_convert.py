"""Property tests: every valid ACP content block maps to LangChain and back without losing anything."""

from __future__ import annotations

from typing import Any

from acp.schema import (
    Annotations,
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from langacp.types import SessionContext
from langacp_content.convert import AcpBlock, for_model, to_acp, to_langchain
from langacp_content.output import output_updates

text = st.text(max_size=200)
uris = st.one_of(st.just("file:///home/u/src/a.py"), st.text(min_size=0, max_size=60))
mimes = st.one_of(st.none(), st.sampled_from(["text/plain", "text/x-python", "image/png", "application/pdf"]))
base64_data = st.binary(max_size=64).map(lambda b: __import__("base64").b64encode(b).decode())
metas = st.one_of(st.none(), st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=3))


def model(cls: Any, **fields: Any) -> st.SearchStrategy[Any]:
    """Instances of an ACP model from its wire field names (``None`` leaves a field out)."""

    def build(values: dict[str, Any]) -> Any:
        return cls.model_validate({k: v for k, v in values.items() if v is not None})

    return st.fixed_dictionaries(fields).map(build)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


annotations = maybe(
    model(
        Annotations,
        audience=maybe(st.lists(st.sampled_from(["user", "assistant"]), max_size=2)),
        priority=maybe(st.floats(min_value=0, max_value=1)),
        lastModified=maybe(st.just("2025-01-01T00:00:00Z")),
        _meta=metas,
    )
)
common = {"annotations": annotations, "_meta": metas}

text_blocks = model(TextContentBlock, type=st.just("text"), text=text, **common)
image_blocks = model(
    ImageContentBlock,
    type=st.just("image"),
    data=base64_data,
    mimeType=st.sampled_from(["image/png", "image/jpeg", "image/webp"]),
    uri=maybe(uris),
    **common,
)
audio_blocks = model(
    AudioContentBlock,
    type=st.just("audio"),
    data=base64_data,
    mimeType=st.sampled_from(["audio/wav", "audio/mpeg"]),
    **common,
)
links = model(
    ResourceContentBlock,
    type=st.just("resource_link"),
    uri=uris,
    name=text,
    title=maybe(text),
    description=maybe(text),
    mimeType=mimes,
    size=maybe(st.integers(min_value=0, max_value=2**40)),
    **common,
)
text_resources = model(TextResourceContents, uri=uris, text=text, mimeType=mimes, _meta=metas)
blob_resources = model(BlobResourceContents, uri=uris, blob=base64_data, mimeType=mimes, _meta=metas)
embedded = model(
    EmbeddedResourceContentBlock, type=st.just("resource"), resource=text_resources | blob_resources, **common
)
acp_blocks = st.one_of(text_blocks, image_blocks, audio_blocks, links, embedded)


def _wire(block: Any) -> dict[str, Any]:
    """What goes over the wire: the JSON a client would send or receive."""
    dumped: dict[str, Any] = block.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


@settings(max_examples=300, deadline=None)
@given(acp_blocks)
def test_acp_to_langchain_and_back_is_lossless(block: AcpBlock) -> None:
    back = to_acp(to_langchain(block))
    assert back is not None
    assert _wire(back) == _wire(block)


@settings(max_examples=200, deadline=None)
@given(acp_blocks)
def test_the_output_hook_shows_a_converted_block_as_the_same_acp_block(block: AcpBlock) -> None:
    session = SessionContext(session_id="s", cwd="/")
    lc = to_langchain(block)
    updates = output_updates(lc, session)
    if isinstance(block, TextContentBlock) and not block.text:
        assert updates == []  # nothing to show
        return
    [update] = updates
    assert update.session_update == "agent_message_chunk"
    assert _wire(update.content) == _wire(block)


@settings(max_examples=200, deadline=None)
@given(acp_blocks)
def test_what_the_model_gets_is_safe_for_every_provider(block: AcpBlock) -> None:
    model_block = for_model(to_langchain(block))
    if model_block["type"] == "text":
        assert set(model_block) == {"type", "text"}  # providers pass text blocks through verbatim
    else:
        assert model_block["type"] in ("image", "audio", "file")
        assert "base64" in model_block and "url" not in model_block
    if isinstance(block, EmbeddedResourceContentBlock) and isinstance(block.resource, TextResourceContents):
        assert block.resource.text in model_block["text"]
    if isinstance(block, ResourceContentBlock):
        assert block.uri in model_block["text"]
    if isinstance(block, (ImageContentBlock, AudioContentBlock)):
        assert (model_block["type"], model_block["base64"]) == (block.type, block.data)


def test_blob_images_go_to_the_model_as_images() -> None:
    blob = BlobResourceContents(uri="file:///a/cat.png", blob="aGk=", mime_type="image/png")
    model_block = for_model(to_langchain(EmbeddedResourceContentBlock(type="resource", resource=blob)))
    assert (model_block["type"], model_block["base64"], model_block["mime_type"]) == ("image", "aGk=", "image/png")


def test_langchain_output_blocks_to_acp() -> None:
    session = SessionContext(session_id="s", cwd="/")

    def one(block: dict[str, Any]) -> Any:
        [update] = output_updates(block, session)
        return update

    thought = one({"type": "reasoning", "reasoning": "hmm"})
    assert (thought.session_update, thought.content.text) == ("agent_thought_chunk", "hmm")
    image = one({"type": "image", "url": "data:image/gif;base64,R0lG"}).content
    assert (image.type, image.mime_type, image.data) == ("image", "image/gif", "R0lG")
    remote = one({"type": "image", "url": "https://x.test/cat.png", "mime_type": "image/png"}).content
    assert (remote.type, remote.uri, remote.name) == ("resource_link", "https://x.test/cat.png", "cat.png")
    pdf = one({"type": "file", "base64": "JVBE", "mime_type": "application/pdf", "extras": {"filename": "r.pdf"}})
    assert (pdf.content.type, pdf.content.resource.uri, pdf.content.resource.blob) == (
        "resource",
        "attachment:r.pdf",
        "JVBE",
    )
    plain = one({"type": "text-plain", "text": "notes", "mime_type": "text/plain", "title": "n.txt"}).content
    assert (plain.resource.text, plain.resource.uri, plain.resource.mime_type) == (
        "notes",
        "attachment:n.txt",
        "text/plain",
    )
    annotated = one({"type": "text", "text": "hi", "extras": {"annotations": {"audience": ["user"], "priority": 0.5}}})
    assert annotated.content.annotations.audience == ["user"] and annotated.content.annotations.priority == 0.5
    assert output_updates({"type": "text", "text": ""}, session) == []


def test_citations_become_resource_links() -> None:
    session = SessionContext(session_id="s", cwd="/")
    block = {
        "type": "text",
        "text": "See the spec.",
        "annotations": [
            {"type": "citation", "url": "https://agentclientprotocol.com", "title": "ACP"},
            {"type": "citation", "url": "https://agentclientprotocol.com"},
        ],
    }
    text, link = output_updates(block, session)
    assert text.content.text == "See the spec."
    assert (link.content.type, link.content.uri, link.content.name) == (
        "resource_link",
        "https://agentclientprotocol.com",
        "ACP",
    )


def test_refusal_is_shown() -> None:
    session = SessionContext(session_id="s", cwd="/")
    [update] = output_updates({"type": "non_standard", "value": {"type": "refusal", "refusal": "No."}}, session)
    assert update.content.text == "No."
    assert session.state == {}  # no flag for another plugin: stop reasons read the turn's last message


def test_unknown_blocks_become_text_never_a_crash() -> None:
    session = SessionContext(session_id="s", cwd="/")
    [named] = output_updates({"type": "hologram", "text": "a cat"}, session)
    assert named.content.text == "a cat"
    [described] = output_updates({"type": "non_standard", "value": {"type": "widget"}}, session)
    assert described.content.text == "[widget content not shown]"
    [broken] = output_updates({"type": "image", "base64": 12}, session)
    assert broken.content.text == "[image content not shown]"
