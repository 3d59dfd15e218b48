"""Parsers: turn what a model wrote into keyword arguments, and results into text.

A parser is chosen per action (``BaseAction(parser=JsonParser)``). It does three jobs:
it tells the model how to pass arguments (``PARAMETER_DESCRIPTION``, inserted into the
action's description as ``parameter_description``), it parses and checks the model's
argument string for one API (``parse_inputs``), and it renders a tool's return value
as result items (``parse_outputs``).

Everything a parser needs per API is computed in its constructor: it compiles one
*reader* per API, a closure from raw input to checked keyword arguments, and actions
call that reader directly on every call. A subclass that overrides ``parse_inputs``
(Lagent's way of writing a parser) still works: its readers call ``parse_inputs``.
"""

from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING, Any, Callable, Union

from .._private.lenient_json import loads_lenient
from .._private.text import as_text, close_matches, did_you_mean, fenced_blocks, preview
from .._private.validation import ANY, CHECK, Invalid, Validator
from ..exceptions import ParseError, ToolDefinitionError

if TYPE_CHECKING:
    from .base_action import BaseAction

#: A compiled reader: raw model input in, keyword arguments out. What is wrong comes
#: back as a ``ParseError``, returned on the common rejection paths and raised on others.
Reader = Callable[[Any], "Union[dict[str, Any], ParseError]"]

__all__ = ["BaseParser", "JsonParser", "TupleParser"]


class _ApiArgs:
    """The argument facts of one API that ``parse_inputs`` checks against.

    Attributes:
        label: the name a model uses for the API (``'Tool.api'`` or ``'Tool'``).
        order: parameter names in signature order.
        names: the same names as a set.
        required: names that must be given.
        open: the API also takes arbitrary keyword arguments.
        types: Lagent type name per parameter, for examples in messages.
        listing: the parameter names as shown in messages.
        validators: the check of each parameter that has a declared type.
        exact: per parameter, the one class whose values need no check, ``ANY`` for
            parameters without a check, ``CHECK`` for parameters always checked.
    """

    # Slots: these attributes are read on every call.
    __slots__ = ("exact", "label", "listing", "names", "open", "order", "required", "types", "validators")

    def __init__(
        self,
        label: str,
        order: tuple[str, ...],
        required: list[str],
        open: bool,
        types: tuple[str, ...],
        validators: dict[str, Validator],
        exact: dict[str, Any],
    ) -> None:
        self.label = label
        self.order = order
        self.names = frozenset(order)
        self.required = frozenset(required)
        self.open = open
        self.types = types
        self.listing = ", ".join(order) or "none"
        self.validators = {name: v for name, v in validators.items() if name in self.names}
        # Every parameter gets an entry: ANY (no check), its exact class (values of it
        # skip the check), or CHECK (a class no value has: always checked).
        self.exact = {name: exact.get(name, CHECK) if name in self.validators else ANY for name in order}

    def example_object(self) -> str:
        fields = ", ".join(f'"{n}": <{t}>' for n, t in zip(self.order, self.types))
        return "{" + fields + "}"

    def example_tuple(self) -> str:
        items = ", ".join(f"<{n}: {t}>" for n, t in zip(self.order, self.types))
        return f"({items},)" if len(self.order) == 1 else f"({items})"


# Bound once: ``json.loads`` re-checks its arguments on every call.
_json_decode = json.JSONDecoder().decode


def _is_items(outputs: list[Any]) -> bool:
    return bool(outputs) and all(isinstance(i, dict) and "type" in i and "content" in i for i in outputs)


class BaseParser:
    """Parser that hands the raw input to the API's first parameter.

    Subclasses set :attr:`PARAMETER_DESCRIPTION` and override :meth:`_compile` (or,
    as in Lagent, :meth:`parse_inputs`).

    Args:
        action: the action whose description this parser reads and annotates.

    Raises:
        ToolDefinitionError: an API's ``required`` names a parameter it does not have.
    """

    #: How a model must pass arguments; inserted into each API description when non-empty.
    PARAMETER_DESCRIPTION: str = ""

    def __init__(self, action: BaseAction) -> None:
        self.action = action
        self._api2param: dict[str, list[dict[str, Any]]] = {}
        self._api2required: dict[str, list[str]] = {}
        self._args: dict[str, _ApiArgs] = {}
        description = action.description
        toolkit = "api_list" in description
        apis = description["api_list"] if toolkit else [description]
        open_apis = {k for k, s in getattr(action, "_api_specs", {}).items() if s.accepts_any_kwargs}
        problems: list[str] = []
        for api in apis:
            key = api["name"] if toolkit else "run"
            label = f"{action.name}.{api['name']}" if toolkit else action.name
            params = list(api.get("parameters", []))
            required = list(api.get("required", []))
            order = tuple(p["name"] for p in params)
            stray = [r for r in required if r not in order]
            if stray:
                problems.append(
                    f"API {label!r} requires {stray}, which are not among its parameters {list(order)}"
                )
            if self.PARAMETER_DESCRIPTION:
                api["parameter_description"] = self.PARAMETER_DESCRIPTION
            self._api2param[key] = params
            self._api2required[key] = required
            types = tuple(str(p.get("type", "STRING")) for p in params)
            validators, exact = action.argument_checks(key)
            self._args[key] = _ApiArgs(label, order, required, key in open_apis, types, validators, exact)
        if problems:
            raise ToolDefinitionError(f"{type(action).__qualname__} with {type(self).__name__}", problems)
        custom = type(self).parse_inputs is not BaseParser.parse_inputs
        self._readers: dict[str, Reader] = {
            key: self._delegate(key) if custom else self._compile(api) for key, api in self._args.items()
        }

    def _delegate(self, name: str) -> Reader:
        parse_inputs = self.parse_inputs

        def read(inputs: Any) -> Union[dict[str, Any], ParseError]:
            return parse_inputs(inputs, name)

        return read

    def _compile(self, api: _ApiArgs) -> Reader:
        """Build the reader of one API; subclasses override this."""
        first = api.order[0] if api.order else None

        def read(inputs: Any) -> Union[dict[str, Any], ParseError]:
            return {first: inputs} if first is not None else {}

        return read

    def reader(self, name: str) -> Reader:
        """The compiled reader of API ``name`` (``'run'`` for a simple tool).

        Raises:
            ParseError: the action has no such API.
        """
        try:
            return self._readers[name]
        except (KeyError, TypeError):
            known = ", ".join(a.label for a in self._args.values())
            hint = did_you_mean(as_text(name), self._args)
            raise ParseError(f"{self.action.name} has no API {preview(name)}.{hint} APIs: {known}") from None

    def parse_inputs(self, inputs: Any, name: str = "run") -> dict[str, Any]:
        """Parse ``inputs`` for API ``name`` into keyword arguments.

        Raises:
            ParseError: the input cannot be read or does not fit the API.
        """
        args = self.reader(name)(inputs)
        if isinstance(args, ParseError):
            raise args
        return args

    def parse_outputs(self, outputs: Any) -> list[dict[str, Any]]:
        """Render a tool's return value as result items.

        A dict, list or tuple becomes JSON text (non-ASCII kept, unknown objects via
        ``str``); a list of ``{'type', 'content'}`` items passes through unchanged;
        anything else becomes ``str(outputs)``.
        """
        if type(outputs) is str:
            content = outputs
        elif isinstance(outputs, (dict, list, tuple)):
            if isinstance(outputs, list) and _is_items(outputs):
                return list(outputs)
            content = json.dumps(outputs, ensure_ascii=False, default=str)
        else:
            content = str(outputs)
        return [{"type": "text", "content": content}]


def _check(api: _ApiArgs, args: dict[str, Any]) -> Union[dict[str, Any], ParseError]:
    """Check names and types of every argument; return the coerced arguments.

    Otherwise return (not raise: raising costs about a microsecond on a path models take
    often) the ``ParseError`` listing every problem, parameters in signature order first,
    e.g. ``Calc.add: 'a' expected integer, got string 'x'; 'b' is required``.
    """
    problems = []
    checked: dict[str, Any] = {}
    exact = api.exact
    for name in api.order:
        if name in args:
            value = args[name]
            expected = exact[name]
            if expected is ANY or type(value) is expected:
                checked[name] = value
                continue
            validator = api.validators[name]
            try:
                checked[name] = validator(value)
            except Invalid as exc:
                problems.append(exc.describe(name))
            except Exception as exc:  # noqa: BLE001 - a faulty validator is reported, not raised
                problems.append(f"{name!r} could not be checked: {type(exc).__name__}: {exc}")
        elif name in api.required:
            problems.append(f"{name!r} is required")
    for key, value in args.items():
        if key in api.names:
            continue
        if api.open:
            checked[key] = value
        else:
            matches = close_matches(as_text(key), api.order)
            hint = f" (did you mean {matches[0]!r}?)" if matches else ""
            problems.append(f"{preview(key)} is not a parameter{hint}; parameters: {api.listing}")
    if problems:
        return ParseError(f"{api.label}: " + "; ".join(problems))
    return checked


def _fits(api: _ApiArgs, args: dict[str, Any]) -> bool:
    """True when every value already has its parameter's exact type (nothing to check)."""
    exact = api.exact
    for key, value in args.items():
        expected = exact.get(key, ANY)
        if type(value) is not expected and expected is not ANY:
            return False
    return True


class JsonParser(BaseParser):
    """Parser for a JSON object (or a dict) mapping parameter names to values.

    Strict JSON is read directly; otherwise the object is extracted from code fences
    and surrounding prose and read leniently (single quotes, trailing commas,
    comments, ``True``/``False``/``None``). Blank input means no arguments.

    Raises (from the reader): :class:`ParseError` for invalid JSON (with its
    position), a value that is not an object, unknown or missing arguments.
    """

    PARAMETER_DESCRIPTION = (
        "If you call this tool, you must pass arguments in JSON format {key: value}, "
        "where key is the parameter name."
    )

    def _compile(self, api: _ApiArgs) -> Reader:
        names, required, is_open = api.names, api.required, api.open
        exact, checked = api.exact, bool(api.validators)

        def read(inputs: Any) -> Union[dict[str, Any], ParseError]:
            if type(inputs) is str:
                try:
                    args = _json_decode(inputs)
                except (ValueError, RecursionError):
                    args = _lenient(api, inputs)
                if type(args) is str:
                    args = _lenient(api, args)
            elif inputs is None:
                args = {}
            elif isinstance(inputs, str):  # a str subclass: read its plain text
                return read(str(inputs))
            else:
                args = inputs
            if not isinstance(args, dict):
                raise ParseError(
                    f"{api.label}: expected a JSON object such as {api.example_object()}, "
                    f"got {type(args).__name__} {preview(args)}"
                )
            keys = args.keys()
            if (is_open or keys <= names) and keys >= required:
                if not checked:
                    return args
                # Inlined _fits: this loop runs on every call.
                for key, value in args.items():
                    expected = exact.get(key, ANY)
                    if type(value) is not expected and expected is not ANY:
                        return _check(api, args)
                return args
            return _check(api, args)

        return read


def _lenient(api: _ApiArgs, text: str) -> Any:
    if not text.strip():
        return {}
    try:
        return loads_lenient(text)
    except ValueError as exc:
        raise ParseError(
            f"{api.label}: invalid JSON arguments: {exc}. "
            f"Write one JSON object such as {api.example_object()}"
        ) from None


class TupleParser(BaseParser):
    """Parser for a Python tuple literal of arguments in parameter order.

    Strings are read with :func:`ast.literal_eval` only, never evaluated as code. A
    single literal that is not a tuple is taken as a 1-tuple.

    Raises (from the reader): :class:`ParseError` for input that is not a literal
    (with its position), too few or too many arguments.
    """

    PARAMETER_DESCRIPTION = (
        "If you call this tool, you must pass arguments as a Python tuple (arg1, arg2, arg3), "
        "with the arguments in the order of the parameters."
    )

    def _compile(self, api: _ApiArgs) -> Reader:
        order, required = api.order, api.required

        def read(inputs: Any) -> Union[dict[str, Any], ParseError]:
            if isinstance(inputs, str):
                values = _literal(api, str(inputs))
            elif isinstance(inputs, (tuple, list)):
                values = tuple(inputs)
            elif inputs is None:
                values = ()
            else:
                raise ParseError(
                    f"{api.label}: expected a tuple such as {api.example_tuple()}, "
                    f"got {type(inputs).__name__} {preview(inputs)}"
                )
            given = len(values)
            if given > len(order):
                raise ParseError(
                    f"{api.label}: too many arguments: takes at most {len(order)} "
                    f"({api.listing}), got {given}"
                )
            missing = [n for n in order[given:] if n in required]
            if missing:
                raise ParseError(
                    f"{api.label}: too few arguments: got {given}, missing "
                    + ", ".join(repr(n) for n in missing)
                    + f"; write {api.example_tuple()}"
                )
            args = dict(zip(order, values))
            return args if _fits(api, args) else _check(api, args)

        return read


def _literal(api: _ApiArgs, text: str) -> tuple[Any, ...]:
    fences = fenced_blocks(text)
    source = (fences[0][1] if fences else text).strip()
    if not source:
        return ()
    try:
        value = ast.literal_eval(source)
    except SyntaxError as exc:
        where = f" at line {exc.lineno}, column {exc.offset}" if exc.lineno else ""
        raise ParseError(
            f"{api.label}: invalid tuple arguments: {exc.msg}{where}. "
            f"Write a Python tuple such as {api.example_tuple()}"
        ) from None
    except (ValueError, TypeError, MemoryError, RecursionError) as exc:
        raise ParseError(
            f"{api.label}: invalid tuple arguments: only Python literals are accepted "
            f"({type(exc).__name__}). Write a Python tuple such as {api.example_tuple()}"
        ) from None
    return value if type(value) is tuple else (value,)
