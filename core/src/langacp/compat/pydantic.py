"""pydantic: a model instance made from values validation would keep as they are, without validating them.

Validating a small SDK model (a ``TextContentBlock``) costs more than making the instance, and a
replay makes thousands whose values are known to be what validation keeps (an exact ``str``).
``model_construct`` (the public way) is slower than validating. :func:`made` sets what
validation sets: the instance's ``__dict__`` (every field, in the class's field order), the set
of fields given, and no extra or private values; ``core/tests/test_compat.py`` pins that the
result equals, dumps and copies as the validated one does.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["made"]

M = TypeVar("M", bound=BaseModel)

_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_new = object.__new__
_set = object.__setattr__


def made(cls: type[M], values: dict[str, Any], given: set[str]) -> M:
    """``cls`` holding ``values`` (every field, in field order) with ``given`` as the fields set.

    Only for a class without extra values, private attributes or validators that change a value,
    and values validation keeps as they are (the caller's job: see its pinning test).
    """
    instance: M = _new(cls)
    _set(instance, "__dict__", values)
    _set_fields(instance, given)
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance
