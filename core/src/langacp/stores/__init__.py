"""Session stores: where a session's metadata and its LangGraph checkpoints live.

A store is a driver chosen by name through stevedore (entry-point group ``langacp.stores``):
``--store memory`` or ``--store sqlite:///path/to/file.db`` picks the driver named by the
URL's scheme. The core ships ``memory``; persistent drivers come as plugins.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, runtime_checkable

__all__ = ["STORE_GROUP", "SessionRecord", "SessionStore", "load_store_driver", "now_iso", "open_store"]

STORE_GROUP = "langacp.stores"


def now_iso() -> str:
    """The current UTC time as ISO 8601, as ACP's ``updatedAt`` expects."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class SessionRecord:
    """A session's metadata, kept beside its checkpoints (JSON-serialisable)."""

    session_id: str
    cwd: str
    additional_directories: list[str] = field(default_factory=list)
    title: str | None = None
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    mode_id: str | None = None
    thread_id: str | None = None
    """The LangGraph thread of the conversation; ``None``: the session id (until ``/clear``)."""
    data: dict[str, Any] = field(default_factory=dict)
    """Plugin data (remembered permissions, MCP servers, …), keyed by plugin name."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@runtime_checkable
class SessionStore(Protocol):
    """What a store driver provides. ``persistent`` decides whether ``loadSession`` is offered."""

    persistent: ClassVar[bool]
    checkpointer: Any
    """A LangGraph checkpointer (``BaseCheckpointSaver``) holding every session's thread."""

    async def put(self, record: SessionRecord) -> None:
        """Insert or replace a session's record."""

    async def get(self, session_id: str) -> SessionRecord | None:
        """The record of a session, or ``None``."""

    async def list(
        self, *, cwd: str | None = None, cursor: str | None = None, limit: int = 50
    ) -> tuple[list[SessionRecord], str | None]:
        """Records, most recently updated first, and the cursor of the next page (or ``None``)."""

    async def aclose(self) -> None:
        """Release connections; stored data stays."""


def _driver_name(url: str) -> str:
    return url.split(":", 1)[0] if ":" in url else url


def load_store_driver(url: str) -> type[SessionStore]:
    """The driver class for ``url``, without instantiating it (cheap: no database opened)."""
    from stevedore import DriverManager

    name = _driver_name(url)
    try:
        manager: Any = DriverManager(namespace=STORE_GROUP, name=name, invoke_on_load=False)
    except Exception as exc:  # stevedore raises NoMatches / NoUniqueMatch / import errors
        raise ValueError(f"no session store driver {name!r} is installed ({exc})") from exc
    driver: type[SessionStore] = manager.driver
    return driver


def open_store(url: str) -> SessionStore:
    """Instantiate the store driver for ``url``; the driver receives the whole URL."""
    return load_store_driver(url)(url)  # type: ignore[call-arg]
