"""Pydantic models as parameter types: described by their own schema, checked by their own validator.

A parameter annotated with a pydantic (v2) model brings its validator with it, and that
validator decides: the argument goes to pydantic's ``validate_python`` as the model
sent it (no conversion by the type families first), the tool receives the model instance, and a
refusal names every failing field path at once (``'addr.zip' ...; 'addr.street' is
required``). The model's JSON Schema (fields, types, descriptions, required, defaults,
``$defs``) is what every export and the Lagent description show.

Pydantic stays optional: nothing here imports it. A class can only be a pydantic model
when pydantic was imported already (by the module defining the class), so
``sys.modules`` answers without importing it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

from .families import STRICT, Check, Refusal, describe_value

__all__ = ["is_model", "model_check", "model_schema", "validation_refusal"]


def is_model(cls: Any) -> bool:
    """Whether ``cls`` is a pydantic v2 model class or pydantic dataclass (never imports pydantic)."""
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(cls, type):
        return False
    try:
        if issubclass(cls, pydantic.BaseModel):
            return True
    except TypeError:  # a generic alias posing as a class
        return False
    dataclasses = sys.modules.get("pydantic.dataclasses")
    return dataclasses is not None and bool(dataclasses.is_pydantic_dataclass(cls))


def _adapter(cls: Any) -> Any:
    return sys.modules["pydantic"].TypeAdapter(cls)


def model_schema(cls: Any) -> dict[str, Any]:
    """The JSON Schema pydantic gives ``cls`` (validation mode; ``$defs`` at its top when needed)."""
    schema: dict[str, Any] = _adapter(cls).json_schema()
    return schema


def model_check(cls: Any, mode: str, top: bool = False) -> Check:
    """The check of an argument annotated ``cls``: the model instance, or a refusal naming each field.

    In the ``"strict"`` validation mode the model validates strictly too; otherwise its
    own configuration says how strict it is. With ``top``, the value is a call's whole
    arguments (see :func:`validation_refusal`).
    """
    error_class = sys.modules["pydantic"].ValidationError
    validate = _adapter(cls).validate_python
    strict = True if mode == STRICT else None

    def check(value: Any) -> Any:
        try:
            return validate(value, strict=strict)
        except error_class as exc:
            return validation_refusal(exc.errors(include_url=False), value, f"a valid {cls.__name__}", top)

    return check


def validation_refusal(
    errors: Iterable[Mapping[str, Any]], given: Any, expected: str, top: bool = False
) -> Refusal:
    """One refusal naming every error of a pydantic ``ValidationError`` by its field path.

    Args:
        errors: ``ValidationError.errors()``.
        given: the value that was validated.
        expected: what was expected, for the ``ArgumentError`` a validator raises.
        top: the value is a call's whole arguments, so the first key of a path names a
            parameter (``'addr.zip'``, not ``'.addr.zip'``).
    """
    parts = tuple(_part(error, top) for error in errors)
    return Refusal(expected, given, parts=parts)


def _part(error: Mapping[str, Any], top: bool) -> Refusal:
    path = _path(error.get("loc", ()), top)
    if error.get("type") == "missing":
        return Refusal("", path=path, sentence="is required")
    # A message about the value as a whole has no path below the parameter.
    sentence = f"{error.get('msg', 'is not valid')} (got {describe_value(error.get('input'))})"
    return Refusal("", path=path, sentence=_lowered(sentence))


def _lowered(sentence: str) -> str:
    """``'Input should ...'`` as the second half of ``"'x' input should ..."``."""
    return sentence[:1].lower() + sentence[1:] if sentence[1:2].islower() else sentence


def _path(loc: Iterable[Any], top: bool) -> str:
    """``('addr', 0, 'zip')`` as ``'.addr[0].zip'`` (``'addr[0].zip'`` at the top)."""
    path = ""
    for key in loc:
        if isinstance(key, int):
            path += f"[{key}]"
        else:
            path += key if top and not path else f".{key}"
    return path
