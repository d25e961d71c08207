"""An MCP server asking the user (FastMCP ``ctx.elicit``, MCP ``elicitation/create``) reaches the editor as an
ACP form and gets the answer back; declined when the client cannot be asked or answers out of the form."""

from __future__ import annotations

from typing import Any

from mcp_support import last_tool_call, stdio_server, texts

from langacp.client import RecordingClient
from langacp.testing.forms import FormClient


async def _ask(serve_mcp: Any, client: RecordingClient, prompt: str) -> list[str]:
    async with serve_mcp(subprocess=True, client=client) as agent:
        await agent.initialize()
        servers = [stdio_server("s")]
        sid = (await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
        assert await agent.prompt(sid, prompt) == "end_turn"
        return texts(last_tool_call(agent.client, sid)[2])


async def test_a_servers_question_is_an_editor_form_answered_back(serve_mcp: Any) -> None:
    client = FormClient(answer_form=lambda message, schema: {"color": "teal", "shade": 3})
    assert await _ask(serve_mcp, client, "tool s__ask_color {}") == ["accept teal 3"]
    [question] = client.questions
    assert question.message == "s: Which color?" and question.mode == "form"
    assert question.schema is not None and set(question.schema["properties"]) == {"color", "shade"}


async def test_declined_when_the_client_cannot_be_asked(serve_mcp: Any) -> None:
    assert await _ask(serve_mcp, RecordingClient(), "tool s__ask_color {}") == ["decline"]


async def test_an_answer_out_of_the_form_is_not_passed_to_the_server(serve_mcp: Any) -> None:
    client = FormClient(answer_form=lambda message, schema: {"color": 5, "admin": True})
    assert await _ask(serve_mcp, client, "tool s__ask_color {}") == ["decline"]
    assert len(client.questions) == 1


async def test_url_mode_only_for_https(serve_mcp: Any) -> None:
    client = FormClient(answer_form=lambda message, schema: {}, url=True)
    assert await _ask(serve_mcp, client, 'tool s__ask_login {"url": "http://example.com/login"}') == ["decline"]
    assert client.questions == []  # never shown
    assert await _ask(serve_mcp, client, 'tool s__ask_login {"url": "https://example.com/login"}') == ["accept"]
    assert [(q.mode, q.url) for q in client.questions] == [("url", "https://example.com/login")]
