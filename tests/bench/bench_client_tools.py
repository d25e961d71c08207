"""What langacp-client-tools costs per call, through the editor and locally, against a plain tool.

Run from the repository root (langacp-client-tools installed)::

    python tests/bench/bench_client_tools.py [--runs N]

One ``langacp serve langacp.testing.agent:agent -p client-tools`` process per client: an
:class:`~langacp.testing.editor.EditorClient` that does ``fs`` and ``terminal`` (in the
benchmark process, over the same pipes), and one that declares neither (local). Rows, the
median of N turns interleaved in one session:

- a turn calling ``read_file`` (line 100 of a 200-line file), ``edit_file`` (one line of it)
  and ``run_command true``, against a turn calling the scripted agent's ``add`` tool (the
  baseline: the same turn with a tool that does next to nothing). Results are kept short
  because the scripted model streams each result back word by word. Ratio = turn / baseline;
- cancel: from ``session/cancel`` during ``run_command "sleep 60"`` to the ``cancelled``
  response, and to the moment the command's process is gone (by pid).

Nothing is asserted; the script prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from acp import text_block

from langacp.testing.editor import EditorClient
from langacp.testing.harness import ServedAgent, serve

TARGET = "langacp.testing.agent:agent"


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def _turn(agent: ServedAgent, sid: str, name: str, args: dict[str, object]) -> float:
    start = time.perf_counter()
    stop = await agent.prompt(sid, f"tool {name} {json.dumps(args)}")
    elapsed = time.perf_counter() - start
    assert stop == "end_turn", stop
    return elapsed


async def _cancel(agent: ServedAgent, sid: str, work: Path) -> tuple[float, float]:
    pid_file = work / "pid"
    pid_file.unlink(missing_ok=True)
    command = json.dumps({"command": "echo $$ > pid; exec sleep 60"})
    turn = asyncio.ensure_future(agent.conn.prompt(session_id=sid, prompt=[text_block(f"tool run_command {command}")]))
    while not (pid_file.exists() and pid_file.read_text().strip()):
        await asyncio.sleep(0.005)
    pid = int(pid_file.read_text())
    start = time.perf_counter()
    await agent.conn.cancel(session_id=sid)
    response = await turn
    answered = time.perf_counter() - start
    assert response.stop_reason == "cancelled"
    while _alive(pid):
        await asyncio.sleep(0.001)
    return answered, time.perf_counter() - start


async def measure(editor: bool, runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {k: [] for k in ("add", "read_file", "edit_file", "run_command", "cancel", "gone")}
    client = EditorClient(fs=editor, terminal=editor)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "f.txt").write_text("".join(f"line {i}\n" for i in range(200)))
        async with serve(TARGET, plugins=["client-tools"], cwd=work, client=client) as agent:
            sid = await agent.start()
            await _turn(agent, sid, "add", {"a": 1, "b": 2})  # warm up
            for i in range(runs):
                times["add"].append(await _turn(agent, sid, "add", {"a": i, "b": 1}))
                times["read_file"].append(
                    await _turn(agent, sid, "read_file", {"path": "f.txt", "line": 100, "limit": 1})
                )
                edit = {"path": "f.txt", "old_string": f"line {i}\n", "new_string": f"LINE {i}\n"}
                times["edit_file"].append(await _turn(agent, sid, "edit_file", edit))
                times["run_command"].append(await _turn(agent, sid, "run_command", {"command": "true"}))
                agent.client.updates.clear()
            for _ in range(max(3, runs // 3)):
                answered, gone = await _cancel(agent, sid, work)
                times["cancel"].append(answered)
                times["gone"].append(gone)
        await client.aclose()
    return times


async def run(runs: int) -> str:
    rows = [
        "| turn | through the editor | ratio to `add` | locally | ratio to `add` |",
        "|---|---|---|---|---|",
    ]
    editor, local = await measure(True, runs), await measure(False, runs)
    med = {name: {k: statistics.median(v) for k, v in t.items()} for name, t in (("editor", editor), ("local", local))}
    for key in ("add", "read_file", "edit_file", "run_command"):
        e, loc = med["editor"][key], med["local"][key]
        rows.append(
            f"| `{key}` | {e * 1000:.1f} ms | {e / med['editor']['add']:.2f}× | {loc * 1000:.1f} ms "
            f"| {loc / med['local']['add']:.2f}× |"
        )
    for key, label in (("cancel", "cancel → `cancelled`"), ("gone", "cancel → process gone")):
        rows.append(f"| {label} | {med['editor'][key] * 1000:.1f} ms | | {med['local'][key] * 1000:.1f} ms | |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print(asyncio.run(run(args.runs)))
    print(f"\n{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, median of {args.runs} turns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
