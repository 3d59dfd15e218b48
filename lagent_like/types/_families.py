"""The one table of type families: what every part of the package knows about a type.

A model sends JSON, so every value an argument can take belongs to one of eight
families: string, integer, number, boolean, array, object, null and any. Each row of
:data:`FAMILIES` says everything the package knows about one family: its JSON Schema
type, the word Lagent's descriptions use for it, the Python classes and the type
words (in docstrings and in schema dialects) that stand for it, the one class whose
values skip checking, and its check in each validation mode. Every other table (class
to Lagent word, word to JSON type, ...) is a view of this one, built below.

Validation modes:

* ``"coerce"`` (the default): every lossless, unambiguous conversion (``"3"`` -> 3,
  ``3.0`` -> 3, ``42`` -> ``"42"`` for a string, ``"true"`` -> True, a JSON text for
  an array or object);
* ``"strict"``: the value's JSON type must be the declared one (an integral number is
  an integer and an integer a number, as JSON Schema says; nothing else converts);
* ``"off"``: no type checks at all (Lagent's behaviour: only names are checked).
"""

from __future__ import annotations

import collections
import collections.abc
import json
import math
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from .._private.text import MAX_SHOWN, preview

if TYPE_CHECKING:
    from ..exceptions import ArgumentError

#: A check: a value in, the (possibly converted) value or a ``Refusal`` out.
Check = Callable[[Any], Any]

COERCE = "coerce"
STRICT = "strict"
OFF = "off"
#: The validation modes, the default first.
MODES = (COERCE, STRICT, OFF)


class _Itself:
    """Type of :data:`ITSELF`."""

    def __repr__(self) -> str:
        return "ITSELF"


#: A refusal's value when it is the value the check was given (so that refusals of
#: scalars can be constants: a refused call allocates nothing until its message).
ITSELF: Any = _Itself()


#: Refusals of several places inside one argument (see :attr:`Refusal.parts`).
_Parts = tuple["Refusal", ...]


class Refusal:
    """What a check returns for a value it refuses: the one error protocol of checks.

    A refused argument is one thing with two forms: this one, *returned* by a check, and
    the public :class:`~lagent_like.ArgumentError`, *raised* by a validator
    (``BaseAction.argument_checks``) and by a tool's own validator. Both carry the same
    fields and are worded by :meth:`describe`; :meth:`error` and :meth:`of` turn one
    into the other, at the boundary only (``types/validation.py``). Checks return
    instead of raising because raising and catching costs about a microsecond, on a
    path models take often. Nothing is formatted until :meth:`describe`, which runs
    once per refused argument.

    Attributes:
        expected: what was expected, in JSON words (``'integer'``, ``"one of ['C', 'F']"``).
        value: what arrived, or ``ITSELF`` for the value given to the check.
        path: where inside the argument (``'[2]'``, ``'.city'``; empty at the top).
        sentence: a whole sentence to say instead of ``expected ..., got ...``.
        parts: refusals of several places at once (a tool's own validator, such as a pydantic
            model, reports every failing field), paths below this one; said instead of this one.
    """

    __slots__ = ("expected", "parts", "path", "sentence", "value")

    def __init__(
        self, expected: str, value: Any = ITSELF, path: str = "", sentence: str = "", parts: _Parts = ()
    ) -> None:
        self.expected, self.value, self.path = expected, value, path
        self.sentence, self.parts = sentence, parts

    def __repr__(self) -> str:
        return f"Refusal({self.expected!r}, {self.value!r}, {self.path!r})"

    def got(self, given: Any) -> Any:
        """The refused value, for a check that was given ``given``."""
        return given if self.value is ITSELF else self.value

    def at(self, prefix: str, given: Any) -> Refusal:
        """This refusal seen from one level up: ``prefix`` (``'[1]'``, ``'.x'``) before its path."""
        return Refusal(self.expected, self.got(given), prefix + self.path, self.sentence, self.parts)

    def describe(self, name: str, given: Any) -> str:
        """``"'a[1]' expected integer, got string 'x'"`` for parameter ``name`` given ``given``.

        The one wording of a refused argument. With an empty name and path (a check of
        all the arguments together) the subject is "the arguments".
        """
        where = name + self.path
        if self.parts:
            return "; ".join(part.describe(where, part.value) for part in self.parts)
        subject = repr(where) if where else "the arguments"
        if self.sentence:
            return f"{subject} {self.sentence}"
        return f"{subject} expected {self.expected}, got {describe_value(self.got(given))}"

    def error(self, given: Any) -> ArgumentError:
        """The :class:`~lagent_like.ArgumentError` a validator raises for this refusal."""
        from ..exceptions import ArgumentError

        return ArgumentError(self.expected, self.got(given), self.path, self.parts)

    @classmethod
    def of(cls, error: ArgumentError) -> Refusal:
        """The refusal an :class:`~lagent_like.ArgumentError` stands for (see :meth:`error`)."""
        return cls(error.expected, error.value, error.path, parts=getattr(error, "parts", ()))


def refusal(expected: str) -> Refusal:
    """A constant refusal of the value given to the check."""
    return Refusal(expected, ITSELF)


def describe_value(value: Any) -> str:
    """``string 'x'``, ``number 2.5``, ``null``: a value as a model would name it."""
    if type(value) is str:
        text = repr(value)
        if len(text) <= MAX_SHOWN:
            return "string " + text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {json.dumps(value)}"
    family = FAMILY_OF_CLASS.get(type(value))
    if family is not None:
        kind = family.json
    else:
        kind = "number" if isinstance(value, (int, float)) else type(value).__name__
    return f"{kind} {preview(value)}"


def parse_json_text(value: Any, kind: type) -> Any:
    """A JSON text of an array or object, parsed (models often send them so); else ``value``."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        if isinstance(parsed, kind):
            return parsed
    return value


# --- the checks of each family, per mode ------------------------------------------------

_NOT_STRING = refusal("string")
_NOT_INTEGER = refusal("integer")
_NOT_NUMBER = refusal("number")
_NOT_BOOLEAN = refusal("boolean")
_NOT_NULL = refusal("null")
_NOT_ARRAY = refusal("array")
_NOT_OBJECT = refusal("object")


def _strict_str(value: Any) -> Any:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    return _NOT_STRING


def _coerce_str(value: Any) -> Any:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    # A number has one JSON text; a boolean has two spellings ('true', 'True'): refused.
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return str(int(value))
        except ValueError:  # more digits than str() converts
            return _NOT_STRING
    if isinstance(value, float) and math.isfinite(value):
        return json.dumps(float(value))
    return _NOT_STRING


def _int_from_text(text: str) -> Any:
    # An optional sign and ASCII digits only (other scripts' digits and '1_000' are refused).
    text = text.strip()
    digits = text[1:] if text[:1] in ("+", "-") else text
    if digits.isdigit() and digits.isascii():
        try:
            return int(text)
        except ValueError:  # more digits than int() converts
            pass
    return _NOT_INTEGER


def _strict_int(value: Any) -> Any:
    if type(value) is int:
        return value
    if not isinstance(value, bool):
        if isinstance(value, int):  # int subclasses (IntEnum members, NumPy integers)
            return int(value)
        if isinstance(value, float) and value.is_integer():  # JSON's 3.0 is an integer
            return int(value)
    return _NOT_INTEGER


def _coerce_int(value: Any) -> Any:
    kind = type(value)
    if kind is int:
        return value
    if kind is str:
        # The common coercion ("3") first, without stripping or slicing.
        if value.isdigit() and value.isascii() and len(value) < 4300:
            return int(value)
        return _int_from_text(value)
    if isinstance(value, str):  # str subclasses
        return _int_from_text(str(value))
    return _strict_int(value)


def _strict_float(value: Any) -> Any:
    if type(value) is float:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return _NOT_NUMBER
    return _NOT_NUMBER


def _coerce_float(value: Any) -> Any:
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return _NOT_NUMBER
        return number if math.isfinite(number) else _NOT_NUMBER
    return _strict_float(value)


def _strict_json_number(value: Any) -> Any:
    # JSON Schema's number: an integer is one and stays one (3 is not 3.0 to a tool that hashes it).
    if isinstance(value, int) and not isinstance(value, bool):
        return value if type(value) is int else int(value)  # int subclasses: IntEnum, NumPy
    return _strict_float(value)


def _coerce_json_number(value: Any) -> Any:
    if isinstance(value, str):
        # The text of a number reads as JSON would read it unquoted: "3" is 3, "3.5" is 3.5.
        number = _int_from_text(value)
        return number if type(number) is int else _coerce_float(value)
    return _strict_json_number(value)


_BOOL_WORDS = {"true": True, "false": False}


def _strict_bool(value: Any) -> Any:
    return value if type(value) is bool else _NOT_BOOLEAN


def _coerce_bool(value: Any) -> Any:
    if type(value) is bool:
        return value
    if isinstance(value, str):
        word = _BOOL_WORDS.get(value.strip().lower())
        if word is not None:
            return word
    return _NOT_BOOLEAN


def _check_none(value: Any) -> Any:
    return None if value is None else _NOT_NULL


def _strict_array(value: Any) -> Any:
    if isinstance(value, (list, tuple, set, frozenset, collections.deque)):
        return value
    return _NOT_ARRAY


def _coerce_array(value: Any) -> Any:
    return _strict_array(parse_json_text(value, list))


def _strict_object(value: Any) -> Any:
    return value if isinstance(value, dict) else _NOT_OBJECT


def _coerce_object(value: Any) -> Any:
    return _strict_object(parse_json_text(value, dict))


def accept(value: Any) -> Any:
    """The check of the ``any`` family (and of every family in mode ``"off"``)."""
    return value


# --- the table ------------------------------------------------------------------------


class Family(NamedTuple):
    """One type family: a row of :data:`FAMILIES`.

    Attributes:
        json: its JSON Schema type word (``'any'``: no type).
        lagent: the type word of Lagent's descriptions.
        classes: the Python classes that stand for it (looked up along the MRO).
        words: type words that name it in docstrings (``'list of str'``, ``'Optional[int]'``).
        schema_words: type words that name it in JSON Schema dialects (``'int'``, ``'dict'``).
        exact: the class whose values skip checking, if one class says it all.
        checks: its check per validation mode.
        keywords: the JSON Schema keywords that only apply to it.
    """

    json: str
    lagent: str
    classes: tuple[Any, ...]
    words: tuple[str, ...]
    schema_words: tuple[str, ...]
    exact: Optional[type]
    checks: dict[str, Check]
    keywords: frozenset[str] = frozenset()


def _modes(coerce: Check, strict: Check) -> dict[str, Check]:
    """A family's check per validation mode (mode ``"off"`` checks nothing)."""
    return {COERCE: coerce, STRICT: strict, OFF: accept}


STRING = Family(
    "string", "STRING", (str, bytes), ("str", "string", "bytes"), ("string", "str"), str,
    _modes(_coerce_str, _strict_str), frozenset({"minLength", "maxLength", "pattern"}),
)  # fmt: skip
INTEGER = Family(
    "integer", "NUMBER", (int,), ("int", "integer"), ("integer", "int"), int, _modes(_coerce_int, _strict_int)
)
NUMBER = Family(
    "number", "FLOAT", (float,), ("float", "number"), ("number", "float"), float,
    _modes(_coerce_float, _strict_float),
    frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
)  # fmt: skip
BOOLEAN = Family(
    "boolean", "BOOLEAN", (bool,), ("bool", "boolean"), ("boolean", "bool"), bool,
    _modes(_coerce_bool, _strict_bool),
)  # fmt: skip
ARRAY = Family(
    "array", "Array",
    (list, tuple, set, frozenset, collections.deque, collections.abc.Sequence, collections.abc.Set,
     collections.abc.Iterable),
    ("list", "tuple", "set", "sequence", "iterable", "array"), ("array", "list", "tuple"), None,
    _modes(_coerce_array, _strict_array),
    frozenset({"minItems", "maxItems", "uniqueItems", "items", "prefixItems", "contains", "minContains",
               "maxContains", "additionalItems"}),
)  # fmt: skip
OBJECT = Family(
    "object", "OBJECT", (dict, collections.abc.Mapping), ("dict", "mapping", "object"), ("object", "dict"),
    None, _modes(_coerce_object, _strict_object),
    frozenset({"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
               "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies"}),
)  # fmt: skip
NULL = Family(
    "null", "STRING", (type(None),), ("none", "null"), ("null",), None, _modes(_check_none, _check_none)
)
#: A family's check -> its exact class, for the checks that return a value of that class
#: unchanged: an array of such values needs no check per item (see ``_python_values``).
KEEPS_EXACT: dict[Check, type] = {
    check: family.exact
    for family in (STRING, INTEGER, NUMBER, BOOLEAN)
    if family.exact is not None
    for mode, check in family.checks.items()
    if mode != OFF
}
ANY = Family("any", "STRING", (object, Any), ("any",), ("any",), None, _modes(accept, accept))
#: JSON Schema's ``number`` per mode where the schema is the tool's own (schema tools): integers
#: stay integers. An annotation's ``float`` takes :data:`NUMBER`'s checks (3 -> 3.0, as pydantic).
JSON_NUMBER_CHECKS: dict[str, Check] = _modes(_coerce_json_number, _strict_json_number)

#: Every family; a class or word belongs to the first row naming it.
FAMILIES: tuple[Family, ...] = (BOOLEAN, STRING, INTEGER, NUMBER, ARRAY, OBJECT, NULL, ANY)

# --- views of the table -----------------------------------------------------------------

#: Family of each class (``object`` only by itself: the MRO walk stops before it).
FAMILY_OF_CLASS: dict[Any, Family] = {cls: f for f in reversed(FAMILIES) for cls in f.classes}
#: Family of each docstring type word (lower case).
FAMILY_OF_WORD: dict[str, Family] = {w: f for f in reversed(FAMILIES) for w in f.words}
#: Family of each JSON Schema type word, dialects included (``int``, ``dict``, ``any``).
FAMILY_OF_SCHEMA_WORD: dict[str, Family] = {w: f for f in reversed(FAMILIES) for w in f.schema_words}
#: Family of each JSON Schema type.
FAMILY_OF_JSON: dict[str, Family] = {f.json: f for f in FAMILIES}
#: Family of each Lagent type word (the first row using it: STRING is the string family).
FAMILY_OF_LAGENT: dict[str, Family] = {f.lagent: f for f in reversed(FAMILIES)}
#: Families of the keywords that apply to one family only.
FAMILY_OF_KEYWORD: dict[str, Family] = {k: f for f in FAMILIES for k in f.keywords}


def family_of_class(cls: type) -> Family:
    """The family of a class, along its MRO (``bool`` before ``int``); the string family if none."""
    for klass in cls.__mro__[:-1] if len(cls.__mro__) > 1 else cls.__mro__:
        family = FAMILY_OF_CLASS.get(klass)
        if family is not None:
            return family
    return STRING


def family_of_value(value: Any) -> Optional[Family]:
    """The family of a JSON value (``None`` for a value JSON does not have)."""
    family = FAMILY_OF_CLASS.get(type(value))
    return family if family is not None and family is not ANY else None


def mode_problem(mode: Any) -> Optional[str]:
    """What is wrong with ``mode`` as a validation mode, or ``None`` when it is one."""
    return None if mode in MODES else f"validation must be one of {list(MODES)}, got {mode!r}"


def check_mode(mode: Any, owner: str) -> str:
    """``mode`` if it is a validation mode, else a ``ToolDefinitionError`` naming ``owner``."""
    problem = mode_problem(mode)
    if problem is not None:
        from ..exceptions import ToolDefinitionError

        raise ToolDefinitionError(owner, [problem])
    return str(mode)


def fits(kind: str, value: Any) -> bool:
    """Whether ``value`` already is of JSON type ``kind`` (no conversion): an integer is a number."""
    if kind == "any":
        return True
    family = family_of_value(value)
    if family is None:
        return False
    return family.json == kind or (kind == "number" and family is INTEGER)


def is_number(value: Any) -> bool:
    """A JSON number: an ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``1 == 1.0``, but ``True != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(json_equal, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)
