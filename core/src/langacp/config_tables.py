"""One validation for every plugin's configuration table: a pydantic model, errors as ``FILE:LINE``.

A plugin describes its table (``[permissions]``, ``[modes]``, …) as a :class:`ConfigModel` and
reads it with :func:`read_table`; a wrong value raises :class:`ConfigError`, whose message is
``FILE:LINE: [table] key: what is wrong; fix: …``. A plugin declares its tables
(``langacp_config_tables``) so ``langacp check`` validates them, and so ``serve`` reports a bad
value once, in one line, with what it means for the session (:attr:`ConfigTable.if_invalid`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol, TypeVar, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from langacp.config import ConfigError

__all__ = ["ConfigModel", "ConfigTable", "Decision", "Strings", "config_value_error", "read_table"]

M = TypeVar("M", bound="ConfigModel")

DECISIONS = ("allow", "ask", "deny")


class Layers(Protocol):
    """What :func:`read_table` reads of a session's ``langacp.api.ConfigLayers``."""

    user: dict[str, Any]
    project: dict[str, Any]
    user_path: Path | None
    project_path: Path | None


class ConfigModel(BaseModel):
    """Base of a configuration table's model: unknown keys are errors, values are taken as written."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


@dataclass(frozen=True)
class ConfigTable:
    """A table a plugin reads: its dotted name, its model, and what a bad value means for the session."""

    name: str
    """``"permissions"``, or ``"tools.kinds"`` for a sub-table."""
    model: type[ConfigModel]
    if_invalid: str = ""
    """Said after a bad value in the user's file, e.g. ``"every tool call asks for permission"``
    (default: the table is ignored). A project's bad table is ignored and the user's applies."""

    def consequence(self, *, project: bool) -> str:
        """What the session does until the table is fixed."""
        if project:
            return f"the project's [{self.name}] is ignored; yours applies"
        return self.if_invalid or f"your [{self.name}] is ignored; the defaults apply"


def config_value_error(message: str, fix: str = "") -> PydanticCustomError:
    """The error a validator raises for a bad value: ``message`` (``{value!r}`` is not …) and its ``fix``."""
    return PydanticCustomError("config_value", message, {"fix": fix} if fix else None)


def _decision(value: Any) -> Any:
    if value in DECISIONS:
        return value
    close = difflib.get_close_matches(str(value), DECISIONS, n=1)
    fix = f'did you mean "{close[0]}"? ' if close else ""
    raise config_value_error(f'{value!r} is not "allow", "ask" or "deny"', f'{fix}expected "allow", "ask" or "deny"')


def _strings(value: Any) -> Any:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise config_value_error("must be a list of strings", 'write it as ["a", "b"]')
    return tuple(value)


Decision = Annotated[Literal["allow", "ask", "deny"], BeforeValidator(_decision)]
"""``"allow"``, ``"ask"`` or ``"deny"`` (a typo says which one was meant)."""
Strings = Annotated[tuple[str, ...], BeforeValidator(_strings)]
"""A list of strings (read as a tuple)."""


def read_table(
    model: type[M],
    name: str,
    source: Layers | Mapping[str, Any],
    path: Path | None = None,
    *,
    project: bool | None = None,
) -> M:
    """The ``[name]`` table (dotted for a sub-table) of ``source`` validated by ``model``; ``model()`` when absent.

    ``source`` is a parsed file (``path`` names it, for the error's ``FILE:LINE``) or the
    session's ``ConfigLayers`` (``layers_for(session)``): then the user's layer (``project=False``),
    the project's (``project=True``, already restricted by the trust rules), or by default both,
    the project's keys over the user's (as ``layers.merged(name)``). Raises :class:`ConfigError`.
    """
    if isinstance(source, Mapping):
        return _validated(model, name, source, path)
    if project is None:
        user = _validated(model, name, source.user, source.user_path)
        mine = _validated(model, name, source.project, source.project_path)
        if not mine.model_fields_set:
            return user
        return user.model_copy(update={key: getattr(mine, key) for key in mine.model_fields_set})
    if project:
        return _validated(model, name, source.project, source.project_path)
    return _validated(model, name, source.user, source.user_path)


def _validated(model: type[M], name: str, document: Mapping[str, Any], path: Path | None) -> M:
    value: Any = document
    for part in _keys(name):
        value = value.get(part) if isinstance(value, Mapping) else None
    if value is None:
        return model()
    if not isinstance(value, Mapping):
        raise _error(path, name, (), f"[{name}] must be a table", f"write it as a [{name}] table")
    try:
        return model.model_validate(dict(value))
    except ValidationError as exc:
        raise _translate(exc, model, name, path) from None


def _error(path: Path | None, table: str, loc: tuple[Any, ...], what: str, fix: str) -> ConfigError:
    line = _line_of(path, [*_keys(table), *(str(p) for p in loc if not isinstance(p, int))])
    where = f"{path}:{line}" if path is not None and line else str(path) if path is not None else ""
    text = f"{where}: {what}" if where else what
    error = ConfigError(f"{text}; fix: {fix}" if fix else text)
    error.path, error.line, error.table = path, line, table
    return error


def _where(table: str, loc: tuple[Any, ...]) -> tuple[str, str]:
    """``[table.a.b]`` and the last key (``c``, or ``c[0]`` for a list item) of an error's location."""
    parts = [str(p) if not isinstance(p, int) else f"[{p}]" for p in loc]
    key = ""
    while parts and parts[-1].startswith("["):
        key = parts.pop() + key
    if parts:
        key = parts.pop() + key
    return f"[{'.'.join([table, *parts])}]", key


def _translate(exc: ValidationError, model: type[ConfigModel], table: str, path: Path | None) -> ConfigError:
    """The first problem of ``exc`` as one ``FILE:LINE: what; fix: how`` error (unknown keys together)."""
    errors = exc.errors()
    extra = [e for e in errors if e["type"] == "extra_forbidden"]
    if extra:
        parent = extra[0]["loc"][:-1]
        keys = [str(e["loc"][-1]) for e in extra if e["loc"][:-1] == parent]
        known = sorted(_fields_at(model, parent))
        bracket = f"[{'.'.join([table, *(str(p) for p in parent)])}]"
        close = difflib.get_close_matches(keys[0], known, n=1)
        fix = f"did you mean {close[0]}? " if close else ""
        return _error(
            path,
            table,
            extra[0]["loc"],
            f"unknown key(s) in {bracket}: {', '.join(keys)}",
            f"{fix}known: {', '.join(known)}" if known else "remove it",
        )
    first = errors[0]
    loc = tuple(first["loc"])
    bracket, key = _where(table, loc)
    kind, ctx = first["type"], first.get("ctx") or {}
    value = first.get("input")
    if kind == "config_value" or kind == "value_error":
        message = str(ctx.get("error", first["msg"])) if kind == "value_error" else first["msg"]
        what = f"{bracket} {key} {message}" if message.startswith("must ") else f"{bracket} {key}: {message}"
        return _error(path, table, loc, what.replace("]  ", "] ").replace("] :", "]:"), str(ctx.get("fix", "")))
    expected = _EXPECTED.get(kind)
    if expected == "a table":
        return _error(path, table, loc, f"[{'.'.join([table, *(str(p) for p in loc)])}] must be a table", "")
    if expected is not None:
        expected = expected.format(**ctx)
        return _error(path, table, loc, f"{bracket} {key} must be {expected}, not {value!r}", "")
    if kind == "missing":
        return _error(path, table, loc, f"{bracket} {key} is required", f"add {key} = …")
    if kind == "literal_error":
        return _error(path, table, loc, f"{bracket} {key}: {value!r} is not allowed", f"expected {ctx.get('expected')}")
    return _error(path, table, loc, f"{bracket} {key}: {first['msg']}", "")


_EXPECTED = {
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "list_type": "a list",
    "tuple_type": "a list",
    "string_type": "a string",
    "bool_type": "true or false",
    "int_type": "a whole number",
    "float_type": "a number",
    "greater_than_equal": "at least {ge}",
    "greater_than": "more than {gt}",
}


def _fields_at(model: Any, loc: tuple[Any, ...]) -> set[str]:
    """The keys the model expects at ``loc`` (walking nested models, tables and lists)."""
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is not None:
                current = field.annotation
            else:  # a key of the model's typed extras (``__pydantic_extra__: dict[str, Table]``)
                extra = get_type_hints(current).get("__pydantic_extra__")
                if extra is None:
                    return set()
                current = get_args(extra)[-1]
        elif get_origin(current) in (dict, Mapping) or get_origin(current) in (list, tuple):
            args = get_args(current)
            current = args[-1] if args else Any
        else:
            return set()
    current = _unwrap(current)
    return set(current.model_fields) if isinstance(current, type) and issubclass(current, BaseModel) else set()


def _unwrap(annotation: Any) -> Any:
    """``X`` from ``Annotated[X, …]`` and from ``X | None``."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin is Union or type(annotation).__name__ == "UnionType":
            models = [a for a in get_args(annotation) if isinstance(a, type) and issubclass(a, BaseModel)]
            others = [a for a in get_args(annotation) if a is not type(None)]
            annotation = models[0] if models else others[0] if others else Any
        else:
            return annotation


_HEADER = re.compile(r"^\s*\[\[?\s*(.*?)\s*\]\]?\s*(#.*)?$")


def _line_of(path: Path | None, wanted: list[str]) -> int | None:
    """The line of ``path`` that sets (or opens the table of) the longest prefix of the dotted key ``wanted``."""
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    best, best_len = None, 0
    table: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header is not None and "=" not in line.split("]")[0]:
            table = _keys(header.group(1))
            parts = table
        else:
            key, sep, _ = _split_assignment(line)
            if not sep:
                continue
            parts = [*table, *_keys(key)]
        matched = 0
        for have, want in zip(parts, wanted, strict=False):
            if have != want:
                break
            matched += 1
        if matched == len(parts) and matched > best_len:
            best, best_len = number, matched
    return best


def _split_assignment(line: str) -> tuple[str, str, str]:
    """``key``, ``=``, ``value`` of a ``key = value`` line (an ``=`` inside quotes does not count)."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return "", "", ""
        elif char == "=":
            return line[:index].strip(), "=", line[index + 1 :]
    return "", "", ""


def _keys(dotted: str) -> list[str]:
    """The parts of a TOML dotted key, quotes removed."""
    parts, current, quote = [], "", ""
    for char in dotted:
        if quote:
            if char == quote:
                quote = ""
            else:
                current += char
        elif char in "\"'":
            quote = char
        elif char == ".":
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return [p for p in parts if p]
