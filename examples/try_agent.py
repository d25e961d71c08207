"""Talk to an agent from a terminal: spawn ``langacp serve TARGET``, send one prompt, print the updates.

python examples/try_agent.py examples/quickstart.py:agent 'tool word_count {"text": "a b c"}'
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from acp import text_block

from langacp.client import RecordingClient, spawn_agent


@dataclass
class PrintingClient(RecordingClient):
    """Prints answers, thoughts (dimmed) and each tool call's status changes."""

    titles: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        await super().session_update(session_id, update, **kwargs)
        kind = update.session_update
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            text = update.content.text
            print(text if kind == "agent_message_chunk" else f"\033[2m{text}\033[0m", end="", flush=True)
        elif kind in ("tool_call", "tool_call_update"):
            call_id = update.tool_call_id
            if update.title:
                self.titles[call_id] = update.title
            if update.kind:
                self.kinds[call_id] = update.kind
            if update.status:
                print(f"\n[{self.kinds.get(call_id, 'tool')}: {update.status}] {self.titles.get(call_id, call_id)}")


async def main(target: str, prompt: str) -> int:
    client = PrintingClient()
    command = [sys.executable, "-m", "langacp.cli", "serve", target]
    async with spawn_agent(command, client, env=dict(os.environ)) as (conn, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=os.getcwd())
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block(prompt)])
    print(f"\n(stop reason: {response.stop_reason})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
