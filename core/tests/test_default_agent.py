"""The default agent (``langacp serve`` with no TARGET): the offline demo model and the confined file tools."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from core_support import agent_env

from langacp.client import RecordingClient, spawn_agent
from langacp.default_agent import DEFAULT_TARGET
from langacp.default_agent.demo_model import LABEL
from langacp.default_agent.fs_tools import FileTools
from langacp.default_agent.models import PROVIDERS, ModelError, Provider, check_model
from langacp.testing import harness

SECRET = "TOP SECRET OUTSIDE"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project directory, a secret next to it, and symlinks inside it that point out."""
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# Demo project\n\nSecond paragraph.\n" + "".join(f"line {i}\n" for i in range(40)))
    (root / "main.py").write_text("print('hi')  # TODO: say more\n\n# TODO second\n")
    (root / "docs" / "guide.md").write_text("Guide. TODO: write it\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\nTODO leak\n")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    return root


def _env() -> dict[str, str]:
    return agent_env(extra={"LANGACP_DEMO_DELAY": "0"})


async def _turn(agent: harness.ServedAgent, sid: str, text: str) -> tuple[str, list[Any], str]:
    """Prompt; returns (stop reason, this turn's updates, their JSON)."""
    agent.client.updates.clear()
    stop = await agent.prompt(sid, text)
    updates = agent.client.of(sid)
    dumped = "\n".join(u.model_dump_json() for u in updates)
    return stop, updates, dumped


def _tool_updates(updates: list[Any]) -> list[Any]:
    return [u for u in updates if u.session_update in ("tool_call", "tool_call_update")]


def _final_status(updates: list[Any]) -> str | None:
    statuses = [u.status for u in _tool_updates(updates) if u.status]
    return statuses[-1] if statuses else None


async def test_demo_model_streams_label_reasoning_and_calls_tools(project: Path) -> None:
    async with harness.serve_in_process(DEFAULT_TARGET, env=_env(), cwd=project, isolate=False) as agent:
        sid = await agent.start()

        stop, updates, _ = await _turn(agent, sid, "list files")
        assert stop == "end_turn"
        text = agent.client.text(sid)
        assert text.startswith(LABEL)
        assert agent.client.text(sid, "agent_thought_chunk")
        start = agent.client.of(sid, "tool_call")[0]
        assert start.title == "list_files"
        assert _final_status(updates) == "completed"
        assert "README.md" in text and "docs/" in text and "5 entries" in text

        stop, updates, _ = await _turn(agent, sid, "read README.md")
        assert _final_status(updates) == "completed"
        assert "> # Demo project" in agent.client.text(sid)

        stop, updates, _ = await _turn(agent, sid, "search for TODO")
        text = agent.client.text(sid)
        assert _final_status(updates) == "completed"
        assert "Found 3 matches for `TODO` in 2 files" in text  # the symlinked secret is not searched
        assert "main.py:1:" in text

        stop, updates, _ = await _turn(agent, sid, "make a plan for adding a login page")
        call = agent.client.of(sid, "tool_call_update")[0]
        assert [u.title for u in agent.client.of(sid, "tool_call")] == ["write_todos"]
        todos = call.raw_input["todos"]
        assert 2 <= len(todos) <= 4 and all("adding a login page" in t["content"] for t in todos)
        assert _final_status(updates) == "completed"
        assert "The plan has 3 steps" in agent.client.text(sid)


OUTSIDE_PROMPTS = [
    "read ../outside/secret.txt",
    "read {outside}/secret.txt",
    "read link.txt",
    "list files in linkdir",
    "list files in ..",
    "search for TOP in linkdir",
    "search for TOP in ..",
]


async def test_default_tools_never_read_outside_the_session(project: Path) -> None:
    async with harness.serve_in_process(DEFAULT_TARGET, env=_env(), cwd=project, isolate=False) as agent:
        sid = await agent.start()
        for prompt in OUTSIDE_PROMPTS:
            prompt = prompt.format(outside=project.parent / "outside")
            stop, updates, dumped = await _turn(agent, sid, prompt)
            assert stop == "end_turn", prompt
            assert _final_status(updates) == "failed", prompt
            assert "outside the session's directories" in dumped, prompt
            assert SECRET not in dumped and "TODO leak" not in dumped, prompt


async def test_additional_directories_are_readable(project: Path, tmp_path: Path) -> None:
    extra = tmp_path / "outside"
    async with harness.serve_in_process(DEFAULT_TARGET, env=_env(), cwd=project, isolate=False) as agent:
        await agent.initialize()
        response = await agent.conn.new_session(cwd=str(project), additional_directories=[str(extra)])
        sid = response.session_id
        stop, updates, dumped = await _turn(agent, sid, f"read {extra}/secret.txt")
        assert stop == "end_turn"
        assert _final_status(updates) == "completed"
        assert SECRET in dumped


def test_file_tools_confinement(project: Path) -> None:
    tools = FileTools(str(project))
    assert (
        tools.read_file("README.md", offset=2, limit=2)
        == "Second paragraph.\nline 0\n… (39 more lines; read again with offset=4)"
    )
    assert tools.list_files("docs") == "guide.md"
    for bad in ("../outside/secret.txt", str(project.parent / "outside" / "secret.txt"), "link.txt", "linkdir", "/"):
        with pytest.raises(Exception, match="outside the session's directories"):
            tools.resolve(bad)
    assert "No matches" in tools.search_files(SECRET)
    os.symlink(project / "main.py", project / "inside-link.py")  # a symlink that stays inside is fine
    assert "TODO" in tools.read_file("inside-link.py")
    os.mkfifo(project / "pipe")  # reading a FIFO would block the tool forever
    with pytest.raises(Exception, match="not a regular file"):
        tools.read_file("pipe")
    assert "main.py:1:" in tools.search_files("TODO")


async def test_a_runaway_search_pattern_holds_up_only_its_session(tmp_path: Path) -> None:
    """``(x+x+)+y`` backtracks without end against 34 x's: matched in the agent's process it held the GIL,
    and every other session froze. The search is cut off at ``LANGACP_SEARCH_TIMEOUT``, and a second
    session's turn ends while it still runs."""
    (tmp_path / "notes.txt").write_text("x" * 34 + "\n")
    env = {**_env(), "LANGACP_SEARCH_TIMEOUT": "15"}
    async with harness.serve(DEFAULT_TARGET, env=env, cwd=tmp_path, isolate=False) as agent:
        first = await agent.start()
        second = await agent.new_session()
        finished: list[str] = []

        async def turn(sid: str, text: str) -> str:
            stop = await agent.prompt(sid, text)
            finished.append(sid)
            return stop

        searching = asyncio.ensure_future(turn(first, "search for (x+x+)+y"))
        await agent.client.wait_for(
            lambda updates: any(sid == first and getattr(u, "status", None) == "in_progress" for sid, u in updates)
        )
        assert await turn(second, "hello") == "end_turn"
        assert await searching == "end_turn"
        assert finished == [second, first]
        dumped = "\n".join(u.model_dump_json() for u in agent.client.of(first))
        assert "the search took longer than 15 s; narrow the pattern or the path" in dumped
        assert _final_status(agent.client.of(first)) == "failed"


async def test_serve_without_target_is_the_default_agent_and_streams(project: Path) -> None:
    command = [sys.executable, "-m", "langacp.cli", "serve"]
    client = RecordingClient()
    env = {**_env(), "LANGACP_DEMO_DELAY": "0.02"}  # the default pace, so streaming shows
    async with spawn_agent(command, client, env=env) as (conn, _process):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(project))).session_id
        from acp import text_block

        response = await conn.prompt(session_id=sid, prompt=[text_block("hello")])
        assert response.stop_reason == "end_turn"
        assert client.text(sid).startswith(LABEL)
        assert client.text(sid, "agent_thought_chunk")
        assert len(client.of(sid, "agent_message_chunk")) > 10  # streamed in small pieces


def test_help_labels_the_offline_demo_model() -> None:
    for command in ("serve", "chat"):
        out = subprocess.run(
            [sys.executable, "-m", "langacp.cli", command, "--help"], capture_output=True, text=True, check=True
        ).stdout
        assert "OFFLINE DEMO MODEL" in out


def test_missing_provider_package_is_a_clear_message() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "serve", "--model", "groq:llama-3.3-70b"],
        capture_output=True,
        text=True,
        env=_env(),
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert result.returncode == 2
    assert "needs the langchain-groq package: pip install langchain-groq" in result.stderr
    assert "langacp[groq]" in result.stderr or "./core[groq]" in result.stderr  # a clone names its directory


def test_missing_api_key_is_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PROVIDERS, "fakeprov", Provider("json", "fake-pkg", None, ("FAKEPROV_API_KEY",)))
    monkeypatch.delenv("FAKEPROV_API_KEY", raising=False)
    with pytest.raises(ModelError, match="needs an API key: set FAKEPROV_API_KEY"):
        check_model("fakeprov:model-1")
    monkeypatch.setenv("FAKEPROV_API_KEY", "k")
    check_model("fakeprov:model-1")


def test_start_up_asks_init_chat_model_about_a_provider_langacp_has_no_table_for() -> None:
    """Known to ``init_chat_model`` (its package missing: the session reports that) passes; unknown is
    refused, with the providers ``init_chat_model`` itself names."""
    from langacp import startup

    assert "together" not in PROVIDERS
    assert startup.check_model("together:some-model") == []
    [problem] = startup.check_model("nosuchprovider:some-model")
    assert "unknown provider 'nosuchprovider'" in problem.what
    assert "together" in problem.fix.split(", ")  # the whole list, not its first 12


def test_demo_model_answers_are_deterministic_and_labelled() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from langacp.default_agent.demo_model import demo_reply

    count = demo_reply([HumanMessage("count to 5")])
    assert count.text == f"{LABEL}\n\n1 2 3 4 5\n" and count.reasoning and not count.tool_calls
    unknown = demo_reply([HumanMessage("what is the meaning of life?")])
    assert unknown.text.startswith(LABEL) and "read README.md" in unknown.text
    assert demo_reply([HumanMessage("read docs/a.md.")]).tool_calls[0].args == {"path": "docs/a.md"}
    assert demo_reply([HumanMessage("list files in ..")]).tool_calls[0].args == {"path": ".."}
    search = demo_reply([HumanMessage('search for "def main" in src')])
    assert search.tool_calls[0].args == {"pattern": "def main", "path": "src"}
    failed = demo_reply(
        [
            HumanMessage("read nope.txt"),
            AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": "nope.txt"}, "id": "c1"}]),
            ToolMessage("nope.txt does not exist", tool_call_id="c1", name="read_file", status="error"),
        ]
    )
    assert failed.text == "read_file failed: nope.txt does not exist" and not failed.tool_calls
    assert demo_reply([HumanMessage("list files")]) == demo_reply([HumanMessage("list files")])


def test_demo_model_writes_and_runs_only_when_the_agent_has_those_tools() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage

    from langacp.default_agent.demo_model import demo_reply

    able = SystemMessage("… write_file … edit_file … run_command …")
    write = demo_reply([able, HumanMessage("write 'hello world' to notes.txt.")])
    assert [(c.name, c.args) for c in write.tool_calls] == [
        ("write_file", {"path": "notes.txt", "content": "hello world\n"})
    ]
    edit = demo_reply([able, HumanMessage("replace hello with bye in notes.txt")])
    assert edit.tool_calls[0].args == {"path": "notes.txt", "old_string": "hello", "new_string": "bye"}
    assert demo_reply([able, HumanMessage("Run ls -la.")]).tool_calls[0].args == {"command": "ls -la"}
    assert demo_reply([able, HumanMessage("write a plan for x")]).tool_calls[0].name == "write_todos"
    assert "`run ls -la`" in demo_reply([able, HumanMessage("help")]).text
    read_only = demo_reply([SystemMessage("read-only"), HumanMessage("run ls")])
    # the install command: the package, or (run from a clone of langacp) the clone's directory
    assert not read_only.tool_calls
    assert re.search(r"pip install (langacp-client-tools|-e \S*plugins/client-tools)\b", read_only.text)
    assert "`run ls -la`" not in demo_reply([HumanMessage("help")]).text


def test_plugin_tools_and_todo_middleware_are_not_duplicated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain.agents.middleware import TodoListMiddleware
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    from langacp.default_agent.agent import agent
    from langacp.target import SessionSetup
    from langacp.types import SessionContext

    @tool
    def read_file(path: str) -> str:
        """A plugin's read_file (say, through the editor's buffers)."""
        return "from the plugin"

    monkeypatch.delenv("LANGACP_MODEL", raising=False)
    session = SessionContext(session_id="s", cwd=str(tmp_path))
    setup = SessionSetup(session, InMemorySaver(), middleware=[TodoListMiddleware()], tools=[read_file])
    graph = agent(setup)
    tools = graph.nodes["tools"].bound.tools_by_name
    assert set(tools) == {"list_files", "read_file", "search_files", "write_todos"}
    assert tools["read_file"] is read_file
