"""The ``[mcp]`` table's models (imported when a session reads them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from langacp.api import ConfigModel, Strings, config_value_error

__all__ = ["McpSettings", "McpTable", "ServerTable"]


def _text(value: Any) -> Any:
    if isinstance(value, str) and value:
        return value
    raise config_value_error("must be a non-empty string", 'write it in quotes, e.g. "npx"')


def _seconds(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    raise config_value_error(f"must be a number of seconds > 0, not {value!r}", "write e.g. timeout = 10")


Text = Annotated[str, BeforeValidator(_text)]


class ServerTable(ConfigModel):
    """``[mcp.servers.NAME]``: a stdio ``command`` (with ``args``, ``env``, ``cwd``) or a ``url``."""

    command: Text | None = None
    args: Strings = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: Text | None = None
    transport: Literal["http", "sse"] = "http"
    headers: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_way(self) -> ServerTable:
        if self.command is None and self.url is None:
            raise config_value_error(
                "needs either `command` (stdio) or `url` (http / sse)", 'add command = "…" or url = "https://…"'
            )
        return self


class McpSettings(ConfigModel):
    """``[mcp]`` as the plugin reads it: each server is checked on its own (a bad one does not stop the others)."""

    project_servers: bool = False
    timeout: Annotated[float, BeforeValidator(_seconds)] | None = None
    trust_annotations: Strings = ()
    servers: dict[str, dict[str, Any]] = Field(default_factory=dict)


class McpTable(McpSettings):
    """``[mcp]`` as ``langacp check`` validates it: every server too."""

    servers: dict[str, ServerTable] = Field(default_factory=dict)  # type: ignore[assignment]
