"""Records hold JSON values: the arguments a tool received, as the JSON that was sent.

A tool receives the objects its annotations ask for (an ``Enum`` member, a dataclass,
a pydantic model, a tuple), but its record is data: saved in traces, sent to the
inspector page and over MCP, compared after a reload. So the record's ``args`` are
the checked arguments as JSON (:func:`json_value`). Whether an API's arguments need
that conversion is decided once, when its route is built (:func:`json_args_of`): the
arguments of most APIs are plain JSON already and their calls pay nothing.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Optional

from .._private.json_values import PLAIN, json_value

if TYPE_CHECKING:
    from ..spec._api_spec import ApiSpec

__all__ = ["json_args", "json_args_of"]


def json_args(args: dict[str, Any]) -> dict[str, Any]:
    """A record's ``args``: the checked arguments as JSON (see :func:`json_value`)."""
    return {key: json_value(value) for key, value in args.items()}


def json_args_of(spec: ApiSpec) -> Optional[Callable[[dict[str, Any]], dict[str, Any]]]:
    """:func:`json_args` when API ``spec``'s checked arguments may be other than JSON, else ``None``.

    Arguments checked by a JSON Schema are JSON; those checked by a Python annotation
    are when the annotation builds nothing beyond JSON (``str``, ``list[int]``,
    ``Optional[dict[str, Any]]``, a ``TypedDict``, a ``Literal`` of JSON values).
    """
    if spec.schema is not None:
        return None
    from ..spec._api_spec import NO_DEFAULT

    for param in spec.params:
        if param.check is not None or (param.declared is not NO_DEFAULT and _builds_python(param.declared)):
            return json_args
    return None


def _builds_python(annotation: Any) -> bool:
    """Whether arguments checked against ``annotation`` may be Python objects, not JSON.

    Speed (the cold export row): every executor makes its own built-in actions, so the
    same few annotations are asked about again and again; answers are kept per
    annotation (an unhashable one is read each time).
    """
    try:
        return _answers[annotation]
    except KeyError:
        if len(_answers) > 4096:  # made on the fly (Literal[...] per request): start again
            _answers.clear()
        answer = _answers[annotation] = _reads_python(annotation)
    except TypeError:
        answer = _reads_python(annotation)
    return answer


#: :func:`_builds_python`'s answers, per annotation (few: a program's annotations).
_answers: dict[Any, bool] = {}


def _reads_python(annotation: Any) -> bool:
    from ..types._json_schema import schema_of

    try:
        schema = schema_of(annotation, python=True)
    except Exception:  # noqa: BLE001 - an annotation the schema cannot read: convert to be safe
        return True
    return _python_node(schema)


def _python_node(node: Any) -> bool:
    from ..types._json_schema import PYTHON

    if isinstance(node, list):
        return any(_python_node(item) for item in node)
    if not isinstance(node, dict):
        return False
    info = node.get(PYTHON)
    if info is not None and not _json_built(info):
        return True
    return any(_python_node(value) for key, value in node.items() if key != PYTHON)


def _json_built(info: Any) -> bool:
    """Whether a ``$python`` node builds a JSON value (a list, a dict with string keys, ...)."""
    kind = info.kind
    if kind == "literal":
        return all(type(value) in PLAIN for value in info.values)
    if kind == "sequence":
        return info.build is list
    if kind == "mapping":
        return info.key in ({}, None) or info.key.get("type") == "string"
    if kind == "fields":
        return not dataclasses.is_dataclass(info.cls)
    if kind == "instance":  # Any takes the value as sent: JSON, with nothing to convert
        return info.cls is Any or info.cls is object
    return False
