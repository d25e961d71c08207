"""Setting a session's title: in its record (``session/list`` shows it) and on the client."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from langacp.api import SessionContext

__all__ = ["TitleSource", "TitlesData", "set_title"]

TitleSource = Literal["prompt", "agent", "user", "plugin"]


@dataclass
class TitlesData:
    """What is kept with the session (``session.data``, name ``titles``): who gave the title."""

    source: TitleSource | None = None


async def set_title(session: SessionContext, title: str, source: TitleSource = "plugin") -> None:
    """Store ``title`` with the session and send ``session_info_update``.

    Other plugins may call this; a title already set is never replaced by one from a prompt.
    """
    from acp.schema import SessionInfoUpdate

    updated_at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    session.title = title  # the core saves it with the session
    session.data(TitlesData).source = source
    if session.send_update is not None:
        await session.send_update(
            SessionInfoUpdate(session_update="session_info_update", title=title, updated_at=updated_at)
        )
