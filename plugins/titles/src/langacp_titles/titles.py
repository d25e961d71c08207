"""Setting a session's title: in its record (``session/list`` shows it) and on the client."""

from __future__ import annotations

from typing import Literal

from langacp import SessionContext

__all__ = ["DATA_KEY", "TitleSource", "set_title"]

DATA_KEY = "titles"
TitleSource = Literal["prompt", "agent", "user", "plugin"]


async def set_title(session: SessionContext, title: str, source: TitleSource = "plugin") -> None:
    """Store ``title`` with the session and send ``session_info_update``.

    Other plugins may call this; a title already set is never replaced by one from a prompt.
    """
    from acp.schema import SessionInfoUpdate

    from langacp.stores import now_iso

    record = session.state.get("record")
    updated_at = now_iso()
    if record is not None:
        record.title = title
        record.updated_at = updated_at
        record.data[DATA_KEY] = {"source": source}
    if session.send_update is not None:
        await session.send_update(
            SessionInfoUpdate(session_update="session_info_update", title=title, updated_at=updated_at)
        )
