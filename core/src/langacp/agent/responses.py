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


def session_response(
    response: Callable[..., R],
    plugins: Plugins,
    context: SessionContext,
    offer: tuple[Any, list[Any]] | None = None,
    **fields: Any,
) -> R:
    """``response`` (``NewSessionResponse``, ``LoadSessionResponse``, …) with the session's modes and config.

    ``offer``: the modes and config options gathered as the session opened
    (:func:`langacp.operations.offered`), when nothing ran in between; else they are asked now.
    """
    modes, options = offer if offer is not None else (plugins.session_modes(context), plugins.config_options(context))
    return response(modes=modes, config_options=options or None, **fields)
