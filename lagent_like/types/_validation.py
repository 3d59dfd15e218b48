"""Check a model's arguments against the declared Python annotations: a view of the one validator.

Each parameter gets a check compiled once, when its action is created: a function
that returns the (possibly converted) value or a :class:`Refusal` saying what was
expected and what arrived. There is one validator: an annotation becomes its JSON
Schema (``json_schema.py``, carrying the Python values to build: tuple, set,
dataclass, Enum member, TypedDict), which the schema compiler
(``schema_validation.py``) turns into the check, exactly as for tools defined by a
schema; plain classes (``int``, ``str``...) take their family's check directly.

There is one error protocol for a refused argument (see :class:`~.families.Refusal`):
a check returns a :class:`Refusal`; a *validator* (what ``BaseAction.argument_checks``
hands out, :func:`validator_of`) raises the same refusal as the public
:class:`~lagent_like.ArgumentError`, and :func:`check_of` turns a
validator back into its check (the parsers call checks, and skip raising).
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

from ..exceptions import ArgumentError
from . import _families as fam
from ._families import COERCE, ITSELF, OFF, Check, Refusal, describe_value
from ._json_schema import schema_of

__all__ = [
    "UNCHECKED",
    "CHECK",
    "ITSELF",
    "Check",
    "Refusal",
    "Validator",
    "check_of",
    "compile_check",
    "compile_validator",
    "describe_value",
    "exact_type",
    "validator_of",
]

Validator = Callable[[Any], Any]


_accept = fam.accept

#: The family check of each plain class (``str``, ``int``, ..., ``Any``), per mode: the
#: common annotations, settled without building a schema.
_SCALARS_BY_MODE: dict[str, dict[Any, Check]] = {
    mode: {
        **{cls: f.checks[mode] for f in (fam.STRING, fam.INTEGER, fam.NUMBER, fam.BOOLEAN, fam.NULL)
           for cls in f.classes[:1]},
        **dict.fromkeys(fam.ANY.classes, _accept),
    }
    for mode in fam.MODES
}  # fmt: skip

#: Marks a parameter without a check in the parsers' table of exact types.
UNCHECKED: Any = object()


class CHECK:
    """Marks a parameter that is always checked: no value has this class."""


#: Exact types whose values need no check call at all (the parser's fast path).
EXACT: dict[Any, type] = {f.exact: f.exact for f in fam.FAMILIES if f.exact is not None}


def compile_check(annotation: Any, mode: str = COERCE) -> Check:
    """Build the check of one resolved annotation in ``mode``: value in, value or :class:`Refusal` out.

    The annotation becomes its JSON Schema (with the Python values to build), which the
    one schema compiler turns into the check; plain classes take their family's check.
    """
    if mode == OFF:
        return _accept
    try:
        scalar = _SCALARS_BY_MODE[mode].get(annotation)
    except TypeError:  # an unhashable annotation object
        scalar = None
    if scalar is not None:
        return scalar
    from ._schema_compiler import SchemaCompiler  # import time: builds the checks of compound types only

    schema = schema_of(annotation, python=True)
    return SchemaCompiler(schema, mode).compile(schema, "annotation")


# --- validators: checks that raise ---------------------------------------------------

#: The check behind each validator made by :func:`validator_of`, so that callers on
#: the hot path (the parsers) call the check and skip raising.
_CHECK_OF: weakref.WeakKeyDictionary[Validator, Check] = weakref.WeakKeyDictionary()


def validator_of(check: Check) -> Validator:
    """The validator of ``check``: returns the value or raises :class:`~lagent_like.ArgumentError`."""

    def validate(value: Any) -> Any:
        result = check(value)
        if type(result) is Refusal:
            raise result.error(value)
        return result

    _CHECK_OF[validate] = check
    return validate


def check_of(validator: Validator) -> Check:
    """The check behind ``validator``: returns the value or a :class:`Refusal`.

    A validator not made by :func:`validator_of` (one a tool supplies, raising
    :class:`~lagent_like.ArgumentError`) is wrapped; its other exceptions propagate.
    """
    try:
        known = _CHECK_OF.get(validator)
    except TypeError:  # not weakly referenceable
        known = None
    if known is not None:
        return known

    def check(value: Any) -> Any:
        try:
            return validator(value)
        except ArgumentError as exc:
            return Refusal.of(exc)

    return check


def compile_validator(annotation: Any, mode: str = COERCE) -> Validator:
    """Build the validator of one resolved annotation (raising :class:`~lagent_like.ArgumentError`)."""
    return validator_of(compile_check(annotation, mode))


def exact_type(annotation: Any) -> Optional[type]:
    """The one class a value may have to skip validation, if the annotation is that simple."""
    try:
        return EXACT.get(annotation)
    except TypeError:  # an unhashable annotation object
        return None
