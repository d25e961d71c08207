"""Helpers of the permission tests (a uniquely named module: all test suites share one pytest run)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp.schema import AllowedOutcome, DeniedOutcome, PermissionOption, RequestPermissionResponse, ToolCallUpdate

from langacp.client import PermissionRequest, RecordingClient
from langacp.testing import calls
from langacp.testing.harness import ServedAgent, serve_in_process, write_project_config, write_user_config

HERE = Path(__file__).resolve().parent
AGENT = str(HERE / "permissions_agent.py")
SITE = HERE / "fixtures" / "site"

Reply = Callable[[PermissionRequest], Awaitable[str | None]]


@dataclass
class AsyncClient(RecordingClient):
    """A client whose answer to each permission request comes from an async function.

    ``reply`` returns an option id (any string, even one that was not offered) or ``None``
    for ``cancelled``. Without it, ``answer`` (an option kind) is used.
    """

    reply: Reply | None = None
    answered: list[tuple[PermissionRequest, str | None]] = field(default_factory=list)

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kwargs: Any
    ) -> RequestPermissionResponse:
        if self.reply is None:
            return await super().request_permission(options, session_id, tool_call, **kwargs)
        request = PermissionRequest(session_id, tool_call, options)
        self.permission_requests.append(request)
        option_id = await self.reply(request)
        self.answered.append((request, option_id))
        if option_id is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id))


def agent_env(config_home: Path) -> dict[str, str]:
    """The fixture plugin on the path, and a config dir of the test's own (never the real user's)."""
    paths = [str(SITE), *([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])]
    return {"PYTHONPATH": os.pathsep.join(paths), "XDG_CONFIG_HOME": str(config_home)}


@asynccontextmanager
async def served(
    tmp_path: Path,
    target: str = "agent",
    *,
    client: RecordingClient | None = None,
) -> AsyncIterator[ServedAgent]:
    """The permission test agent with langacp-permissions and the kinds fixture plugin, in process."""
    spec = target if ":" in target else f"{AGENT}:{target}"
    (tmp_path / "project").mkdir(exist_ok=True)
    async with serve_in_process(
        spec,
        plugins=["permissions", "permkinds"],
        env=agent_env(tmp_path / "config"),
        client=client,
        cwd=tmp_path / "project",
    ) as agent:
        yield agent


user_config = write_user_config
project_config = write_project_config


def option_id(request: PermissionRequest, kind: str) -> str:
    return next(o.option_id for o in request.options if o.kind == kind)


def option_name(request: PermissionRequest, kind: str) -> str:
    return next(o.name for o in request.options if o.kind == kind)


def statuses(agent: ServedAgent, sid: str, call_id: str | None = None) -> list[str]:
    return [
        str(u.status)
        for u in agent.client.of(sid, "tool_call_update")
        if u.status and (call_id is None or u.tool_call_id == call_id)
    ]


def failed_text(agent: ServedAgent, sid: str) -> str:
    """Why this session's failed tool calls did not run."""
    return calls.failed_text(agent.client.of(sid))


async def never(_: PermissionRequest) -> str | None:
    """A client that never answers."""
    await asyncio.Event().wait()
    return None
