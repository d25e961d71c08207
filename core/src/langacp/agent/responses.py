"""The one builder of a session's response (``session/new``, ``load``, ``resume``, ``fork``).

The prompt's response has one builder too, shared with the library: :func:`langacp.operations.prompt_response`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from langacp.plugins import Plugins
    from langacp.types import SessionContext

__all__ = ["session_response"]

R = TypeVar("R")


def session_response(response: Callable[..., R], plugins: Plugins, context: SessionContext, **fields: Any) -> R:
    """``response`` (``NewSessionResponse``, ``LoadSessionResponse``, …) with the session's modes and config."""
    return response(
        modes=plugins.session_modes(context),
        config_options=plugins.config_options(context) or None,
        **fields,
    )
