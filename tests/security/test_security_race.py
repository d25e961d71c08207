"""The symlink race: 300 writes and 300 reads while a thread flips links, through the editor and locally.

* Through the editor (``fs/write_text_file`` / ``fs/read_text_file``): ``link`` is flipped
  between a file inside the cwd and one outside. The editor follows whatever path it is sent,
  so an escape is a request whose path, when the editor gets it, leads outside.
* Locally: ``sub`` is flipped between a real directory of the cwd and a link to a directory
  outside (a component of the checked real path turning into a link), and ``link`` as above.
  An escape is a file written outside, or a read that returns the outside text.

Every run reports its escapes; there must be none.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from security_support import served

from langacp.paths import is_inside
from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent

CALLS = 300
FLIPPER = Path(__file__).parent / "security_flipper.py"


class CountingEditor(EditorClient):
    """An editor that counts the requests whose path leads out of ``root`` when they arrive."""

    def __init__(self, root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = os.path.realpath(root)
        self.escapes = {"fs/read_text_file": 0, "fs/write_text_file": 0}

    def _check(self, method: str, path: str) -> None:
        if not is_inside(os.path.realpath(path), [self.root]):
            self.escapes[method] += 1

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        self._check("fs/read_text_file", path)
        return await super().read_text_file(session_id, path, **kwargs)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        self._check("fs/write_text_file", path)
        return await super().write_text_file(session_id, path, content, **kwargs)


@contextmanager
def flipping(*args: str | Path) -> Iterator[list[int]]:
    """A flipper process (``security_flipper.py args…``) running for the block; yields [flips done] after it."""
    process = subprocess.Popen([sys.executable, str(FLIPPER), *map(str, args)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    done = [0]
    try:
        yield done
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=30)
        done[0] = int(out.strip() or 0)


async def _batch(agent: ServedAgent, sid: str, name: str, args: str) -> list[Any]:
    """One turn of CALLS parallel calls; the raw output of each finished call."""
    start = len(agent.client.updates)
    assert await agent.prompt(sid, f"batch {name} {CALLS} {args}") == "end_turn"
    finished = [
        u
        for s, u in agent.client.updates[start:]
        if s == sid and u.session_update == "tool_call_update" and u.status in ("completed", "failed")
    ]
    assert len(finished) == CALLS
    return finished


def _report(label: str, escapes: int, finished: list[Any], flips: int) -> None:
    done = sum(1 for u in finished if u.status == "completed")
    print(f"{label}: {escapes} escapes of {CALLS} ({done} ran, {CALLS - done} refused; {flips} flips)")


async def test_the_editor_is_never_sent_a_path_that_leads_out(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / "inside.txt").write_text("INSIDE\n")
    (outside / "target.txt").write_text("SECRET\n")
    os.symlink(work / "inside.txt", work / "link")
    client = CountingEditor(work, answer="allow_always", terminal=False)
    step = ("link", work, work / "inside.txt", outside / "target.txt")
    async with served(work, tmp_path, client, target="racing") as agent:
        sid = await agent.start()
        with flipping(*step) as flips:
            writes = await _batch(agent, sid, "write_file", '{"path": "link", "content": "w{i}\\n"}')
        _report("editor writes", client.escapes["fs/write_text_file"], writes, flips[0])
        with flipping(*step) as flips:
            reads = await _batch(agent, sid, "read_file", '{"path": "link"}')
        leaked = sum("SECRET" in str(u.raw_output) for u in reads)
        _report("editor reads", client.escapes["fs/read_text_file"] + leaked, reads, flips[0])
    assert client.escapes == {"fs/read_text_file": 0, "fs/write_text_file": 0}
    assert leaked == 0
    assert (outside / "target.txt").read_text() == "SECRET\n"
    assert any(u.status == "completed" for u in [*writes, *reads])  # the race was run: some calls ran


async def test_local_reads_and_writes_never_follow_a_flipped_link_out(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "sub").mkdir(parents=True)
    outside.mkdir()
    (work / "sub" / "data.txt").write_text("INSIDE\n")
    (work / "inside.txt").write_text("INSIDE\n")
    (outside / "data.txt").write_text("SECRET\n")
    (outside / "target.txt").write_text("SECRET\n")
    os.symlink(work / "inside.txt", work / "link")
    client = EditorClient(answer="allow_always", fs=False, terminal=False)
    directory = ("directory", work, outside)
    link = ("link", work, work / "inside.txt", outside / "target.txt")
    async with served(work, tmp_path, client, target="racing") as agent:
        sid = await agent.start()
        with flipping(*directory) as flips:
            writes = await _batch(agent, sid, "write_file", '{"path": "sub/f{i}.txt", "content": "w{i}\\n"}')
        escaped = sorted(p.name for p in outside.iterdir() if p.name.startswith("f"))
        _report("local writes through a flipped directory", len(escaped), writes, flips[0])
        with flipping(*directory) as flips:
            reads = await _batch(agent, sid, "read_file", '{"path": "sub/data.txt"}')
        leaked = sum("SECRET" in str(u.raw_output) for u in reads)
        _report("local reads through a flipped directory", leaked, reads, flips[0])
        with flipping(*link) as flips:
            link_writes = await _batch(agent, sid, "write_file", '{"path": "link", "content": "w{i}\\n"}')
        overwritten = (outside / "target.txt").read_text() != "SECRET\n"
        _report("local writes through a flipped link", int(overwritten), link_writes, flips[0])
        with flipping(*link) as flips:
            link_reads = await _batch(agent, sid, "read_file", '{"path": "link"}')
        link_leaked = sum("SECRET" in str(u.raw_output) for u in link_reads)
        _report("local reads through a flipped link", link_leaked, link_reads, flips[0])
    assert escaped == [] and leaked == 0 and not overwritten and link_leaked == 0
    assert len(list((work / "sub").glob("f*.txt"))) == sum(u.status == "completed" for u in writes)
    assert (outside / "data.txt").read_text() == "SECRET\n"
    # The race was run: some calls ran (the others were refused, never sent outside).
    assert any(u.status == "completed" for u in [*writes, *link_writes])
    assert any(u.status == "completed" for u in [*reads, *link_reads])
