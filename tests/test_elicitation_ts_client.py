"""langacp-elicitation with a client that is not langacp's: the ACP TypeScript SDK's client side (npm
``@agentclientprotocol/sdk`` 2.4.0, tests/fixtures/ts_forms_client) advertises forms and answers them."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from langacp.testing.harness import serve_command

GRAPHS = Path(__file__).resolve().parents[1] / "plugins" / "elicitation" / "tests" / "elicitation_graphs.py"


async def _run(ts_forms_client: list[str], tmp_path: Path, prompts: list[str], answers: list[Any]) -> dict[str, Any]:
    agent = serve_command(f"{GRAPHS}:asker", plugins=["elicitation"])
    env = {**os.environ, "LANGACP_DISABLE_PLUGIN_AUTOLOAD": "1", "XDG_DATA_HOME": str(tmp_path / "data")}
    process = await asyncio.create_subprocess_exec(
        *ts_forms_client,
        json.dumps(agent),
        json.dumps(prompts),
        json.dumps(answers),
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def test_the_typescript_client_answers_forms(ts_forms_client: list[str], tmp_path: Path) -> None:
    result = await _run(ts_forms_client, tmp_path, ["options", "labelled"], [{"answer": "production"}, {"answer": "2"}])
    assert [t["stopReason"] for t in result["turns"]] == ["end_turn", "end_turn"]
    assert 'resumed with "production"' in result["turns"][0]["text"]
    assert "resumed with 2" in result["turns"][1]["text"]
    first, second = result["questions"]
    assert first["message"] == "Which environment should I deploy to?" and first["mode"] == "form"
    assert first["schema"]["properties"]["answer"]["enum"] == ["staging", "production"]
    assert [c["title"] for c in second["schema"]["properties"]["answer"]["oneOf"]] == ["one", "two"]


async def test_the_typescript_client_declines_and_the_next_prompt_answers(
    ts_forms_client: list[str], tmp_path: Path
) -> None:
    result = await _run(ts_forms_client, tmp_path, ["string", "main"], ["decline"])
    declined, answered = result["turns"]
    assert declined["stopReason"] == "end_turn" and "You declined to answer" in declined["text"]
    assert answered["stopReason"] == "end_turn" and 'resumed with "main"' in answered["text"]
    assert len(result["questions"]) == 1
