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
import dataclasses
import functools
import json
import re
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Optional, Union

from .._private.text import as_text, close_matches, did_you_mean, fenced_blocks, preview
from ..exceptions import ParseError
from ..schema import RepairedArgs
from ..types.validation import ANY, CHECK, Check, Refusal, Validator, check_of

if TYPE_CHECKING:
    from ..spec.describe import ApiSpec
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
        checks: the check of each parameter that has a declared type (value in, the
            coerced value or a ``Refusal`` out).
        exact: per parameter, the one class whose values need no check, ``ANY`` for
            parameters without a check, ``CHECK`` for parameters always checked.
    """

    # Slots: these attributes are read on every call.
    __slots__ = (
        "checks",
        "exact",
        "label",
        "listing",
        "names",
        "open",
        "order",
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
    ) -> None:
        #: The check of the arguments together (a schema's top-level keywords), or ``None``.
        self.whole = whole
        self.label = label
        self.order = order
        self.names = frozenset(order)
        self.required = frozenset(required)
        self.open = open
        self.types = types
        self.listing = ", ".join(order) or "none"
        self.checks: dict[str, Check] = {
            name: check_of(v) for name, v in validators.items() if name in self.names
        }
        # Every parameter gets an entry: ANY (no check), its exact class (values of it
        # skip the check), or CHECK (a class no value has: always checked).
        self.exact = {name: exact.get(name, CHECK) if name in self.checks else ANY for name in order}

    @classmethod
    def of(cls, label: str, spec: ApiSpec, mode: str = "coerce") -> _ApiArgs:
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
        )

    def example_object(self) -> str:
        fields = ", ".join(f'"{n}": <{t}>' for n, t in zip(self.order, self.types))
        return "{" + fields + "}"

    def example_tuple(self) -> str:
        items = ", ".join(f"<{n}: {t}>" for n, t in zip(self.order, self.types))
        return f"({items},)" if len(self.order) == 1 else f"({items})"


# Bound once: ``json.loads`` re-checks its arguments on every call.
_decoder = json.JSONDecoder()
_json_decode = _decoder.decode
# Set by JSONDecoder.__init__ (the C scanner when available); the stubs omit it.
_scan_once: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]


def _decode(text: str) -> Any:
    """``json.loads(text)``, in a third of the time for text without surrounding space.

    The decoder's scanner is called directly: ``decode`` adds two frames and two
    regular-expression matches for the whitespace around the value. Anything the
    scanner alone does not settle (surrounding whitespace, trailing text, no value at
    all) goes through ``decode``, which accepts it or raises its usual error.

    Raises:
        ValueError: the text is not JSON (a ``json.JSONDecodeError``).
        RecursionError: the text nests too deeply.
    """
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        return _json_decode(text)
    return value if end == len(text) else _json_decode(text)


def _is_items(outputs: list[Any]) -> bool:
    return bool(outputs) and all(isinstance(i, dict) and "type" in i and "content" in i for i in outputs)


class BaseParser:
    """Parser that hands the raw input to the API's first parameter.

    Subclasses set :attr:`PARAMETER_DESCRIPTION` and override :meth:`_compile` (or,
    as in Lagent, :meth:`parse_inputs`).

    A parser reads the specs of its action's APIs (:class:`ApiSpec`) and changes
    nothing: the action puts :attr:`PARAMETER_DESCRIPTION` into its own description.

    Args:
        action: the action whose APIs this parser reads.
    """

    #: How a model must pass arguments, in English; inserted into each API description
    #: when non-empty (the text of the language chosen by :attr:`LANGUAGE`).
    PARAMETER_DESCRIPTION: str = ""
    #: The same sentence per language code; ``"en"`` is :attr:`PARAMETER_DESCRIPTION`.
    PARAMETER_DESCRIPTIONS: ClassVar[dict[str, str]] = {}
    #: The language of the inserted sentence; see :meth:`in_language`.
    LANGUAGE: ClassVar[str] = "en"

    def __init__(self, action: BaseAction) -> None:
        from .base_action import api_specs, validation_mode

        self.action = action
        toolkit = action.is_toolkit
        self._args: dict[str, _ApiArgs] = {
            key: _ApiArgs.of(
                f"{action.name}.{key}" if toolkit else action.name, spec, validation_mode(action, key)
            )
            for key, spec in api_specs(action).items()
        }
        custom = type(self).parse_inputs is not BaseParser.parse_inputs
        self._readers: dict[str, Reader] = {
            key: self._delegate(key) if custom else self._compile(api) for key, api in self._args.items()
        }

    @classmethod
    def parameter_description(cls) -> str:
        """The sentence inserted as ``parameter_description``, in :attr:`LANGUAGE`.

        Raises:
            ValueError: the parser has no sentence in that language.
        """
        if cls.LANGUAGE == "en":
            return cls.PARAMETER_DESCRIPTION
        try:
            return cls.PARAMETER_DESCRIPTIONS[cls.LANGUAGE]
        except KeyError:
            raise ValueError(_no_language(cls, cls.LANGUAGE)) from None

    @classmethod
    def in_language(cls, language: str) -> type[BaseParser]:
        """This parser with its ``parameter_description`` in ``language``.

        ``"en"`` gives Lagent's English sentence (the default), ``"zh"`` the Chinese one
        of Lagent's tutorial. The result is a subclass, made once per language, to pass
        where a parser class goes: ``BaseAction(parser=JsonParser.in_language("zh"))``.

        Raises:
            ValueError: the parser has no sentence in ``language``; the message lists
                the languages it has.
        """
        if language == cls.LANGUAGE:
            return cls
        if language != "en" and language not in cls.PARAMETER_DESCRIPTIONS:
            raise ValueError(_no_language(cls, language))
        key = (cls, language)
        made = _LANGUAGE_VARIANTS.get(key)
        if made is None:
            made = type(cls.__name__, (cls,), {"LANGUAGE": language, "__module__": cls.__module__})
            made.__qualname__ = f"{cls.__qualname__}.in_language({language!r})"
            made = _LANGUAGE_VARIANTS.setdefault(key, made)
        return made

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
        """Render a tool's return value as result items (see :func:`render_outputs`)."""
        return render_outputs(outputs)


def render_outputs(outputs: Any) -> list[dict[str, Any]]:
    """Render a tool's return value as result items: ``BaseParser``'s rendering.

    A dict, list, tuple or dataclass instance becomes JSON text (non-ASCII kept,
    unknown objects via ``str``); a list of ``{'type', 'content'}`` items passes
    through unchanged; anything else becomes ``str(outputs)``.
    """
    if type(outputs) is str:
        content = outputs
    elif isinstance(outputs, (dict, list, tuple)):
        if isinstance(outputs, list) and _is_items(outputs):
            return list(outputs)
        content = json.dumps(outputs, ensure_ascii=False, default=str)
    elif dataclasses.is_dataclass(outputs) and not isinstance(outputs, type):
        # JSON like a dict, so that MCP can serve it as structured content.
        content = json.dumps(dataclasses.asdict(outputs), ensure_ascii=False, default=str)
    else:
        content = str(outputs)
    return [{"type": "text", "content": content}]


#: Parser classes made by ``in_language``, so that each language is one class.
_LANGUAGE_VARIANTS: dict[tuple[type[BaseParser], str], type[BaseParser]] = {}


def _no_language(parser: type[BaseParser], language: str) -> str:
    known = sorted({"en", *parser.PARAMETER_DESCRIPTIONS})
    return f"{parser.__name__} has no parameter_description in {language!r}; languages: {known}"


def _check(api: _ApiArgs, args: dict[str, Any]) -> Union[dict[str, Any], ParseError]:
    """Check names and types of every argument; return the coerced arguments.

    Otherwise return (not raise: raising costs about a microsecond on a path models take
    often) the ``ParseError`` listing every problem, parameters in signature order first,
    e.g. ``Calc.add: 'a' expected integer, got string 'x'; 'b' is required``.
    """
    problems = []
    checked: dict[str, Any] = {}
    exact, checks, required = api.exact, api.checks, api.required
    for name in api.order:
        if name in args:
            value = args[name]
            expected = exact[name]
            if expected is ANY or type(value) is expected:
                checked[name] = value
                continue
            try:
                result = checks[name](value)
            except Exception as exc:  # noqa: BLE001 - a faulty validator is reported, not raised
                problems.append(f"{name!r} could not be checked: {type(exc).__name__}: {exc}")
                continue
            if type(result) is Refusal:
                # OpenAI strict mode makes optional fields required and nullable: a null
                # the type does not take means "not given" (the default applies).
                if value is None and name not in required:
                    continue
                from ..function_calling.dialects import has_null_field  # import time: failures only

                retried = _check_again(checks[name], value) if has_null_field(value) else result
                if type(retried) is Refusal:
                    problems.append(result.describe(name, value))
                else:
                    checked[name] = retried
            else:
                checked[name] = result
        elif name in required:
            problems.append(f"{name!r} is required")
    if not args.keys() <= api.names:
        _extra_arguments(api, args, checked, problems)
    if api.whole is not None and not problems:
        result = api.whole(checked)
        if type(result) is Refusal:
            problems.append(result.describe("", checked))
        else:
            checked = result
    if problems:
        return ParseError(f"{api.label}: " + "; ".join(problems))
    return checked


def _check_again(check: Check, value: Any) -> Any:
    """``check`` of ``value`` without its null fields (a faulty validator refuses)."""
    from ..function_calling.dialects import without_nulls  # import time: failures only

    try:
        return check(without_nulls(value))
    except Exception:  # noqa: BLE001 - reported with the first refusal
        return Refusal("a value its check accepts")


def _checked(api: _ApiArgs, args: dict[str, Any]) -> Union[dict[str, Any], ParseError]:
    """Check the values of well-named arguments, in one pass; the coerced arguments.

    Only values not of their parameter's exact class are checked, and the arguments
    are copied only when a check changed a value. Anything refused (or a check that
    fails) goes to :func:`_check`, which lists every problem.
    """
    exact, checks = api.exact, api.checks
    changed = None
    for key, value in args.items():
        expected = exact.get(key, ANY)
        if expected is ANY or type(value) is expected:
            continue
        try:
            result = checks[key](value)
        except Exception:  # noqa: BLE001 - reported by _check
            return _check(api, args)
        if type(result) is Refusal:
            return _check(api, args)
        if result is not value:
            if changed is None:
                changed = dict(args)
            changed[key] = result
    return args if changed is None else changed


def _extra_arguments(
    api: _ApiArgs, args: dict[str, Any], checked: dict[str, Any], problems: list[str]
) -> None:
    """Pass the arguments that are not parameters on to an open API, else report them."""
    for key, value in args.items():
        if key in api.names:
            continue
        if api.open:
            checked[key] = value
        else:
            matches = close_matches(as_text(key), api.order)
            hint = f" (did you mean {matches[0]!r}?)" if matches else ""
            problems.append(f"{preview(key)} is not a parameter{hint}; parameters: {api.listing}")


class JsonParser(BaseParser):
    """Parser for a JSON object (or a dict) mapping parameter names to values.

    Strict JSON is read directly; otherwise the object is extracted from code fences
    and surrounding prose and read leniently (single quotes, trailing commas,
    comments, ``True``/``False``/``None``). Blank input means no arguments.

    Raises (from the reader): :class:`ParseError` for invalid JSON (with its
    position), a value that is not an object, unknown or missing arguments.
    """

    # Lagent's sentences, byte for byte (unchanged from Lagent 0.2.0 to 0.5).
    PARAMETER_DESCRIPTION = (
        "If you call this tool, you must pass arguments in the JSON format {key: value}, "
        "where the key is the parameter name."
    )
    PARAMETER_DESCRIPTIONS: ClassVar[dict[str, str]] = {
        # Fullwidth commas, as in the tutorial.
        "zh": "如果调用该工具，你必须使用Json格式 {key: value} 传参，其中key为参数名称",  # noqa: RUF001
    }

    def _compile(self, api: _ApiArgs) -> Reader:
        names, required, is_open = api.names, api.required, api.open
        exact, checked = api.exact, bool(api.checks)
        # Arguments checked together (a schema's top-level keywords) always take _check.
        fast = api.whole is None

        def read(inputs: Any) -> Union[dict[str, Any], ParseError]:
            if type(inputs) is str:
                try:
                    args = _decode(inputs)
                except (ValueError, RecursionError) as exc:
                    return _read_lenient(api, inputs, read, [], exc)
                if type(args) is str:
                    return _read_value(api, args, read, [])
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
            if (is_open or keys <= names) and keys >= required and fast:
                if not checked:
                    return args
                # Values of their parameter's exact type need no check (inlined: every call).
                for key, value in args.items():
                    expected = exact.get(key, ANY)
                    if type(value) is not expected and expected is not ANY:
                        return _checked(api, args)
                return args
            return _check(api, args)

        return read


@functools.lru_cache(maxsize=256)
def _example(api: _ApiArgs) -> str:
    # Cut-off output is a common failure: its message should cost little.
    return api.example_object()


def _read_lenient(
    api: _ApiArgs, text: str, read: Reader, repairs: list[str], error: Optional[BaseException] = None
) -> Union[dict[str, Any], ParseError]:
    """Read ``text``, which ``json`` refused (with ``error``), leniently; then :func:`_read_value`."""
    if not text.strip():
        return read({})
    from ..parsers.lenient_json import read_lenient, strict_truncation  # import time: failures only

    parsed = (error is not None and strict_truncation(error, text)) or read_lenient(text)
    if isinstance(parsed, ValueError):
        return ParseError(
            f"{api.label}: invalid JSON arguments: {parsed}. Write one JSON object such as {_example(api)}"
        )
    return _read_value(api, parsed.value, read, repairs + parsed.repairs)


def _read_value(
    api: _ApiArgs, value: Any, read: Reader, repairs: list[str]
) -> Union[dict[str, Any], ParseError]:
    """Check a decoded value with ``read``; mark the arguments with the repairs it took.

    A string is JSON encoded twice (models do that): it is decoded once more.
    """
    if type(value) is str:
        if "double-encoded JSON" in repairs:
            raise ParseError(
                f"{api.label}: expected a JSON object such as {api.example_object()}, "
                f"got str {preview(value)}"
            )
        repairs = [*repairs, "double-encoded JSON"]
        try:
            value = _decode(value)
        except (ValueError, RecursionError):
            return _read_lenient(api, value, read, repairs)
        return _read_value(api, value, read, repairs)
    try:
        args = read(value)
    except ParseError as exc:
        args = exc
    if isinstance(args, ParseError):
        # The record of a refused call keeps the raw input: the message names the repairs.
        return ParseError(f"{args.err_msg} (read after repairs: {', '.join(repairs)})") if repairs else args
    return RepairedArgs(args, repairs) if repairs else args


class TupleParser(BaseParser):
    """Parser for a Python tuple literal of arguments in parameter order.

    Strings are read with :func:`ast.literal_eval` only, never evaluated as code. A
    single literal that is not a tuple is taken as a 1-tuple.

    Raises (from the reader): :class:`ParseError` for input that is not a literal
    (with its position), too few or too many arguments.
    """

    PARAMETER_DESCRIPTION = (
        "If you call this tool, you must pass arguments in the tuple format "
        "like (arg1, arg2, arg3), and the arguments are ordered."
    )
    # Lagent's tutorial shows no Chinese tuple sentence; this one mirrors its JSON one.
    PARAMETER_DESCRIPTIONS: ClassVar[dict[str, str]] = {
        "zh": "如果调用该工具，你必须使用元组格式 (arg1, arg2, arg3) 传参，且参数有序",  # noqa: RUF001
    }

    def _compile(self, api: _ApiArgs) -> Reader:
        order, required, exact = api.order, api.required, api.exact
        size = len(order)
        fast = api.whole is None

        def read(inputs: Any) -> Union[dict[str, Any], ParseError]:
            if type(inputs) is str:
                values = _literal(api, inputs)
            elif isinstance(inputs, str):  # a str subclass: read its plain text
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
            # Returned, not raised: a wrong count is a common mistake of models.
            if given > size:
                return ParseError(
                    f"{api.label}: too many arguments: takes at most {size} ({api.listing}), got {given}"
                )
            if given < size:
                missing = [n for n in order[given:] if n in required]
                if missing:
                    return ParseError(
                        f"{api.label}: too few arguments: got {given}, missing "
                        + ", ".join(repr(n) for n in missing)
                        + f"; write {api.example_tuple()}"
                    )
            args = dict(zip(order, values))
            if not fast:
                return _check(api, args)
            # Values of their parameter's exact type need no check (inlined: every call).
            for key, value in args.items():
                expected = exact[key]
                if type(value) is not expected and expected is not ANY:
                    return _checked(api, args)
            return args

        return read


def _literal(api: _ApiArgs, text: str) -> tuple[Any, ...]:
    fences = fenced_blocks(text)
    source = (fences[0][1] if fences else text).strip()
    if not source:
        return ()
    if "\\" in source or _NUMBER_MAY_WARN.search(source):
        # Python warns about invalid escapes and such numbers while parsing them.
        source = _without_warnings(source)
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


#: Numbers Python may warn about while parsing them: a number run into a keyword
#: (``1if``, ``1.jor``) or a hexadecimal one (``0xfor``). A cheap over-approximation
#: without nested repeats, so that the search stays linear: what it finds is tokenized.
_NUMBER_MAY_WARN = re.compile(r"[0-9](?:[.jJ]{0,2}(?:and|else|for|i[fns]|not|or)|[xX])")

#: One escape in a string literal: up to three octal digits, or any one character.
_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.DOTALL)

#: Characters that make a valid escape after a backslash (besides octal digits), by
#: whether the literal is bytes.
_VALID_ESCAPES: dict[bool, frozenset[str]] = {
    False: frozenset("\n\r\\'\"abfnrtvxNuU"),
    True: frozenset("\n\r\\'\"abfnrtvx"),
}


def _without_warnings(source: str) -> str:
    """``source`` with the same meaning, rewritten so that parsing it warns about nothing.

    Python's parser warns about invalid escapes (``'\\d'`` means backslash and ``d``),
    octal escapes above ``\\377`` and numbers run into a keyword (``1if`` means
    ``1 if``); the warning goes to stderr, and under ``-W error`` it refuses the text.
    Silencing warnings would change the process-wide filters, which is not
    thread-safe, so the text is rewritten instead: such backslashes are doubled,
    large octal escapes spelled in hex, and a space put after the number. Text that
    breaks off is rewritten up to where it breaks, for ``literal_eval`` to refuse.
    """
    import io
    import tokenize

    tokens: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            tokens.append(token)
    except (tokenize.TokenError, SyntaxError):
        pass  # the text breaks off (an open bracket or string): Python parses up to there too
    line_starts = [0]
    for line in io.StringIO(source):  # the lines tokenize read (split at "\n" only)
        line_starts.append(line_starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        return line_starts[position[0] - 1] + position[1]

    edits: list[tuple[int, int, str]] = []
    for token, following in zip(tokens, tokens[1:] + tokens[-1:]):
        if token.type == tokenize.STRING:
            fixed = _escape_literal(token.string)
            if fixed != token.string:
                edits.append((offset(token.start), offset(token.end), fixed))
        elif (
            token.type == tokenize.NUMBER and following.type == tokenize.NAME and following.start == token.end
        ):
            end = offset(token.end)
            edits.append((end, end, " "))
    pieces, done = [], 0
    for start, end, replacement in edits:  # in order, not overlapping: tokens do not
        pieces += [source[done:start], replacement]
        done = end
    return "".join(pieces) + source[done:]


def _escape_literal(literal: str) -> str:
    """A string literal's source with its deprecated escapes spelled validly."""
    quote = min(i for i in (literal.find("'"), literal.find('"')) if i >= 0)
    prefix = literal[:quote].lower()
    if "r" in prefix or "\\" not in literal:
        return literal
    is_bytes = "b" in prefix
    valid = _VALID_ESCAPES[is_bytes]

    def respell(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "01234567":
            value = int(code, 8)
            if value <= 0o377:
                return match.group(0)
            # Python reads a larger octal escape modulo 256 in bytes, as the code point in text.
            return f"\\x{value & 0xFF:02x}" if is_bytes else f"\\u{value:04x}"
        return match.group(0) if code in valid else "\\" + match.group(0)

    return literal[:quote] + _ESCAPE.sub(respell, literal[quote:])
