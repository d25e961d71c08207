"""``terminal/*`` served by the one implementation, ``langacp.client.local.Terminals``, for both clients.

``LocalHandler`` (the client library's default) and the test editor ``EditorClient`` run real
commands the same way and answer the same: output kept to its tail, exit status, kill,
release, an unknown id (-32002), a command that cannot run (-32602). Only the working directory
differs: ``LocalHandler`` confines it to the session's directories.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from langacp.client import LocalHandler
from langacp.client.local import Terminals
from langacp.testing.editor import EditorClient


def _clients(tmp_path: Path) -> list[Any]:
    local = LocalHandler(roots=[tmp_path])
    local.add_session("s", str(tmp_path))
    return [local, EditorClient()]


@pytest.mark.parametrize("which", [0, 1], ids=["LocalHandler", "EditorClient"])
async def test_both_clients_run_terminals_alike(tmp_path: Path, which: int) -> None:
    client = _clients(tmp_path)[which]
    assert isinstance(client.terminals, Terminals)
    created = await client.create_terminal(
        "s", "sh", args=["-c", "printf 'héllo wörld'; exit 3"], cwd=str(tmp_path), output_byte_limit=4
    )
    exited = await asyncio.wait_for(client.wait_for_terminal_exit("s", created.terminal_id), 30)
    assert (exited.exit_code, exited.signal) == (3, None)
    output = await client.terminal_output("s", created.terminal_id)
    assert (output.output, output.truncated) == ("rld", True)  # the tail: 4 bytes, less half an "ö"
    assert output.exit_status is not None and output.exit_status.exit_code == 3

    sleeper = await client.create_terminal("s", "sleep 60", cwd=str(tmp_path))
    await client.kill_terminal("s", sleeper.terminal_id)
    killed = await asyncio.wait_for(client.wait_for_terminal_exit("s", sleeper.terminal_id), 30)
    assert (killed.exit_code, killed.signal) == (None, "SIGKILL")

    await client.release_terminal("s", created.terminal_id)
    with pytest.raises(RequestError) as unknown:
        await client.terminal_output("s", created.terminal_id)
    assert unknown.value.code == -32002
    with pytest.raises(RequestError) as cannot:
        await client.create_terminal("s", str(tmp_path / "no-such-program"), args=["x"], cwd=str(tmp_path))
    assert cannot.value.code == -32602 and "cannot run" in str(cannot.value.data)
    await client.aclose()
    assert client.terminals == {}


@pytest.mark.parametrize("which", [0, 1], ids=["LocalHandler", "EditorClient"])
async def test_both_clients_select_lines_alike(tmp_path: Path, which: int) -> None:
    client = _clients(tmp_path)[which]
    path = tmp_path / "lines.txt"
    path.write_text("one\ntwo\nthree\n", encoding="utf-8")
    assert (await client.read_text_file("s", str(path), line=2, limit=1)).content == "two\n"
    assert (await client.read_text_file("s", str(path), line=2)).content == "two\nthree\n"
    assert (await client.read_text_file("s", str(path), limit=1)).content == "one\n"
    assert (await client.read_text_file("s", str(path))).content == "one\ntwo\nthree\n"
