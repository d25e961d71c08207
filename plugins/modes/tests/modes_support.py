"""Helpers of the mode tests (a uniquely named module: all test suites share one pytest run)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langacp.client import RecordingClient
from langacp.testing import calls
from langacp.testing.harness import ServedAgent, serve_in_process, write_project_config, write_user_config

HERE = Path(__file__).resolve().parent
AGENT = str(HERE / "modes_agent.py")


def agent_env(tmp_path: Path) -> dict[str, str]:
    """A config dir of the test's own (never the real user's)."""
    return {"XDG_CONFIG_HOME": str(tmp_path / "config")}


@asynccontextmanager
async def served(
    tmp_path: Path,
    *,
    plugins: Sequence[str] = ("modes",),
    client: RecordingClient | None = None,
    args: Sequence[str] = (),
) -> AsyncIterator[ServedAgent]:
    """The mode test agent in process, in ``tmp_path/project``."""
    (tmp_path / "project").mkdir(exist_ok=True)
    async with serve_in_process(
        f"{AGENT}:agent",
        plugins=list(plugins),
        env=agent_env(tmp_path),
        client=client,
        cwd=tmp_path / "project",
        args=args,
    ) as agent:
        yield agent


user_config = write_user_config
project_config = write_project_config


def call(name: str, **args: Any) -> str:
    """The test agent's prompt that makes one tool call."""
    return calls.tool_prompt(name, **args)


def statuses(agent: ServedAgent, sid: str) -> list[str]:
    return [str(u.status) for u in agent.client.of(sid, "tool_call_update") if u.status]


def failed_text(agent: ServedAgent, sid: str) -> str:
    """Why this session's failed tool calls did not run."""
    return calls.failed_text(agent.client.of(sid))


def current_modes(agent: ServedAgent, sid: str) -> list[str]:
    return [u.current_mode_id for u in agent.client.of(sid, "current_mode_update")]
