"""The core every reader shares: an API's argument facts, their checks, and what a reader returns.

A parser compiles one *reader* per API: a function from the model's raw input to the
checked keyword arguments. The readers of :class:`JsonParser` and :class:`TupleParser`
differ only in how they decode the input; naming the problems of decoded arguments
(unknown, missing, refused values) is the same for both and lives here, with the facts
of one API it reads (:class:`ApiArgs`, built once from the API's spec).

The reader protocol (one for every reader, the runtime relies on it):

* clean arguments come back as a plain ``dict`` (the fast path: nothing is wrapped);
* arguments read only after repairs come back as :class:`Repaired`, which carries
  the repairs to the record of the call;
* input the reader refuses comes back as a :class:`~lagent_like.ParseError`, returned,
  never raised: refusing is a path models take often, and raising costs about a
  microsecond more. Anything a reader raises is a fault of the parser.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional, Union

from .._private._names_index import SCANNED_WHOLE, NameIndex
from .._private.text import as_text, close_matches, listing, preview
from ..exceptions import ParseError
from ..types._validation import CHECK, UNCHECKED, Check, Refusal, Validator, check_of

if TYPE_CHECKING:
    from ..spec._describe import ApiSpec

__all__ = ["ApiArgs", "Read", "Reader", "Repaired", "check", "checked"]


class Repaired(NamedTuple):
    """Arguments a reader could read only after repairs, and those repairs.

    Attributes:
        args: the checked keyword arguments.
        repairs: what was repaired, in plain words (``"single quotes"``, ...).
    """

    args: dict[str, Any]
    repairs: list[str]


#: What a reader returns (see the module docstring).
Read = Union[dict[str, Any], Repaired, ParseError]
#: A compiled reader: raw model input in, a :data:`Read` out.
Reader = Callable[[Any], Read]


class ApiArgs:
    """The argument facts of one API that its reader checks against.

    Attributes:
        label: the name a model uses for the API (``'Tool.api'`` or ``'Tool'``).
        mode: the validation mode the checks were compiled for.
        order: parameter names in signature order.
        position: each parameter's index in ``order``.
        names: the same names as a set.
        required: names that must be given.
        open: the API also takes arbitrary keyword arguments.
        types: Lagent type name per parameter, for examples in messages.
        listing: the parameter names as shown in messages.
        checks: the check of each parameter that has a declared type (value in, the
            coerced value or a ``Refusal`` out).
        exact: per parameter, the one class whose values need no check, ``UNCHECKED`` for
            parameters without a check, ``CHECK`` for parameters always checked.
        whole: the check of the arguments together (a schema's top-level keywords), or ``None``.
        extra: with ``open``: the check of each argument that is not a parameter (the
            annotation of ``**kwargs: T``), or ``None`` to pass them on unchecked.
    """

    # Slots: these attributes are read on every call.
    __slots__ = (
        "checks",
        "exact",
        "extra",
        "index",
        "label",
        "listing",
        "mode",
        "names",
        "open",
        "order",
        "position",
        "required",
        "types",
        "whole",
    )

    def __init__(
        self,
        label: str,
        order: tuple[str, ...],
        required: list[str],
        open: bool,
        types: tuple[str, ...],
        validators: dict[str, Validator],
        exact: dict[str, Any],
        whole: Optional[Check] = None,
        mode: str = "coerce",
        extra: Optional[Check] = None,
    ) -> None:
        self.whole = whole
        self.extra = extra
        self.mode = mode
        self.label = label
        self.order = order
        self.position = {name: i for i, name in enumerate(order)}
        self.names = frozenset(order)
        self.required = frozenset(required)
        self.open = open
        self.types = types
        self.listing = listing(order)
        #: What close parameter names are looked up in (indexed when there are many).
        self.index: Union[tuple[str, ...], NameIndex] = (
            NameIndex(order) if len(order) > SCANNED_WHOLE else order
        )
        self.checks: dict[str, Check] = {
            name: check_of(v) for name, v in validators.items() if name in self.names
        }
        # Every parameter gets an entry: UNCHECKED (no check), its exact class (values of it
        # skip the check), or CHECK (a class no value has: always checked).
        self.exact = {name: exact.get(name, CHECK) if name in self.checks else UNCHECKED for name in order}

    @classmethod
    def of(cls, label: str, spec: ApiSpec, mode: str = "coerce") -> ApiArgs:
        """The argument facts of the API ``spec`` describes, called ``label``, in validation ``mode``."""
        validators, exact, whole = spec.checks_in(mode)
        return cls(
            label,
            tuple(p.name for p in spec.params),
            [p.name for p in spec.params if p.required],
            spec.accepts_any_kwargs,
            tuple(p.type for p in spec.params),
            validators,
            exact,
            whole,
            mode,
            spec.extra_check(mode),
        )

    def example_object(self) -> str:
        """The arguments as a JSON object with type placeholders, for messages."""
        fields = ", ".join(f'"{n}": <{t}>' for n, t in zip(self.order, self.types))
        return "{" + fields + "}"

    def example_tuple(self) -> str:
        """The arguments as a Python tuple with name and type placeholders, for messages."""
        items = ", ".join(f"<{n}: {t}>" for n, t in zip(self.order, self.types))
        return f"({items},)" if len(self.order) == 1 else f"({items})"


def check(api: ApiArgs, args: dict[str, Any]) -> Union[dict[str, Any], ParseError]:
    """Check names and types of every argument; return the coerced arguments.

    Otherwise return the ``ParseError`` listing every problem, parameters in signature
    order first, e.g. ``Calc.add: 'a' expected integer, got string 'x'; 'b' is required``.
    """
    problems: list[str] = []
    result: dict[str, Any] = {}
    order: Sequence[str] = api.order
    if len(order) > 4 * len(args) + 16:  # inlined: the common case costs one comparison
        order = _given_or_required(api, args)
    for name in order:
        if name in args:
            _check_value(api, name, args[name], result, problems)
        elif name in api.required:
            problems.append(f"{name!r} is required")
    if not args.keys() <= api.names:
        _extra_arguments(api, args, result, problems)
    if api.whole is not None and not problems:
        whole = api.whole(result)
        if type(whole) is Refusal:
            problems.append(whole.describe("", result))
        else:
            result = whole
    if problems:
        return ParseError(f"{api.label}: " + "; ".join(problems))
    return result


def _given_or_required(api: ApiArgs, args: dict[str, Any]) -> list[str]:
    """The parameters given and the required ones, in signature order.

    What :func:`check` looks at when an API has far more parameters than the call
    has arguments (a generated API may have thousands): the only ones that can have
    a problem.
    """
    given = {name for name in args if name in api.names}  # over the few arguments, not every parameter
    return sorted(given | api.required, key=api.position.__getitem__)


def _check_value(api: ApiArgs, name: str, value: Any, result: dict[str, Any], problems: list[str]) -> None:
    """Put parameter ``name``'s checked ``value`` into ``result``, or its problem into ``problems``."""
    expected = api.exact[name]
    if expected is UNCHECKED or type(value) is expected:
        result[name] = value
        return
    check = api.checks[name]
    try:
        checked_value = check(value)
    except Exception as exc:  # noqa: BLE001 - a faulty validator is reported, not raised
        problems.append(f"{name!r} could not be checked: {type(exc).__name__}: {exc}")
        return
    if type(checked_value) is not Refusal:
        result[name] = checked_value
    elif value is None and name not in api.required:
        # OpenAI strict mode makes optional fields required and nullable: a null the
        # type does not take means "not given" (the default applies).
        pass
    else:
        # Only a dict or list can hold strict mode's null fields: a refused scalar skips
        # the import (the "type error" benchmark row pays for it otherwise).
        retried = _check_again(check, value) if isinstance(value, (dict, list)) else checked_value
        if type(retried) is Refusal:
            problems.append(checked_value.describe(name, value))
        else:
            result[name] = retried


def _check_again(check: Check, value: Any) -> Any:
    """``check`` of ``value`` without its null fields, if it has any (a faulty validator refuses)."""
    from ..function_calling._dialects import has_null_field, without_nulls  # import time: failures only

    try:
        # Inside the try: a value nested past Python's recursion limit is refused as it was.
        if not has_null_field(value):
            return Refusal("a value its check accepts")
        return check(without_nulls(value))
    except Exception:  # noqa: BLE001 - reported with the first refusal
        return Refusal("a value its check accepts")


def checked(api: ApiArgs, args: dict[str, Any]) -> Union[dict[str, Any], ParseError]:
    """Check the values of well-named arguments, in one pass; the coerced arguments.

    Only values not of their parameter's exact class are checked, and the arguments
    are copied only when a check changed a value. Anything refused (or a check that
    fails) goes to :func:`check`, which lists every problem.
    """
    exact, checks = api.exact, api.checks
    changed = None
    for key, value in args.items():
        expected = exact.get(key, UNCHECKED)
        if expected is UNCHECKED or type(value) is expected:
            continue
        try:
            result = checks[key](value)
        except Exception:  # noqa: BLE001 - reported by check
            return check(api, args)
        if type(result) is Refusal:
            return check(api, args)
        if result is not value:
            if changed is None:
                changed = dict(args)
            changed[key] = result
    return args if changed is None else changed


def _extra_arguments(api: ApiArgs, args: dict[str, Any], result: dict[str, Any], problems: list[str]) -> None:
    """Pass the arguments that are not parameters on to an open API, else report them."""
    for key, value in args.items():
        if key in api.names:
            continue
        if api.open:
            if api.extra is None:
                result[key] = value
            else:
                _check_extra(api.extra, key, value, result, problems)
        else:
            matches = close_matches(as_text(key), api.index)
            hint = f" (did you mean {matches[0]!r}?)" if matches else ""
            problems.append(f"{preview(key)} is not a parameter{hint}; parameters: {api.listing}")


def _check_extra(extra: Check, key: Any, value: Any, result: dict[str, Any], problems: list[str]) -> None:
    """Put the checked ``value`` of an argument ``**kwargs: T`` takes into ``result``, or its problem."""
    try:
        checked_value = extra(value)
    except Exception as exc:  # noqa: BLE001 - a faulty validator is reported, not raised
        problems.append(f"{preview(key)} could not be checked: {type(exc).__name__}: {exc}")
        return
    if type(checked_value) is Refusal:
        problems.append(checked_value.describe(as_text(key), value))
    else:
        result[key] = checked_value
