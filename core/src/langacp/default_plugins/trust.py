"""The session's configuration layers, read when it opens, and what was ignored shown to the user.

See :mod:`langacp.trust`: the files are read in a worker thread (never on the event loop);
each notice (a project file's loosening key, a file that cannot be read) is logged on stderr
and sent to the editor as an agent message, so the user sees what did not apply and why.
"""

from __future__ import annotations

import asyncio
import logging

from langacp.hookspecs import hookimpl
from langacp.trust import STATE_KEY, ConfigLayers, load_layers
from langacp.types import SessionContext

log = logging.getLogger("langacp.config")

NOTICE_TIMEOUT = 10.0
"""Seconds the configuration files may take to read."""


async def _open(session: SessionContext) -> None:
    if not isinstance(session.state.get(STATE_KEY), ConfigLayers):
        try:
            layers = await asyncio.wait_for(asyncio.to_thread(load_layers, session.cwd), NOTICE_TIMEOUT)
        except TimeoutError:
            log.error("langacp: reading the configuration files of %s took too long; using none", session.cwd)
            layers = ConfigLayers(user_error="the configuration files could not be read in time")
        session.state.setdefault(STATE_KEY, layers)
    layers = session.state[STATE_KEY]
    if not layers.notices:
        return
    for notice in layers.notices:
        log.warning("langacp: %s", notice)
    if session.send_update is not None:
        from acp import update_agent_message_text

        lines = "\n".join(f"- {notice}" for notice in layers.notices)
        await session.send_update(update_agent_message_text(f"langacp: configuration not applied:\n{lines}\n"))


# tryfirst: the layers are in place before the other plugins' async session hooks read them.
@hookimpl(tryfirst=True)
async def langacp_session_created(session: SessionContext) -> None:
    await _open(session)


@hookimpl(tryfirst=True)
async def langacp_session_loaded(session: SessionContext) -> None:
    await _open(session)
