"""langacp-tools served: what a client sees of each tool call of the workspace agent (in process)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from acp.schema import ContentToolCallContent, FileEditToolCallContent, ToolCallUpdate

from langacp.client import PermissionRequest, RecordingClient
from langacp.testing.calls import only_call
from langacp.testing.harness import serve_in_process
from langacp.testing.workspace import PIXEL_PNG

WORKSPACE = "langacp.testing.workspace:agent"


async def _run(prompt: str, workdir: Path, client: RecordingClient | None = None) -> dict[str, object]:
    async with serve_in_process(WORKSPACE, plugins=["tools"], cwd=workdir, client=client) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, prompt) == "end_turn"
        return only_call(agent.client.of(sid))


def _tool(name: str, **args: object) -> str:
    return f"tool {name} {json.dumps(args)}"


async def test_read_file(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    call = await _run(_tool("read_file", path="README.md", offset=0), tmp_path)
    assert call["kind"] == "read"
    assert call["title"] == "Read README.md"
    assert [(loc.path, loc.line) for loc in call["locations"]] == [(str(tmp_path / "README.md"), 0)]
    assert call["statuses"][-1] == "completed"
    [result] = call["contents"][-1]
    assert isinstance(result, ContentToolCallContent) and result.content.text == "hello"


async def test_search_and_list_and_run(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("# TODO: x\n")
    search = await _run(_tool("search_files", pattern="TODO", path="src"), tmp_path)
    assert (search["kind"], search["title"]) == ("search", "Search for TODO in src/")
    listing = await _run(_tool("list_files", path="src"), tmp_path)
    assert (listing["kind"], listing["title"]) == ("read", "List src/")
    run = await _run(_tool("run_command", command="echo hi"), tmp_path)
    assert (run["kind"], run["title"]) == ("execute", "Run `echo hi`")
    assert run["contents"][-1][0].content.text == "hi\n"


async def test_write_file_shows_the_new_file_as_a_diff(tmp_path: Path) -> None:
    call = await _run(_tool("write_file", path="notes/new.txt", content="fresh\n"), tmp_path)
    assert (call["kind"], call["title"]) == ("edit", "Write notes/new.txt")
    proposed, result = call["contents"]
    for content in (proposed, result):
        [diff] = content
        assert isinstance(diff, FileEditToolCallContent)
        assert (diff.path, diff.old_text, diff.new_text) == (str(tmp_path / "notes/new.txt"), None, "fresh\n")
    assert (tmp_path / "notes/new.txt").read_text() == "fresh\n"


async def test_edit_file_diff_has_old_text_from_before_the_tool_ran(tmp_path: Path) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "core/x.py").write_text("a = 1\nb = 2\n")
    call = await _run(_tool("edit_file", path="core/x.py", old_string="b = 2", new_string="b = 3"), tmp_path)
    assert call["title"] == "Edit core/x.py"
    [[proposed], [result]] = call["contents"]
    assert (proposed.old_text, proposed.new_text) == ("a = 1\nb = 2\n", "a = 1\nb = 3\n")
    assert (result.old_text, result.new_text) == ("a = 1\nb = 2\n", "a = 1\nb = 3\n")


def _ask(tmp_path: Path) -> dict[str, str]:
    """The environment of a plugin ``askplug`` whose policy asks about every edit."""
    site = tmp_path / "site"
    (site / "askplug-0.1.dist-info").mkdir(parents=True)
    (site / "askplug-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: askplug\nVersion: 0.1\n")
    (site / "askplug-0.1.dist-info" / "entry_points.txt").write_text("[langacp]\naskplug = ask_plugin\n")
    (site / "ask_plugin.py").write_text(
        "from langacp import hookimpl\n\n@hookimpl\ndef langacp_permission(call, kind, session):\n"
        "    return 'ask' if kind == 'edit' else None\n"
    )
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


async def test_the_permission_request_carries_the_proposed_diff(tmp_path: Path) -> None:
    """With a policy that asks about edits, the request shows the diff to approve."""
    (tmp_path / "f.txt").write_text("old\n")
    seen: list[ToolCallUpdate] = []

    def answer(request: PermissionRequest) -> str:
        seen.append(request.tool_call)
        return "reject_once"

    async with serve_in_process(
        WORKSPACE, plugins=["tools", "askplug"], cwd=tmp_path, client=RecordingClient(answer=answer), env=_ask(tmp_path)
    ) as agent:
        sid = await agent.start()
        await agent.prompt(sid, _tool("write_file", path="f.txt", content="new\n"))
    [request] = seen
    assert (request.kind, request.title) == ("edit", "Write f.txt")
    [diff] = request.content or []
    assert isinstance(diff, FileEditToolCallContent)
    assert (diff.old_text, diff.new_text) == ("old\n", "new\n")
    assert (tmp_path / "f.txt").read_text() == "old\n"  # rejected: not written


async def test_the_result_diff_starts_from_the_file_as_it_was_when_the_tool_ran(tmp_path: Path) -> None:
    """The file changed while the user was asked (after the proposal): the result's diff shows the
    text the tool really changed, read again right before it ran; the request showed the earlier one."""
    target = tmp_path / "f.txt"
    target.write_text("old\n")

    def answer(request: PermissionRequest) -> str:
        target.write_text("changed meanwhile\n")
        return "allow_once"

    async with serve_in_process(
        WORKSPACE, plugins=["tools", "askplug"], cwd=tmp_path, client=RecordingClient(answer=answer), env=_ask(tmp_path)
    ) as agent:
        sid = await agent.start()
        assert await agent.prompt(sid, _tool("write_file", path="f.txt", content="new\n")) == "end_turn"
        call = only_call(agent.client.of(sid))
    [[proposed], [result]] = call["contents"]
    assert (proposed.old_text, proposed.new_text) == ("old\n", "new\n")
    assert (result.old_text, result.new_text) == ("changed meanwhile\n", "new\n")
    assert target.read_text() == "new\n"


async def test_no_diff_for_a_file_outside_the_session(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (tmp_path / "secret.txt").write_text("do not show\n")
    call = await _run(_tool("write_file", path="../secret.txt", content="x"), workdir)
    assert call["statuses"][-1] == "failed"
    shown = json.dumps([[c.model_dump() for c in content] for content in call["contents"]])
    assert "do not show" not in shown
    assert (tmp_path / "secret.txt").read_text() == "do not show\n"


async def test_images_and_terminals_in_results(tmp_path: Path) -> None:
    shot = await _run(_tool("screenshot"), tmp_path)
    text, image = shot["contents"][-1]
    assert text.content.text == "the screen:"
    assert (image.content.type, image.content.data, image.content.mime_type) == ("image", PIXEL_PNG, "image/png")
    terminal = await _run(_tool("show_terminal", terminal_id="term-7"), tmp_path)
    [ref] = terminal["contents"][-1]
    assert (ref.type, ref.terminal_id) == ("terminal", "term-7")


async def test_project_config_pins_a_kind_only_to_a_riskier_one(tmp_path: Path) -> None:
    (tmp_path / ".langacp.toml").write_text('[tools.kinds]\nscreenshot = "execute"\n')
    assert (await _run(_tool("screenshot"), tmp_path))["kind"] == "execute"
    (tmp_path / ".langacp.toml").write_text('[tools.kinds]\nscreenshot = "read"\n')  # less risky than other
    assert (await _run(_tool("screenshot"), tmp_path))["kind"] == "other"


async def test_without_the_plugin_the_core_defaults_show(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    async with serve_in_process(WORKSPACE, plugins=[], cwd=tmp_path) as agent:
        sid = await agent.start()
        await agent.prompt(sid, _tool("read_file", path="README.md"))
        call = only_call(agent.client.of(sid))
    assert (call["kind"], call["title"]) == ("other", "read_file")
    assert "locations" not in call


async def test_diff_without_middleware_uses_the_text_read_when_the_arguments_were_known(tmp_path: Path) -> None:
    """A factory that drops ``setup.middleware`` (or a precompiled graph) still gets the result diff."""
    (tmp_path / "f.txt").write_text("old\n")
    async with serve_in_process("langacp.testing.workspace:unguarded_agent", plugins=["tools"], cwd=tmp_path) as agent:
        sid = await agent.start()
        await agent.prompt(sid, _tool("write_file", path="f.txt", content="new\n"))
        call = only_call(agent.client.of(sid))
    [result] = call["contents"][-1]
    assert (result.type, result.old_text, result.new_text) == ("diff", "old\n", "new\n")
