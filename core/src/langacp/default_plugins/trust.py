"""The session's configuration layers, read when it opens, and what was ignored shown to the user.

See :mod:`langacp.trust`: the files are read in a worker thread (never on the event loop), before
any plugin's session hook runs (:func:`langacp.trust.open_layers`);
each notice (a project file's loosening key, a file that cannot be read) and each plugin table
that does not validate (``langacp_config_tables``) is logged on stderr once, in one line with
what it means for the session, and shown in the editor, so the user sees what did not apply and
why: as an ACP ``notice`` each to a client that advertised ``session.notices``, else as one agent
message. A plugin that failed to load is a notice too, to such a client (the others had its
line on stderr when the process started).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from langacp.hookspecs import hookimpl
from langacp.trust import ConfigLayers, SessionLayers, open_layers
from langacp.types import SessionContext

if TYPE_CHECKING:
    from langacp.config_tables import ConfigTable

log = logging.getLogger("langacp.config")


def _open(session: SessionContext) -> Awaitable[None] | None:
    layers = session.scratch(SessionLayers).layers  # in place already when the core calls the hook
    broken = _broken_plugins(session)
    if layers is None:
        return _tell(session, broken)
    problems = _problems(layers, session)
    if not problems and not broken:
        return None  # nothing to tell: no coroutine, no time limit to set up for every session
    _log(layers, problems)  # now: before the other plugins' hooks run and meet the same problems
    return _send(session, problems, broken)


def _broken_plugins(session: SessionContext) -> list[tuple[str, str]]:
    """The plugins that failed to load, for a client that shows notices (the others had a line on stderr)."""
    from langacp.protocol import client_notices

    if session.plugins is None or not client_notices(session.client_capabilities):
        return []
    return [(r.name, r.error or "") for r in session.plugins.records if r.status == "broken"]


def _problems(layers: ConfigLayers, session: SessionContext) -> list[tuple[str, str]]:
    """What is wrong in ``layers`` (notices, then every plugin's tables), each with what it means; once per layers."""
    if layers.checked is None:
        tables = session.plugins.config_tables() if session.plugins is not None else []
        layers.checked = check_layers(layers, tables)
    return layers.checked


def check_layers(layers: ConfigLayers, tables: list[ConfigTable]) -> list[tuple[str, str]]:
    """The layers' notices and each table that does not validate, with what it means for the session."""
    from langacp.config import ConfigError
    from langacp.config_tables import read_table

    found: list[tuple[str, str]] = []
    unreadable = layers.unreadable(project=False)
    for notice in layers.notices:
        meaning = ""
        if notice == unreadable:
            meaning = "; ".join(dict.fromkeys(t.if_invalid for t in tables if t.if_invalid))
        found.append((notice, meaning))
    for project in (False, True):
        if layers.unreadable(project=project) is not None:
            continue
        for table in tables:
            try:
                read_table(table.model, table.name, layers, project=project)
            except ConfigError as exc:
                found.append((str(exc), table.consequence(project=project)))
    return found


def _log(layers: ConfigLayers, problems: list[tuple[str, str]]) -> None:
    for problem, meaning in problems:
        layers.report(problem, meaning)


async def _tell(session: SessionContext, broken: list[tuple[str, str]]) -> None:
    layers = await open_layers(session)
    problems = _problems(layers, session)
    _log(layers, problems)
    await _send(session, problems, broken)


async def _send(session: SessionContext, problems: list[tuple[str, str]], broken: list[tuple[str, str]]) -> None:
    for name, error in broken:
        await session.notify("error", f"Plugin {name} failed to load and was skipped", error or None)
    if not problems:
        return
    told = [f"{p}; until it is fixed, {m}" if m else p for p, m in problems]
    sent = [await session.notify("warning", "Configuration not applied", line) for line in told]
    if not all(sent) and session.send_update is not None:
        from acp import update_agent_message_text

        lines = "\n".join(f"- {line}" for line in told)
        await session.send_update(update_agent_message_text(f"langacp: configuration not applied:\n{lines}\n"))


# tryfirst: the notices come before what other plugins send when the session opens.
@hookimpl(tryfirst=True)
def langacp_session_created(session: SessionContext) -> Awaitable[None] | None:
    return _open(session)


@hookimpl(tryfirst=True)
def langacp_session_loaded(session: SessionContext) -> Awaitable[None] | None:
    return _open(session)
