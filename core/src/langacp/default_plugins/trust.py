"""The session's configuration layers, read when it opens, and what was ignored shown to the user.

See :mod:`langacp.trust`: the files are read in a worker thread (never on the event loop), before
any plugin's session hook runs (:func:`langacp.trust.open_layers`);
each notice (a project file's loosening key, a file that cannot be read) is logged on stderr
and shown in the editor, so the user sees what did not apply and why: as an ACP ``notice`` each
to a client that advertised ``session.notices``, else as one agent message.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable

from langacp.hookspecs import hookimpl
from langacp.trust import SessionLayers, open_layers
from langacp.types import SessionContext

log = logging.getLogger("langacp.config")


def _open(session: SessionContext) -> Awaitable[None] | None:
    layers = session.scratch(SessionLayers).layers  # in place already when the core calls the hook
    if layers is not None and not layers.notices:
        return None  # nothing to tell: no coroutine, no time limit to set up for every session
    return _tell(session)


async def _tell(session: SessionContext) -> None:
    layers = await open_layers(session)
    if not layers.notices:
        return
    for notice in layers.notices:
        log.warning("langacp: %s", notice)
    sent = [await session.notify("warning", "Configuration not applied", notice) for notice in layers.notices]
    if not all(sent) and session.send_update is not None:
        from acp import update_agent_message_text

        lines = "\n".join(f"- {notice}" for notice in layers.notices)
        await session.send_update(update_agent_message_text(f"langacp: configuration not applied:\n{lines}\n"))


# tryfirst: the notices come before what other plugins send when the session opens.
@hookimpl(tryfirst=True)
def langacp_session_created(session: SessionContext) -> Awaitable[None] | None:
    return _open(session)


@hookimpl(tryfirst=True)
def langacp_session_loaded(session: SessionContext) -> Awaitable[None] | None:
    return _open(session)
