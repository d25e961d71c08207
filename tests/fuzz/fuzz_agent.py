"""Fuzz ``langacp serve`` over real pipes: ``nox -s fuzz`` (or ``python tests/fuzz/fuzz_agent.py [N] [SEED]``).

Sends N (default 10,000) generated lines to one agent process: valid requests and prompts,
interleaved cancels, wrong types, deep nesting, huge strings, invalid JSON and envelopes,
NaN, responses to nothing. Every request with an id must be answered with that id; every
line whose id cannot be read must get an error with a null id; the agent must never exit.
Prints the figures and exits 1 if any check fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = "langacp.testing.agent:agent"
MAX_BYTES = 2 * 1024 * 1024


class Fuzzer:
    def __init__(self, rng: random.Random, cwd: str) -> None:
        self.rng = rng
        self.cwd = cwd
        self.next_id = 1
        self.sessions: list[str] = []
        self.expected_ids: set[int | str] = set()
        self.expected_null = 0
        self.kinds: dict[str, int] = {}
        self.new_ids: set[int | str] = set()
        """Ids of valid session/new requests: their answers feed ``sessions``."""

    def _id(self) -> int | str:
        self.next_id += 1
        return self.next_id if self.rng.random() < 0.8 else f"s{self.next_id}"

    def _request(self, method: str, params: Any, kind: str) -> bytes:
        msg_id = self._id()
        self.expected_ids.add(msg_id)
        if kind == "session/new":
            self.new_ids.add(msg_id)
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()

    def _null(self, line: bytes, kind: str) -> bytes:
        self.expected_null += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return line

    def _silent(self, line: bytes, kind: str) -> bytes:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return line

    def _session(self) -> str:
        return self.rng.choice(self.sessions) if self.sessions else "nosuch"

    def _junk(self, depth: int = 0) -> Any:
        r = self.rng.random()
        if depth > 3 or r < 0.3:
            return self.rng.choice([None, True, 0, -1, 2**70, 1.5, "", "é\u0000x", "\ud7ff"])
        if r < 0.6:
            return [self._junk(depth + 1) for _ in range(self.rng.randint(0, 3))]
        return {self.rng.choice(["sessionId", "prompt", "cwd", "_meta", "x"]): self._junk(depth + 1) for _ in range(3)}

    def line(self) -> bytes:  # noqa: C901 - one branch per kind of line, on purpose
        r = self.rng.random()
        sid = self._session()
        if r < 0.12:
            text = self.rng.choice(["echo hi", 'tool add {"a": 1, "b": 2}', "think", "slow 0.3", "long 50"])
            return self._request(
                "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}, "prompt"
            )
        if r < 0.22:
            return self._silent(
                json.dumps({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}}).encode(),
                "cancel",
            )
        if r < 0.27:
            return self._request("session/new", {"cwd": self.cwd, "mcpServers": []}, "session/new")
        if r < 0.32:
            return self._request("session/list", {}, "session/list")
        if r < 0.45:  # wrong types
            method = self.rng.choice(["session/prompt", "session/new", "session/load", "initialize", "session/cancel"])
            return self._request(method, self._junk(), "wrong types")
        if r < 0.5:  # unknown methods
            return self._request(self.rng.choice(["x", "session/nope", "_ext/thing", ""]), {}, "unknown method")
        if r < 0.56:  # nested deep but parseable: refused with its id
            depth = self.rng.randint(101, 600)
            return self._request("initialize", json.loads("[" * depth + "]" * depth), "deep (parseable)")
        if r < 0.59:  # nested past the parser's recursion
            depth = self.rng.randint(2_000, 50_000)
            return self._null(
                b'{"jsonrpc":"2.0","id":1,"method":"x","params":' + b"[" * depth + b"]" * depth + b"}",
                "deep (too deep to parse)",
            )
        if r < 0.61:  # huge but under the limit
            text = "echo " + "x" * self.rng.randint(100_000, MAX_BYTES // 2)
            return self._request(
                "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}, "huge prompt"
            )
        if r < 0.62:  # over the size limit
            return self._null(
                json.dumps({"jsonrpc": "2.0", "id": 5, "method": "x", "params": "y" * (MAX_BYTES + 10)}).encode(),
                "over the size limit",
            )
        if r < 0.7:  # not JSON
            junk = self.rng.choice(
                [b"{", b"nope", b'{"a":', bytes(self.rng.randrange(256) for _ in range(20)).replace(b"\n", b" ")]
            )
            return self._null(junk, "not JSON")
        if r < 0.73:
            return self._null(b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"x":NaN}}', "NaN")
        if r < 0.78:  # JSON but not a request object
            return self._null(self.rng.choice([b"[]", b"42", b'"s"', b"null", b"[1,2]"]), "not an object")
        if r < 0.85:  # invalid envelopes that keep their id
            msg_id = self._id()
            self.expected_ids.add(msg_id)
            self.kinds["bad envelope"] = self.kinds.get("bad envelope", 0) + 1
            return json.dumps(
                self.rng.choice(
                    [
                        {"jsonrpc": "2.0", "id": msg_id},
                        {"jsonrpc": "1.0", "id": msg_id, "method": "initialize"},
                        {"id": msg_id, "method": "initialize", "params": {}},
                        {"jsonrpc": "2.0", "id": msg_id, "method": 12},
                        {"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": "x"},
                    ]
                )
            ).encode()
        if r < 0.9:  # responses to requests never sent, notifications of junk: no answer
            return self._silent(
                self.rng.choice(
                    [
                        json.dumps({"jsonrpc": "2.0", "id": 10**9 + self.rng.randrange(1000), "result": {}}).encode(),
                        json.dumps({"jsonrpc": "2.0", "id": "zz", "error": {"code": 1, "message": "x"}}).encode(),
                        json.dumps({"jsonrpc": "2.0", "method": "session/cancel", "params": self._junk()}).encode(),
                        json.dumps({"jsonrpc": "2.0", "method": "no/such/notification"}).encode(),
                    ]
                ),
                "silent",
            )
        return self._request("initialize", {"protocolVersion": 1, "_meta": {"cwd": 1, "self": 2}}, "initialize")


async def main(count: int, seed: int) -> int:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="langacp-fuzz-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LANGACP_")}
        env.update(
            LANGACP_DISABLE_PLUGIN_AUTOLOAD="1",
            LANGACP_MAX_MESSAGE_BYTES=str(MAX_BYTES),
            XDG_DATA_HOME=f"{tmp}/data",
            XDG_CONFIG_HOME=f"{tmp}/config",
        )
        stderr = open(Path(tmp) / "agent.stderr", "w")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "langacp.cli",
            "serve",
            TARGET,
            "--store",
            "memory",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=tmp,
            limit=64 * 1024 * 1024,
        )
        assert process.stdin is not None and process.stdout is not None
        fuzzer = Fuzzer(rng, tmp)
        answered: set[Any] = set()
        nulls = 0
        unexpected = 0

        async def read() -> None:
            nonlocal nulls, unexpected
            assert process.stdout is not None
            while line := await process.stdout.readline():
                message = json.loads(line, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
                if "method" in message:
                    if "id" in message:  # a request to us (permission): answer cancelled
                        reply = {"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": {"outcome": "cancelled"}}}
                        process.stdin.write(json.dumps(reply).encode() + b"\n")
                    continue
                if message.get("id") is None:
                    nulls += 1
                elif message["id"] in fuzzer.expected_ids:
                    answered.add(message["id"])
                    if message["id"] in fuzzer.new_ids and "result" in message:
                        fuzzer.sessions.append(message["result"]["sessionId"])
                else:
                    unexpected += 1

        reader = asyncio.ensure_future(read())
        started = time.monotonic()
        process.stdin.write(fuzzer._request("initialize", {"protocolVersion": 1}, "initialize") + b"\n")
        process.stdin.write(fuzzer._request("session/new", {"cwd": tmp, "mcpServers": []}, "session/new") + b"\n")
        sent = 2
        while sent < count:
            batch = []
            for _ in range(min(rng.randint(1, 25), count - sent)):
                batch.append(fuzzer.line() + b"\n")
            sent += len(batch)
            process.stdin.write(b"".join(batch))  # a batch arrives in one read: cancels beside their prompts
            await process.stdin.drain()
            if process.returncode is not None:
                break
            await asyncio.sleep(0)
        deadline = time.monotonic() + 300
        while (
            len(answered) < len(fuzzer.expected_ids) or nulls < fuzzer.expected_null
        ) and time.monotonic() < deadline:
            if process.returncode is not None:
                break
            await asyncio.sleep(0.1)
        elapsed = time.monotonic() - started
        alive = process.returncode is None
        process.stdin.close()
        code = await asyncio.wait_for(process.wait(), 60)
        reader.cancel()
        stderr.close()
        missing = len(fuzzer.expected_ids - answered)
        print(f"fuzz: seed {seed}, {sent} messages sent in {elapsed:.1f} s")
        for kind, n in sorted(fuzzer.kinds.items(), key=lambda kv: -kv[1]):
            print(f"  {kind:<28} {n}")
        print(f"requests with an id: {len(fuzzer.expected_ids)}, answered: {len(answered)}, unanswered: {missing}")
        print(f"lines whose id cannot be read: {fuzzer.expected_null}, null-id errors received: {nulls}")
        print(f"answers to ids never sent: {unexpected}")
        print(f"crashes: {0 if alive else 1} (agent alive to the end: {alive}; exit status after stdin closed: {code})")
        ok = alive and missing == 0 and nulls == fuzzer.expected_null and unexpected == 0 and code == 0
        if not ok:
            print(Path(tmp, "agent.stderr").read_text()[-4000:])
        print("OK" if ok else "FAILED")
        return 0 if ok else 1


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    s = int(sys.argv[2]) if len(sys.argv) > 2 else 18
    raise SystemExit(asyncio.run(main(n, s)))
