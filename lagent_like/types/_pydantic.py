"""Pydantic models as parameter types: described by their own schema, checked by their own validator.

A parameter annotated with a pydantic (v2) model brings its validator with it, and that
validator decides: the argument goes to pydantic's ``validate_python`` as the model
sent it (no conversion by the type families first), the tool receives the model instance, and a
refusal names every failing field path at once (``'addr.zip' ...; 'addr.street' is
required``). The model's JSON Schema (fields, types, descriptions, required, defaults,
``$defs``) is what every export and the Lagent description show.

The same holds for ``Annotated`` metadata pydantic understands (``Field(ge=1)``,
``annotated_types.Gt(0)``, ``StringConstraints``, an ``AfterValidator``...): the
annotation's schema is pydantic's, with its constraints, and pydantic checks the
argument. Strings in the metadata stay descriptions; other objects stay ignored.

Pydantic stays optional: nothing here imports it unless an annotation needs it. A class
can only be a pydantic model when pydantic was imported already (by the module defining
the class), so ``sys.modules`` answers without importing it; ``annotated_types``
constraints, which need no pydantic to be written, import it when a tool uses them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from ._families import STRICT, Check, Refusal, describe_value

__all__ = [
    "annotated_problems",
    "field_default_problems",
    "field_description",
    "is_model",
    "is_pydantic_type",
    "model_check",
    "model_schema",
    "pydantic_metadata",
    "validation_refusal",
]

#: Modules whose ``Annotated`` metadata is pydantic's to read (constraints, validators, ``Field``).
_PYDANTIC_MODULES = ("pydantic", "annotated_types")


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


def is_pydantic_type(cls: Any) -> bool:
    """Whether pydantic validates class ``cls`` by a schema of its own, not a model's (never imports it).

    That is ``HttpUrl``, ``SecretStr``, ``EmailStr`` and any class with pydantic's
    ``__get_pydantic_core_schema__`` hook: the peers built on pydantic (the OpenAI
    Agents SDK, LangChain) read them from their JSON form, so pydantic does here too.
    """
    if "pydantic" not in sys.modules or not isinstance(cls, type) or is_model(cls):
        return False
    return callable(getattr(cls, "__get_pydantic_core_schema__", None))


def pydantic_metadata(meta: Iterable[Any]) -> bool:
    """Whether ``Annotated`` metadata holds something pydantic reads (never imports pydantic).

    That is an object of pydantic or ``annotated_types`` (``Field(...)``, ``Gt(0)``,
    ``StringConstraints``...), or, once pydantic is imported, any object with pydantic's
    hooks. Strings (descriptions) and other objects are not.
    """
    for item in meta:
        if isinstance(item, str):
            continue
        module = type(item).__module__
        if module.partition(".")[0] in _PYDANTIC_MODULES:
            return True
        if "pydantic" in sys.modules and (
            hasattr(item, "__get_pydantic_core_schema__") or hasattr(item, "__get_pydantic_json_schema__")
        ):
            return True
    return False


def _field_infos(annotation: Any) -> list[Any]:
    """The pydantic ``FieldInfo`` objects in the top-level ``Annotated`` metadata of ``annotation``."""
    fields = sys.modules.get("pydantic.fields")
    meta = getattr(annotation, "__metadata__", None)
    if fields is None or not isinstance(meta, tuple):
        return []
    return [item for item in meta if isinstance(item, fields.FieldInfo)]


def field_description(annotation: Any) -> Optional[str]:
    """The ``description`` of a ``Field(...)`` in ``Annotated[X, Field(description=...)]``, else ``None``."""
    for info in _field_infos(annotation):
        if info.description:
            return str(info.description)
    return None


def annotated_problems(name: str, annotation: Any) -> list[str]:
    """What a parameter's ``Annotated`` metadata asks that a tool cannot do, as definition problems.

    ``Field(default=...)`` would leave the signature's default and the schema's apart,
    and ``Field(alias=...)`` renames the argument the model writes away from the
    parameter the tool receives; constraints pydantic reads cannot be checked without
    pydantic.
    """
    meta = getattr(annotation, "__metadata__", None)
    if not isinstance(meta, tuple) or not pydantic_metadata(meta):
        return []
    if _pydantic() is None:
        return [
            f"parameter {name!r} has constraints in Annotated that only pydantic checks; install pydantic"
        ]
    problems = []
    undefined = sys.modules["pydantic_core"].PydanticUndefined
    for info in _field_infos(annotation):
        if info.default is not undefined or info.default_factory is not None:
            problems.append(
                f"parameter {name!r} has a default in Field(...); give it in the signature instead "
                f"({name}: Annotated[..., Field(...)] = value)"
            )
        if info.alias or info.validation_alias:
            problems.append(
                f"parameter {name!r} has an alias in Field(...); a model writes the parameter's own name, "
                f"so rename the parameter instead"
            )
    return problems


def field_default_problems(params: Iterable[tuple[str, Any, Any]]) -> list[str]:
    """Definition problems of parameters whose default is a pydantic ``Field(...)``.

    Args:
        params: ``(name, kind, default)`` of each parameter, as describing reads them.
    """
    fields = sys.modules.get("pydantic.fields")
    if fields is None:  # no Field(...) can exist
        return []
    return [
        f"parameter {name!r} has Field(...) as its default, which the tool would receive; "
        f"write {name}: Annotated[type, Field(...)] = default (or no default) instead"
        for name, _, default in params
        if isinstance(default, fields.FieldInfo)
    ]


def _pydantic() -> Any:
    """The pydantic module, imported now if need be; ``None`` when it is not installed."""
    try:
        return sys.modules.get("pydantic") or importlib.import_module("pydantic")
    except ImportError:
        return None


def _adapter(cls: Any) -> Any:
    pydantic = _pydantic()
    if pydantic is None:  # annotated_types constraints below a parameter's top level
        raise ImportError(f"{cls!r} has constraints only pydantic checks; install pydantic")
    return pydantic.TypeAdapter(cls)


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
    validate = _adapter(cls).validate_python
    error_class = sys.modules["pydantic"].ValidationError
    strict = True if mode == STRICT else None
    expected = f"a valid {_name_of(cls)}"

    def check(value: Any) -> Any:
        try:
            return validate(value, strict=strict)
        except error_class as exc:
            return validation_refusal(exc.errors(include_url=False), value, expected, top)

    return check


def _name_of(annotation: Any) -> str:
    """A model's name; an ``Annotated`` type (which has none) is said as the type it constrains."""
    while not isinstance(annotation, type) and hasattr(annotation, "__origin__"):
        annotation = annotation.__origin__
    return str(getattr(annotation, "__name__", None) or annotation)


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
