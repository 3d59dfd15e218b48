"""``JsonParser``: arguments as one JSON object, read strictly first and leniently when that fails.

The reader decodes strict JSON with the decoder's scanner (the fast path every valid
call takes); only text ``json`` refuses goes to :mod:`.lenient_json`, and arguments
read that way come back as :class:`~.arguments.Repaired`, naming the repairs.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, ClassVar, Optional

from .._private.text import preview
from ..exceptions import ParseError
from ..types._validation import UNCHECKED
from ._arguments import ApiArgs, Read, Reader, Repaired, check, checked
from ._base import BaseParser

__all__ = ["JsonParser"]

# Bound once: ``json.loads`` re-checks its arguments on every call.
_decoder = json.JSONDecoder()
_json_decode = _decoder.decode
# Set by JSONDecoder.__init__ (the C scanner when available); the stubs do not declare it.
_scan_once: Callable[[str, int], tuple[Any, int]] = _decoder.__dict__["scan_once"]


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


#: Lagent's sentences, byte for byte (unchanged from Lagent 0.2.0 to 0.5); the Chinese
#: one with fullwidth commas, as in the tutorial.
_SENTENCES = {
    "en": "If you call this tool, you must pass arguments in the JSON format {key: value}, "
    "where the key is the parameter name.",
    "zh": "如果调用该工具，你必须使用Json格式 {key: value} 传参，其中key为参数名称",  # noqa: RUF001
}


class JsonParser(BaseParser):
    """Parser for a JSON object (or a dict) mapping parameter names to values.

    Strict JSON is read directly; otherwise the object is extracted from code fences
    and surrounding prose and read leniently (single quotes, trailing commas,
    comments, ``True``/``False``/``None``). Blank input means no arguments.

    Its readers return (see ``lagent_like.parsers._arguments``) a :class:`ParseError` for invalid JSON
    (with its position), a value that is not an object, unknown or missing arguments.
    """

    PARAMETER_DESCRIPTION = _SENTENCES["en"]
    PARAMETER_DESCRIPTIONS: ClassVar[dict[str, str]] = {"zh": _SENTENCES["zh"]}

    def _compile(self, api: ApiArgs) -> Reader:
        names, required, exact, is_open = api.names, api.required, api.exact, api.open
        # Arguments checked together (a schema's top-level keywords) always take check().
        unchecked, fast = not api.checks, api.whole is None and api.extra is None

        def read(inputs: Any) -> Read:
            if type(inputs) is str:
                try:
                    args = _decode(inputs)
                except (ValueError, RecursionError) as exc:
                    return _read_lenient(api, inputs, read, [], exc)
            else:
                args = {} if inputs is None else inputs
            if not isinstance(args, dict):
                return _not_an_object(api, args, read)
            keys = args.keys()
            if (is_open or keys <= names) and keys >= required and fast:
                if unchecked:
                    return args
                # Values of their parameter's exact type need no check (inlined: every call).
                for key, value in args.items():
                    expected = exact.get(key, UNCHECKED)
                    if type(value) is not expected and expected is not UNCHECKED:
                        return checked(api, args)
                return args
            return check(api, args)

        return read


def _not_an_object(api: ApiArgs, value: Any, read: Reader) -> Read:
    """Read what is not a dict: JSON text encoded twice, a str subclass, or refuse it."""
    if type(value) is str:  # the JSON text was a string
        return _read_value(api, value, read, [])
    if isinstance(value, str):  # a str subclass given: read its plain text
        return read(str(value))
    return ParseError(
        f"{api.label}: expected a JSON object such as {api.example_object()}, "
        f"got {type(value).__name__} {preview(value)}"
    )


@functools.lru_cache(maxsize=256)
def _example(api: ApiArgs) -> str:
    # Cut-off output is a common failure: its message should cost little.
    return api.example_object()


def _read_lenient(
    api: ApiArgs, text: str, read: Reader, repairs: list[str], error: Optional[BaseException] = None
) -> Read:
    """Read ``text``, which ``json`` refused (with ``error``), leniently; then :func:`_read_value`."""
    if not text.strip():
        return read({})
    from ._lenient_json import read_lenient, strict_truncation  # import time: failures only

    parsed = (error is not None and strict_truncation(error, text)) or read_lenient(text)
    if isinstance(parsed, ValueError):
        return ParseError(
            f"{api.label}: invalid JSON arguments: {parsed}. Write one JSON object such as {_example(api)}"
        )
    return _read_value(api, parsed.value, read, repairs + parsed.repairs)


def _read_value(api: ApiArgs, value: Any, read: Reader, repairs: list[str]) -> Read:
    """Check a decoded value with ``read``; the arguments with the repairs it took.

    A string is JSON encoded twice (models do that): it is decoded once more.
    """
    if type(value) is str:
        if "double-encoded JSON" in repairs:
            return ParseError(
                f"{api.label}: expected a JSON object such as {api.example_object()}, "
                f"got str {preview(value)}"
            )
        repairs = [*repairs, "double-encoded JSON"]
        try:
            value = _decode(value)
        except (ValueError, RecursionError):
            return _read_lenient(api, value, read, repairs)
        return _read_value(api, value, read, repairs)
    args = read(value)
    if not repairs:
        return args
    if isinstance(args, ParseError):
        # The record of a refused call keeps the raw input: the message names the repairs.
        return ParseError(f"{args.err_msg} (read after repairs: {', '.join(repairs)})")
    if isinstance(args, Repaired):
        return Repaired(args.args, repairs + args.repairs)
    return Repaired(args, repairs)
