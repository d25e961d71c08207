"""langacp-content in process: prompt content in, answers, thoughts, images and refusals out."""

from __future__ import annotations

import pytest
from acp import (
    RequestError,
    audio_block,
    embedded_blob_resource,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)

from langacp.testing.harness import serve, serve_in_process
from langacp.testing.workspace import PIXEL_PNG

WORKSPACE = "langacp.testing.workspace:agent"


async def test_capabilities_and_every_prompt_block_reach_the_model() -> None:
    async with serve_in_process(WORKSPACE, plugins=["content"]) as agent:
        init = await agent.initialize()
        caps = init.agent_capabilities.prompt_capabilities
        assert (caps.image, caps.audio, caps.embedded_context) == (True, True, True)
        sid = await agent.new_session()
        prompt = [
            text_block("blocks"),
            image_block(PIXEL_PNG, "image/png"),
            audio_block("UklGRg==", "audio/wav"),
            resource_block(embedded_text_resource("file:///w/a.py", "print(1)", mime_type="text/x-python")),
            resource_block(embedded_blob_resource("file:///w/r.pdf", "JVBERg==", mime_type="application/pdf")),
            resource_block(embedded_blob_resource("file:///w/cat.png", PIXEL_PNG, mime_type="image/png")),
            resource_link_block("spec.md", "file:///w/spec.md", title="The spec"),
        ]
        response = await agent.conn.prompt(session_id=sid, prompt=prompt)
        assert response.stop_reason == "end_turn"
        assert agent.client.text(sid).splitlines() == [
            f"image image/png {len(PIXEL_PNG)} chars",
            "audio audio/wav 8 chars",
            'text: <context uri="file:///w/a.py">',
            "print(1)",
            "</context>",
            "file application/pdf 8 chars",
            f"image image/png {len(PIXEL_PNG)} chars",
            "text: [The spec](file:///w/spec.md)",
        ]


async def test_a_kind_turned_off_is_not_advertised_and_refused_clearly() -> None:
    async with serve_in_process(WORKSPACE, plugins=["content"], env={"LANGACP_CONTENT_DISABLE": "image"}) as agent:
        init = await agent.initialize()
        caps = init.agent_capabilities.prompt_capabilities
        assert (caps.image, caps.audio) == (False, True)
        sid = await agent.new_session()
        with pytest.raises(RequestError) as refused:
            await agent.conn.prompt(session_id=sid, prompt=[text_block("look"), image_block(PIXEL_PNG, "image/png")])
        assert refused.value.code == -32602
        assert "image" in str(refused.value.data)
        assert await agent.prompt(sid, "echo still here") == "end_turn"
        assert agent.client.text(sid) == "still here"


async def test_thoughts_images_refusals_and_unknown_blocks_in_answers() -> None:
    # A subprocess: the warning about an unknown block is logged once per process.
    async with serve(WORKSPACE, plugins=["content"]) as agent:
        sid = await agent.start()
        await agent.prompt(sid, "think about it")
        assert agent.client.text(sid, "agent_thought_chunk") == "Let me think about that."
        assert agent.client.text(sid) == "about it"

        sid = await agent.new_session()
        await agent.prompt(sid, "image")
        chunks = agent.client.of(sid, "agent_message_chunk")
        assert "".join(c.content.text for c in chunks if c.content.type == "text") == "Here is a picture."
        [image] = [c.content for c in chunks if c.content.type == "image"]
        assert (image.data, image.mime_type) == (PIXEL_PNG, "image/png")

        sid = await agent.new_session()
        assert await agent.prompt(sid, "refuse") == "end_turn"
        assert agent.client.text(sid) == "I can't help with that."

        sid = await agent.new_session()
        assert await agent.prompt(sid, "hologram") == "end_turn"
        assert agent.client.text(sid) == "Look:a 3D cat"
        assert "no ACP mapping for a 'hologram' content block" in agent.stderr()


async def test_without_the_plugin_images_are_refused_and_not_shown() -> None:
    async with serve_in_process(WORKSPACE, plugins=[]) as agent:
        init = await agent.initialize()
        assert init.agent_capabilities.prompt_capabilities.image is False
        sid = await agent.new_session()
        with pytest.raises(RequestError) as refused:
            await agent.conn.prompt(session_id=sid, prompt=[image_block(PIXEL_PNG, "image/png")])
        assert refused.value.code == -32602
        await agent.prompt(sid, "image")
        assert {c.content.type for c in agent.client.of(sid, "agent_message_chunk")} == {"text"}
        assert agent.client.text(sid) == "Here is a picture."
