"""HumanInTheLoopMiddleware's edit and respond decisions, for a client that shows forms (ACP elicitation).

Approve and reject stay in the permission request; rejecting there offers a form to run the call with
edited arguments or to answer for the tool, when the action allows it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from permissions_support import served

from langacp.testing.forms import FormClient


def _prompt(path: Path, text: str = "hello") -> str:
    return "tool write_file " + json.dumps({"path": str(path), "text": text})


async def test_reject_then_edit_runs_the_tool_with_the_users_arguments(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    seen: list[dict[str, Any]] = []

    def form(message: str, schema: dict[str, Any]) -> dict[str, Any]:
        seen.append(schema)
        return {"decision": "edit", "arg_text": "edited by the user"}

    client = FormClient(answer="reject_once", answer_form=form)
    async with served(tmp_path, "hitl_agent", client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(out)) == "end_turn"
    assert out.read_text() == "edited by the user\n"
    [request] = client.permission_requests  # approve / reject stay a permission request
    assert [o.kind for o in request.options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    [question] = client.questions
    assert question.message.startswith("You rejected write_file.")
    [schema] = seen
    choices = [c["const"] for c in schema["properties"]["decision"]["oneOf"]]
    assert choices == ["reject", "edit", "respond"]
    assert schema["properties"]["arg_text"]["default"] == "hello"  # prefilled with the model's arguments
    assert schema["properties"]["arg_path"]["default"] == str(out)


async def test_reject_then_respond_answers_the_model_and_the_tool_never_runs(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    client = FormClient(
        answer="reject_once", answer_form=lambda message, schema: {"decision": "respond", "message": "use notes.md"}
    )
    async with served(tmp_path, "hitl_agent", client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(out)) == "end_turn"
        assert "use notes.md" in agent.client.text(sid)
    assert not out.exists()


async def test_approve_runs_it_without_a_form(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    client = FormClient(answer="allow_once", answer_form=lambda message, schema: {"decision": "edit"})
    async with served(tmp_path, "hitl_agent", client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(out)) == "end_turn"
    assert out.read_text() == "hello\n" and client.questions == []


async def test_only_approve_and_reject_allowed_no_form(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    client = FormClient(answer="reject_once", answer_form=lambda message, schema: {"decision": "edit"})
    async with served(tmp_path, "approve_reject_agent", client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(out)) == "end_turn"
        assert "the user declined it" in agent.client.text(sid)
    assert not out.exists() and client.questions == []


async def test_a_declined_form_is_a_plain_rejection(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    client = FormClient(answer="reject_once")  # declines every form
    async with served(tmp_path, "hitl_agent", client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _prompt(out)) == "end_turn"
        assert "the user declined it" in agent.client.text(sid)
    assert not out.exists() and len(client.questions) == 1
