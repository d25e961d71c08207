"""The hook implementations of langacp-commands (entry point ``commands`` in group ``langacp``)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from langacp.api import SessionContext, hookimpl
from langacp_commands.builtins import builtin_commands, run_builtin, unknown


@hookimpl(tryfirst=True)
def langacp_available_commands(session: SessionContext, modes: Any, config_options: list[Any]) -> list[Any]:
    return builtin_commands(session, modes, config_options)  # first in the list: the built-ins lead the menu


@hookimpl(trylast=True)
def langacp_run_command(session: SessionContext, name: str, argument: str) -> Awaitable[str]:
    # trylast: other plugins run their own commands first (even one named like a built-in).
    async def run() -> str:
        reply = await run_builtin(session, name, argument)
        return reply if reply is not None else unknown(session, name)

    return run()
