"""Typed per-plugin session data: what ``SessionContext.data(Model)`` restores and the core saves.

A plugin declares the shape of what it keeps with a session as a pydantic model or a
dataclass whose fields all have defaults. The core keeps the session's data as JSON under
each owner's name in the session record (``SessionRecord.data``), so every store driver
saves it, and validates it back into the model the first time a plugin asks after a
``session/load``. Data that no longer validates (an older format, a hand-edited store) is
logged and replaced by a fresh ``Model()``: it never fails the session.

pydantic is imported only when data is first read or written (plugins load before
``initialize`` and must stay cheap to import).
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

__all__ = ["data_name", "describe_servers", "dump_data", "load_data", "sync_record"]

log = logging.getLogger("langacp.session_data")

M = TypeVar("M")

_PREFIX = "langacp_"


def data_name(model: type[Any]) -> str:
    """The default name a model's data is kept under: its top-level package, without ``langacp_``.

    ``langacp_modes.session.ModesData`` → ``"modes"``; ``my_titles.plugin.State`` → ``"my_titles"``.
    """
    package = (getattr(model, "__module__", None) or model.__name__).split(".")[0]
    return package[len(_PREFIX) :] if package.startswith(_PREFIX) and len(package) > len(_PREFIX) else package


_adapters: dict[type[Any], Any] = {}


def _adapter(model: type[Any]) -> Any:
    adapter = _adapters.get(model)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _adapters[model] = TypeAdapter(model)
    return adapter


def load_data(model: type[M], raw: Any, *, name: str, session_id: str = "", session: Any = None) -> M:
    """``raw`` (stored JSON, or ``None``) as a ``model``; a fresh ``model()`` if absent or invalid.

    Invalid data is logged and, for ``session`` (a ``SessionContext``), told its client once as a
    ``notice`` (when it shows them).
    """
    if raw is not None:
        try:
            value: M = _adapter(model).validate_python(raw)
            return value
        except Exception as exc:  # noqa: BLE001 - stored data from an older version must not fail the session
            why = str(exc).splitlines()[0]
            log.warning(
                "langacp: session %s: the stored data %r does not fit %s any more; starting it afresh (%s)",
                session_id or getattr(session, "session_id", ""),
                name,
                model.__name__,
                why,
            )
            if session is not None:
                from langacp.notices import notify_once

                detail = (
                    f"The session's saved {name!r} data does not fit {model.__name__} any more ({why}); started afresh."
                )
                notify_once(session, ("data", name), "warning", f"Saved {name} data could not be read", detail[:1000])
    return model()


def dump_data(value: Any) -> Any:
    """``value`` (a model instance) as JSON-compatible data."""
    return _adapter(type(value)).dump_python(value, mode="json")


def sync_record(record: Any, context: Any) -> None:
    """Copy what plugins may change on the live session (title, mode, typed data) into its stored record."""
    record.title = context.title
    record.mode_id = context.mode_id
    record.data = context.saved_data()


def describe_servers(servers: list[Any] | None) -> list[dict[str, Any]]:
    """The session's MCP servers as stored: names, commands and URLs; of env vars and headers only the names."""
    described = []
    for server in servers or []:
        data = server.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(server, "model_dump") else {}
        for secret in ("env", "headers"):
            if isinstance(data.get(secret), list):
                data[secret] = [item.get("name") for item in data[secret] if isinstance(item, dict)]
        described.append(data)
    return described
