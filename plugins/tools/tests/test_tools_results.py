"""Result content and the old-text capture, called directly (the served tests drive them end to end)."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage, ToolMessage

from langacp.types import SessionContext, ToolCallInfo
from langacp_tools import plugin
from langacp_tools.diffs import MAX_BYTES, capture_before, state
from langacp_tools.middleware import DiffCapture
from langacp_tools.results import content_blocks, result_content


def _session(tmp_path: Path) -> SessionContext:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return SessionContext(session_id="s", cwd=str(work))


def test_text_images_links_and_unknown_blocks() -> None:
    message = ToolMessage(
        content=[
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b"},
            {"type": "image", "url": "data:image/gif;base64,R0lG"},
            {"type": "file", "url": "https://x.test/y.pdf"},
            {"type": "weird"},
        ],
        tool_call_id="1",
    )
    shown = [c.content for c in content_blocks(message)]
    assert [b.type for b in shown] == ["text", "image", "resource_link", "text"]
    assert shown[0].text == "ab"
    assert (shown[1].data, shown[1].mime_type) == ("R0lG", "image/gif")
    assert (shown[2].uri, shown[2].name) == ("https://x.test/y.pdf", "y.pdf")
    assert "weird" in shown[3].text


def test_the_diff_compares_the_captured_text_with_the_file_after(tmp_path: Path) -> None:
    session = _session(tmp_path)
    target = Path(session.cwd) / "f.txt"
    target.write_text("before\n")
    call = ToolCallInfo("c1", "write_file", {"path": "f.txt", "content": "after\n"})
    assert capture_before(call, session) == (str(target), "before\n")
    target.write_text("after\n")
    [diff] = result_content(call, "edit", ToolMessage(content="ok", tool_call_id="c1"), session)
    assert (diff.type, diff.old_text, diff.new_text) == ("diff", "before\n", "after\n")
    # the capture is used once
    [text] = result_content(call, "edit", ToolMessage(content="ok", tool_call_id="c1"), session)
    assert text.content.text == "ok"


def test_no_diff_for_failed_calls_binary_large_or_outside_files(tmp_path: Path) -> None:
    session = _session(tmp_path)
    work = Path(session.cwd)
    (work / "f.txt").write_text("x")
    call = ToolCallInfo("c1", "write_file", {"path": "f.txt", "content": "y"})
    capture_before(call, session)
    (work / "f.txt").write_text("y")
    failed = ToolMessage(content="Error: nope", tool_call_id="c1", status="error")
    assert [c.type for c in result_content(call, "edit", failed, session)] == ["content"]

    (work / "bin").write_bytes(b"\xff\xfe\x00")
    assert capture_before(ToolCallInfo("c2", "write_file", {"path": "bin", "content": ""}), session) is None
    (work / "big").write_text("x" * (MAX_BYTES + 1))
    assert capture_before(ToolCallInfo("c3", "write_file", {"path": "big", "content": ""}), session) is None
    (tmp_path / "outside.txt").write_text("secret")
    outside = ToolCallInfo("c4", "write_file", {"path": "../outside.txt", "content": ""})
    assert capture_before(outside, session) is None
    (work / "link").symlink_to(tmp_path / "outside.txt")
    assert capture_before(ToolCallInfo("c5", "write_file", {"path": "link", "content": ""}), session) is None


def test_a_terminal_id_wins_over_text() -> None:
    session = SessionContext(session_id="s", cwd="/")
    call = ToolCallInfo("c1", "run_command", {"command": "make"})
    message = ToolMessage(content="building…", tool_call_id="c1", artifact={"terminal_id": "term-1"})
    [ref] = result_content(call, "execute", message, session)
    assert (ref.type, ref.terminal_id) == ("terminal", "term-1")
    by_kwargs = ToolMessage(content="x", tool_call_id="c1", additional_kwargs={"terminalId": "term-2"})
    assert result_content(call, "execute", by_kwargs, session)[0].terminal_id == "term-2"


def test_a_diff_the_tool_reports_wins_over_the_disk(tmp_path: Path) -> None:
    """An editor's unsaved buffer was edited: the tool knows the real old text, the disk does not."""
    (tmp_path / "a.py").write_text("on disk\n")
    session = SessionContext(session_id="s", cwd=str(tmp_path))
    call = ToolCallInfo("c1", "edit_file", {"path": "a.py", "old_string": "x", "new_string": "y"})
    capture_before(call, session)
    reported = {"diff": {"path": str(tmp_path / "a.py"), "old_text": "buffer x\n", "new_text": "buffer y\n"}}
    message = ToolMessage(content="Edited a.py", tool_call_id="c1", artifact=reported)
    [diff] = result_content(call, "edit", message, session)
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == (
        "diff",
        str(tmp_path / "a.py"),
        "buffer x\n",
        "buffer y\n",
    )
    created = ToolMessage(content="ok", tool_call_id="c2", artifact={"diff": {"path": "/p/n.txt", "new_text": "n\n"}})
    [new_file] = result_content(ToolCallInfo("c2", "write_file", {}), "edit", created, session)
    assert (new_file.old_text, new_file.new_text) == (None, "n\n")
    malformed = ToolMessage(content="ok", tool_call_id="c3", artifact={"diff": {"path": 3, "new_text": "n"}})
    assert [c.type for c in result_content(ToolCallInfo("c3", "write_file", {}), "edit", malformed, session)] == [
        "content"
    ]
    failed = ToolMessage(content="Error", tool_call_id="c4", status="error", artifact=reported)
    assert [c.type for c in result_content(ToolCallInfo("c4", "edit_file", {}), "edit", failed, session)] == ["content"]


async def test_the_result_diff_compares_the_file_before_and_right_after_the_run(tmp_path: Path) -> None:
    """langacp_tool_starting reads the file right before the run, langacp_tool_finished right after it
    (both in a worker thread); the result content then reads nothing: a file removed since is not seen."""
    session = _session(tmp_path)
    target = Path(session.cwd) / "f.txt"
    target.write_text("before\n")
    call = ToolCallInfo("c1", "write_file", {"path": "f.txt", "content": "after\n"})
    starting = plugin.langacp_tool_starting(call, session)
    assert starting is not None
    await starting
    target.write_text("after\n")  # the tool ran
    result = ToolMessage(content="ok", tool_call_id="c1")
    finished = plugin.langacp_tool_finished(call, result, session)
    assert finished is not None
    await finished
    target.unlink()  # gone by the time the result is shown
    [diff] = plugin.langacp_tool_result_content(call, result, session) or []
    assert (diff.type, diff.old_text, diff.new_text) == ("diff", "before\n", "after\n")


def test_a_call_that_is_not_an_edit_reads_nothing_when_it_finished(tmp_path: Path) -> None:
    session = _session(tmp_path)
    call = ToolCallInfo("c1", "read_file", {"path": "f.txt"})
    assert plugin.langacp_tool_finished(call, ToolMessage(content="x", tool_call_id="c1"), session) is None


async def test_the_capture_asks_the_kind_only_of_calls_that_name_a_file(tmp_path: Path) -> None:
    session = _session(tmp_path)
    (Path(session.cwd) / "f.txt").write_text("before\n")
    asked: list[str] = []

    class EveryCallEdits:
        def tool_kind(self, call: ToolCallInfo, _session: SessionContext) -> str:
            asked.append(call.name)
            return "edit"

    session.plugins = EveryCallEdits()
    answer = AIMessage(
        content="",
        tool_calls=[
            {"id": "c1", "name": "add", "args": {"a": 1, "b": 2}},
            {"id": "c2", "name": "write_file", "args": {"path": "f.txt", "content": "x"}},
        ],
    )

    async def model(_request: object) -> AIMessage:
        return answer

    assert await DiffCapture(session).awrap_model_call(None, model) is answer  # type: ignore[arg-type]
    assert asked == ["write_file"]
    assert state(session).before == {"c2": (str(Path(session.cwd) / "f.txt"), "before\n")}
    # what the kind would not have changed: an edit naming no file has nothing to capture
    assert capture_before(ToolCallInfo("c1", "add", {"a": 1, "b": 2}), session) is None


def test_the_turns_tables_are_made_on_use_and_dropped_when_the_turn_ends() -> None:
    """An idle session holds none of them; nothing of a turn cut short reaches the next."""
    from langacp_tools.diffs import ToolsState

    mine = ToolsState(roots=["/w"], pins={"x": "read"})
    mine.before["c1"] = ("/w/f", "old")
    mine.after["c1"] = "new"
    mine.tried.add("c1")
    mine.directories.add("/w/d")
    mine.end_turn()
    assert (mine.before, mine.after, mine.tried, mine.directories) == ({}, {}, set(), set())
    assert (mine.roots, mine.pins) == (["/w"], {"x": "read"})  # the session's, kept
    assert not hasattr(mine, "__dict__")
