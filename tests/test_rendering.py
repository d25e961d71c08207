"""One scenario served twice over real pipes: the core alone, then with langacp-tools and langacp-content.

What a client receives is compared: with the core alone every tool call is kind ``other``,
titled by its name, with text results and no images; with both plugins the same turns carry
kinds, titles, locations, diffs, images, and image prompts are accepted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, image_block, text_block

from langacp.testing.harness import serve
from langacp.testing.workspace import PIXEL_PNG

TARGET = "langacp.testing.workspace:agent"
README = "# Demo\n"
SOURCE = "a = 1\nb = 2\n"

STEPS = [
    ("read", 'tool read_file {"path": "README.md", "offset": 0}'),
    ("edit", 'tool edit_file {"path": "core/x.py", "old_string": "b = 2", "new_string": "b = 3"}'),
    ("run", 'tool run_command {"command": "echo hi"}'),
    ("shot", "tool screenshot {}"),
    ("search", 'tool search_files {"pattern": "b = 3", "path": "core"}'),
]


def _calls(updates: list[Any]) -> dict[str, dict[str, Any]]:
    """Per tool call: the fields as the client last saw them, and every content it was sent."""
    calls: dict[str, dict[str, Any]] = {}
    for update in updates:
        if update.session_update in ("tool_call", "tool_call_update"):
            seen = calls.setdefault(update.tool_call_id, {"contents": []})
            for field in ("title", "kind", "locations", "status"):
                if getattr(update, field, None) is not None:
                    seen[field] = getattr(update, field)
            if update.content:
                seen["contents"].append([c.model_dump(by_alias=True, exclude_none=True) for c in update.content])
    return calls


async def _scenario(workdir: Path, plugins: list[str]) -> dict[str, Any]:
    (workdir / "README.md").write_text(README)
    (workdir / "core").mkdir()
    (workdir / "core" / "x.py").write_text(SOURCE)
    seen: dict[str, Any] = {}
    async with serve(TARGET, plugins=plugins, cwd=workdir) as agent:
        init = await agent.initialize()
        seen["image_capability"] = init.agent_capabilities.prompt_capabilities.image
        for step, prompt in [("think", "think it over"), ("image", "image"), *STEPS]:
            sid = await agent.new_session()
            assert await agent.prompt(sid, prompt) == "end_turn"
            updates = agent.client.of(sid)
            [call] = _calls(updates).values() or [None]
            messages = [u.content for u in updates if u.session_update == "agent_message_chunk"]
            seen[step] = {
                "call": call,
                "thought": agent.client.text(sid, "agent_thought_chunk"),
                "message_types": sorted({m.type for m in messages}),
            }
        sid = await agent.new_session()
        try:
            await agent.conn.prompt(session_id=sid, prompt=[text_block("blocks"), image_block(PIXEL_PNG, "image/png")])
            seen["image_prompt"] = agent.client.text(sid)
        except RequestError as exc:
            seen["image_prompt"] = exc.code
    return seen


@pytest.fixture
async def both(tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    (tmp_path / "core-only").mkdir()
    (tmp_path / "plugins").mkdir()
    return (
        await _scenario(tmp_path / "core-only", []),
        await _scenario(tmp_path / "plugins", ["tools", "content"]),
    )


async def test_the_same_scenario_core_alone_and_with_both_plugins(
    both: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    core, full = both
    root = tmp_path / "plugins"

    # The core alone: a correct minimal agent. Kind other, the tool's name, text only.
    for step, prompt in STEPS:
        call = core[step]["call"]
        assert call["kind"] == "other"
        assert call["title"] == prompt.split()[1]  # the tool's name
        assert "locations" not in call
        assert all(c["type"] == "content" and c["content"]["type"] == "text" for cs in call["contents"] for c in cs)
    assert core["think"]["thought"] == "Let me think about that."
    assert core["image"]["message_types"] == ["text"]
    assert core["image_capability"] is False
    assert core["image_prompt"] == -32602

    # With langacp-tools and langacp-content.
    kinds_titles = {step: (full[step]["call"]["kind"], full[step]["call"]["title"]) for step, _ in STEPS}
    assert kinds_titles == {
        "read": ("read", "Read README.md"),
        "edit": ("edit", "Edit core/x.py"),
        "run": ("execute", "Run `echo hi`"),
        "shot": ("other", "screenshot"),
        "search": ("search", "Search for b = 3 in core/"),
    }
    read_location = full["read"]["call"]["locations"][0]
    assert (read_location.path, read_location.line) == (str(root / "README.md"), 0)
    assert [loc.path for loc in full["edit"]["call"]["locations"]] == [str(root / "core" / "x.py")]
    proposed, result = full["edit"]["call"]["contents"]
    expected = {"type": "diff", "path": str(root / "core" / "x.py"), "oldText": SOURCE, "newText": "a = 1\nb = 3\n"}
    assert proposed == [expected]
    assert result == [expected]
    shot_text, shot_image = full["shot"]["call"]["contents"][-1]
    assert shot_text["content"]["text"] == "the screen:"
    assert shot_image["content"] == {"type": "image", "data": PIXEL_PNG, "mimeType": "image/png"}
    assert full["think"]["thought"] == "Let me think about that."
    assert full["image"]["message_types"] == ["image", "text"]
    assert full["image_capability"] is True
    assert full["image_prompt"] == f"image image/png {len(PIXEL_PNG)} chars"

    # The edit really happened in both runs: rendering changed, behaviour did not.
    assert (tmp_path / "core-only" / "core" / "x.py").read_text() == (root / "core" / "x.py").read_text()


def _chat(prompt: str, cwd: Path, plugins: list[str], *args: str, version: int = 2, target: str = TARGET) -> str:
    """``langacp chat --prompt PROMPT ARGS -- langacp serve TARGET -p PLUGIN…`` as processes, the chat
    asking for ACP ``version``: what it printed."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
    env.update(LANGACP_DISABLE_PLUGIN_AUTOLOAD="1", XDG_DATA_HOME=str(cwd / ".data"), TERM="dumb")
    env.update(LANGACP_CHAT_PROTOCOL=str(version))
    env.update(XDG_CONFIG_HOME=str(cwd / ".config"))
    serve = [sys.executable, "-m", "langacp.cli", "serve", target, *(a for p in plugins for a in ("-p", p))]
    result = subprocess.run(
        [sys.executable, "-m", "langacp.cli", "chat", "--prompt", prompt, *args, "--", *serve],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("version", [1, 2])
def test_chat_shows_a_write_s_diff_once_with_clean_paths(tmp_path: Path, version: int) -> None:
    """A write asks (langacp-permissions) with its diff (langacp-tools): pending, question, progress and
    result all carry it; the chat shows it once, its paths as git prints them. Over ACP v2 the diff
    travels as a git patch: the chat shows it as its own diff all the same."""
    (tmp_path / "notes.txt").write_text("old line\n")
    prompt = 'tool write_file {"path": "notes.txt", "content": "new line\\n"}'
    shown = _chat(prompt, tmp_path, ["tools", "permissions"], "--yes", "--verbose", version=version)
    assert f"· ACP v{version}" in shown, shown
    path = str(tmp_path / "notes.txt")
    assert "Allow Write notes.txt (edit)?" in shown, shown
    assert shown.count("+new line") == 1, shown
    assert shown.count("-old line") == 1, shown
    assert f"--- a{path}" in shown and f"+++ b{path}" in shown, shown
    assert "//" not in shown.replace("://", ""), shown
    assert (tmp_path / "notes.txt").read_text() == "new line\n"


def test_chat_shows_a_command_the_same_in_both_versions(tmp_path: Path) -> None:
    """langacp-client-tools runs the command itself (the chat serves no terminal): over ACP v2 the
    agent shows its output live as a terminal, which the chat leaves to the tool's result, as over v1."""
    prompt = 'tool run_command {"command": "printf \'l1\\nl2\\nl3\\nl4\\nl5\\n\'"}'
    plugins = ["client-tools", "permissions"]
    agent = "langacp.testing.agent:agent"  # no tools of its own: client-tools' run_command runs
    shown = {v: _chat(prompt, tmp_path, plugins, "--yes", version=v, target=agent) for v in (1, 2)}
    assert shown[2] == shown[1]
    assert shown[1].count("│ l1") == 1 and "… 2 more lines" in shown[1] and "[exit 0]" not in shown[1], shown[1]
