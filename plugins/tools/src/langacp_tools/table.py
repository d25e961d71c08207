"""The ``[tools.kinds]`` table's model (imported when a session reads it)."""

from __future__ import annotations

import difflib
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict

from langacp.api import ConfigModel, config_value_error
from langacp_tools.kinds import KINDS

__all__ = ["KindsTable"]


def _kind(value: Any) -> Any:
    if value in KINDS:
        return value
    close = difflib.get_close_matches(str(value), KINDS, n=1)
    hint = f'did you mean "{close[0]}"? ' if close else ""
    raise config_value_error(f"{value!r} is not a tool kind", f"{hint}expected one of {', '.join(KINDS)}")


class KindsTable(ConfigModel):
    """``[tools.kinds]``: tool name = ACP tool kind."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Annotated[str, BeforeValidator(_kind)]]  # type: ignore[assignment]

    def pins(self) -> dict[str, str]:
        return dict(self.__pydantic_extra__ or {})
