"""Config options of a remote graph: the choices its ``context_schema`` declares.

A server graph built with ``create_agent(..., context_schema=Context)`` (or any graph with a
context schema) tells the server which run context it reads. Each property with a fixed set
of string values (``Literal["small", "large"]``, an enum) becomes an ACP select option, each
boolean property a boolean option; free-form properties are left out. The values chosen are
kept with the session (in its thread's metadata) and sent as the ``context`` of every run.
Nothing else is offered: langacp cannot change what a server graph does on its own.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langacp.api import SessionContext

__all__ = ["RemoteData", "config_options", "prepare_run", "set_option"]


@dataclass(frozen=True)
class Choice:
    """One context property offered as a config option."""

    id: str
    name: str
    description: str | None
    values: tuple[str, ...] | None
    """The select's values; ``None`` for a boolean."""
    default: Any


def _graph(session: SessionContext) -> Any:
    """The session's graph if it is a remote one (without importing the SDK for a local session)."""
    module = sys.modules.get("langacp_remote.graph")
    if module is None or not isinstance(session.graph, module.RemoteGraph):
        return None
    return session.graph


def _choices(graph: Any) -> list[Choice]:
    schema = graph.context_schema if isinstance(graph.context_schema, Mapping) else {}
    defaults = graph.context_defaults if isinstance(graph.context_defaults, Mapping) else {}
    properties = schema.get("properties")
    choices: list[Choice] = []
    for key, spec in (properties if isinstance(properties, Mapping) else {}).items():
        if not isinstance(spec, Mapping):
            continue
        name = str(spec.get("title") or key)
        description = str(spec["description"]) if spec.get("description") else None
        enum = spec.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
            default = defaults.get(key, spec.get("default", enum[0]))
            choices.append(Choice(str(key), name, description, tuple(enum), default))
        elif spec.get("type") == "boolean":
            choices.append(Choice(str(key), name, description, None, defaults.get(key, spec.get("default", False))))
    return choices


@dataclass
class RemoteData:
    """What langacp-remote keeps with a session: the context values the user chose."""

    context: dict[str, Any] = field(default_factory=dict)


def _stored(session: SessionContext) -> dict[str, Any]:
    """The session's chosen values (saved with the session, in its thread's metadata)."""
    return session.data(RemoteData).context


def _values(session: SessionContext, choices: list[Choice]) -> dict[str, Any]:
    stored = _stored(session)
    values = {}
    for choice in choices:
        value = stored.get(choice.id, choice.default)
        valid = value in choice.values if choice.values is not None else isinstance(value, bool)
        values[choice.id] = value if valid else choice.default
    return values


def config_options(session: SessionContext) -> list[Any]:
    """The session's options and their current values (``[]`` for a local session)."""
    graph = _graph(session)
    if graph is None:
        return []
    from acp.schema import SessionConfigOptionBoolean, SessionConfigOptionSelect, SessionConfigSelectOption

    choices = _choices(graph)
    values = _values(session, choices)
    options: list[Any] = []
    for choice in choices:
        if choice.values is None:
            options.append(
                SessionConfigOptionBoolean(
                    type="boolean",
                    id=choice.id,
                    name=choice.name,
                    description=choice.description,
                    current_value=bool(values[choice.id]),
                )
            )
        else:
            options.append(
                SessionConfigOptionSelect(
                    type="select",
                    id=choice.id,
                    name=choice.name,
                    description=choice.description,
                    current_value=str(values[choice.id]),
                    options=[SessionConfigSelectOption(value=v, name=v) for v in choice.values],
                )
            )
    return options


def set_option(session: SessionContext, config_id: str, value: str | bool) -> bool | None:
    """Choose a value: ``True`` done, ``False`` invalid, ``None`` not one of this graph's options."""
    graph = _graph(session)
    choice = next((c for c in _choices(graph) if c.id == config_id), None) if graph is not None else None
    if choice is None:
        return None
    valid = value in choice.values if choice.values is not None else isinstance(value, bool)
    if not valid:
        return False
    _stored(session)[config_id] = value
    return True


def prepare_run(session: SessionContext) -> None:
    """Make the session's chosen values the context of the runs of the turn that starts (same task)."""
    graph = _graph(session)
    if graph is None:
        return
    choices = _choices(graph)
    if choices:
        from langacp_remote.graph import RUN_CONTEXT

        RUN_CONTEXT.set(_values(session, choices))
