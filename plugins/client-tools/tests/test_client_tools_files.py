"""read_file, write_file and edit_file over real pipes: through an editor that does fs, and locally."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from client_tools_support import editor, run_tool, served

from langacp.testing.calls import result_text

CLIENTS = ["editor", "bare"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 1\n\n\nprint(main())\n")
    (root / "notes.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    return root


async def test_read_through_the_editor_sees_unsaved_buffers(project: Path) -> None:
    app = str(project / "src" / "app.py")
    client = editor("editor", buffers={app: "def main():\n    return 2  # unsaved\n"})
    async with served(project, client) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "read_file", path="src/app.py")
        assert call["statuses"][-1] == "completed"
        assert result_text(call) == "def main():\n    return 2  # unsaved"
        window = await run_tool(agent, sid, "read_file", path="notes.txt", line=3, limit=2)
        assert result_text(window) == "line 3\nline 4\n… (more lines follow; read again with line=5)"
        tail = await run_tool(agent, sid, "read_file", path="notes.txt", line=9, limit=5)
        assert result_text(tail) == "line 9\nline 10"
    # Absolute paths, the window asked for (one more line than wanted, to know whether more follow).
    assert client.calls == [
        ("fs/read_text_file", {"path": app, "line": 1, "limit": 2001}),
        ("fs/read_text_file", {"path": str(project / "notes.txt"), "line": 3, "limit": 3}),
        ("fs/read_text_file", {"path": str(project / "notes.txt"), "line": 9, "limit": 6}),
    ]


async def test_read_without_the_editor_reads_the_disk(project: Path) -> None:
    client = editor("bare", buffers={str(project / "src" / "app.py"): "never read"})
    async with served(project, client) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "read_file", path="src/app.py")
        assert result_text(call) == "def main():\n    return 1\n\n\nprint(main())"
        window = await run_tool(agent, sid, "read_file", path="notes.txt", line=3, limit=2)
        assert result_text(window) == "line 3\nline 4\n… (6 more lines; read again with line=5)"
        missing = await run_tool(agent, sid, "read_file", path="nope.txt")
        assert missing["statuses"][-1] == "failed"
        assert "nope.txt does not exist" in result_text(missing)
        (project / "blob.bin").write_bytes(b"\x00\x01binary")
        binary = await run_tool(agent, sid, "read_file", path="blob.bin")
        assert "binary file" in result_text(binary)
    assert client.calls == []  # it declared nothing, so it was asked nothing


@pytest.mark.parametrize("kind", CLIENTS)
async def test_write_file_creates_and_replaces(project: Path, kind: str) -> None:
    client = editor(kind)
    async with served(project, client) as agent:
        sid = await agent.start()
        created = await run_tool(agent, sid, "write_file", path="docs/new/guide.md", content="# Guide\n\nHello.\n")
        assert created["statuses"][-1] == "completed"
        assert result_text(created) == "Created docs/new/guide.md (3 lines)."
        replaced = await run_tool(agent, sid, "write_file", path="notes.txt", content="short\r\nkept as is")
        assert result_text(replaced) == "Wrote notes.txt (2 lines)."
        directory = await run_tool(agent, sid, "write_file", path="src", content="x")
        assert directory["statuses"][-1] == "failed"
    assert (project / "docs" / "new" / "guide.md").read_text() == "# Guide\n\nHello.\n"
    assert (project / "notes.txt").read_bytes() == b"short\r\nkept as is"
    writes = [params["path"] for method, params in client.calls if method == "fs/write_text_file"]
    if kind == "editor":
        assert writes == [str(project / "docs" / "new" / "guide.md"), str(project / "notes.txt")]
    else:
        assert client.calls == []


@pytest.mark.parametrize("kind", CLIENTS)
async def test_edit_file_replaces_exact_text(project: Path, kind: str) -> None:
    client = editor(kind)
    app = project / "src" / "app.py"
    async with served(project, client) as agent:
        sid = await agent.start()
        edit = await run_tool(agent, sid, "edit_file", path="src/app.py", old_string="return 1", new_string="return 42")
        assert (edit["statuses"][-1], result_text(edit)) == ("completed", "Edited src/app.py: 1 replacement.")
        assert app.read_text() == "def main():\n    return 42\n\n\nprint(main())\n"

        missing = await run_tool(agent, sid, "edit_file", path="src/app.py", old_string="return 7", new_string="x")
        assert missing["statuses"][-1] == "failed"
        assert "old_string was not found in src/app.py" in result_text(missing)

        twice = await run_tool(agent, sid, "edit_file", path="src/app.py", old_string="main()", new_string="run()")
        assert twice["statuses"][-1] == "failed"
        assert "occurs 2 times" in result_text(twice)
        assert app.read_text() == "def main():\n    return 42\n\n\nprint(main())\n"  # nothing changed

        every = await run_tool(
            agent, sid, "edit_file", path="src/app.py", old_string="main()", new_string="run()", replace_all=True
        )
        assert result_text(every) == "Edited src/app.py: 2 replacements."
        assert app.read_text() == "def run():\n    return 42\n\n\nprint(run())\n"

        same = await run_tool(agent, sid, "edit_file", path="src/app.py", old_string="run", new_string="run")
        assert same["statuses"][-1] == "failed"
        empty = await run_tool(agent, sid, "edit_file", path="src/app.py", old_string="", new_string="x")
        assert empty["statuses"][-1] == "failed"
        absent = await run_tool(agent, sid, "edit_file", path="src/none.py", old_string="a", new_string="b")
        assert absent["statuses"][-1] == "failed"
        assert not (project / "src" / "none.py").exists()
    methods = {method for method, _ in client.calls}
    assert methods == ({"fs/read_text_file", "fs/write_text_file"} if kind == "editor" else set())


async def test_edit_applies_to_the_editors_unsaved_buffer(project: Path) -> None:
    """The text edited is what the user has in the editor, not the stale file on disk."""
    app = str(project / "src" / "app.py")
    client = editor("editor", buffers={app: "def main():\n    return 5  # unsaved\n"})
    async with served(project, client) as agent:
        sid = await agent.start()
        call = await run_tool(agent, sid, "edit_file", path="src/app.py", old_string="return 5", new_string="return 6")
        assert call["statuses"][-1] == "completed"
    # The diff proposed before it ran (in the tool call) is against the buffer too.
    [proposed] = call["contents"][0]
    assert (proposed.type, proposed.path) == ("diff", app)
    assert (proposed.old_text, proposed.new_text) == (
        "def main():\n    return 5  # unsaved\n",
        "def main():\n    return 6  # unsaved\n",
    )
    assert client.buffers[app] == "def main():\n    return 6  # unsaved\n"
    assert Path(app).read_text() == "def main():\n    return 6  # unsaved\n"  # written through the editor


@pytest.fixture
def escapes(tmp_path: Path, project: Path) -> dict[str, str]:
    """Paths that leave the project in every way: ``..``, absolute elsewhere, symlinks out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET\n")
    os.symlink(outside / "secret.txt", project / "link.txt")
    os.symlink(outside, project / "linkdir")
    os.symlink(outside / "created-through-link.txt", project / "dangling.txt")
    return {
        "dotdot": "../outside/secret.txt",
        "deep dotdot": "src/../../outside/secret.txt",
        "absolute": str(outside / "secret.txt"),
        "root": "/etc/passwd",
        "home": "~/.bashrc",
        "file symlink": "link.txt",
        "dir symlink": "linkdir/secret.txt",
        "dangling symlink": "dangling.txt",
    }


@pytest.mark.parametrize("kind", CLIENTS)
async def test_paths_outside_the_session_are_refused_before_anything_is_asked(
    project: Path, tmp_path: Path, escapes: dict[str, str], kind: str
) -> None:
    client = editor(kind)
    outside = tmp_path / "outside"
    async with served(project, client) as agent:
        sid = await agent.start()
        for label, path in escapes.items():
            for name, args in (
                ("read_file", {"path": path}),
                ("write_file", {"path": path, "content": "PWNED"}),
                ("edit_file", {"path": path, "old_string": "TOP", "new_string": "PWNED"}),
            ):
                call = await run_tool(agent, sid, name, **args)
                assert call["statuses"][-1] == "failed", (label, name)
                assert "outside the session's directories" in result_text(call), (label, name)
                shown = json.dumps([[c.model_dump() for c in content] for content in call["contents"]])
                assert "TOP SECRET" not in shown and "TOP SECRET" not in result_text(call), (label, name)
            run = await run_tool(agent, sid, "run_command", command="pwd > where.txt", cwd=path)
            assert run["statuses"][-1] == "failed", label
    assert client.calls == []  # nothing outside was ever sent to the editor
    assert (outside / "secret.txt").read_text() == "TOP SECRET\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert not (project / "where.txt").exists()


@pytest.mark.parametrize("kind", CLIENTS)
async def test_additional_directories_are_inside(project: Path, tmp_path: Path, kind: str) -> None:
    extra = tmp_path / "shared"
    extra.mkdir()
    (extra / "lib.py").write_text("X = 1\n")
    client = editor(kind)
    async with served(project, client) as agent:
        await agent.initialize()
        sid = (await agent.conn.new_session(cwd=str(project), additional_directories=[str(extra)])).session_id
        call = await run_tool(
            agent, sid, "edit_file", path=str(extra / "lib.py"), old_string="X = 1", new_string="X = 2"
        )
        assert call["statuses"][-1] == "completed"
        read = await run_tool(agent, sid, "read_file", path="../shared/lib.py")
        assert result_text(read) == "X = 2"
    assert (extra / "lib.py").read_text() == "X = 2\n"


async def test_the_editor_gets_paths_as_it_knows_them(tmp_path: Path) -> None:
    """A project opened through a symlink: the editor's buffers are keyed by that path, not the real one."""
    real = tmp_path / "real"
    (real / "deep" / "er").mkdir(parents=True)
    (real / "a.txt").write_text("disk a\n")
    (real / "deep" / "b.txt").write_text("disk b\n")
    link = tmp_path / "link"
    os.symlink(real, link)
    os.symlink(real / "deep" / "er", real / "shortcut")
    client = editor("editor", buffers={str(link / "a.txt"): "buffer a\n"})
    async with served(link, client) as agent:
        sid = await agent.start()
        assert result_text(await run_tool(agent, sid, "read_file", path="a.txt")) == "buffer a"
        # shortcut/.. is real/deep (the OS follows the link first), not real/: the checked path is sent,
        # under the root as the editor named it, never through the link inside the project.
        assert result_text(await run_tool(agent, sid, "read_file", path="shortcut/../b.txt")) == "disk b"
    assert [params["path"] for _, params in client.calls] == [str(link / "a.txt"), str(link / "deep" / "b.txt")]
