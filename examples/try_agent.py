"""Talk to an agent from a terminal: spawn ``langacp serve TARGET``, send one prompt, print the updates.

python examples/try_agent.py examples/quickstart.py:agent 'tool word_count {"text": "a b c"}'
"""

from __future__ import annotations

import asyncio
import os
import sys

from acp import text_block

from langacp.client import RecordingClient, spawn_agent


class PrintingClient(RecordingClient):
    async def session_update(self, session_id: str, update: object, **kwargs: object) -> None:
        await super().session_update(session_id, update, **kwargs)
        kind = getattr(update, "session_update", "")
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            text = update.content.text  # type: ignore[attr-defined]
            print(text if kind == "agent_message_chunk" else f"\033[2m{text}\033[0m", end="", flush=True)
        elif kind in ("tool_call", "tool_call_update") and update.status:  # type: ignore[attr-defined]
            print(f"\n[{update.status}] {update.title or update.tool_call_id}")  # type: ignore[attr-defined]


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
