"""Read the JSON that models actually write, in linear time, and say what was repaired.

Models wrap arguments in code fences, surround them with prose, use single quotes,
trailing commas, comments and Python's ``True``/``False``/``None``. The strict
``json.loads`` runs first (the caller's fast path); only when it fails are a few
candidate substrings cut out (with ``str.find``, never a Python loop over characters)
and read with pyjson5, a JSON5 parser written in Cython that runs within a few times
``json.loads`` (the pure-Python ``json5`` takes about 8 us per character: a 100 KB
argument would freeze an event loop for a second). ``json5`` remains the fallback
where pyjson5 cannot be imported. Python literals are translated outside string
literals by one regular expression, only when the text contains one.

Output that was cut off is reported as cut off, never completed by guessing. Every
repair is named in plain words (``"single quotes"``, ``"trailing comma"``, ...) so that
records can say how their arguments were read.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, NamedTuple, Optional, Union

from .._private.text import fenced_blocks
from ..exceptions import LagentLikeError

__all__ = ["LenientResult", "TruncatedJSON", "loads_lenient", "read_lenient", "strict_truncation"]

# One string literal, in either quotes. A string may run to the end of the text: an
# unterminated one then matches once instead of being retried from every later
# position (quadratic time); so may a final backslash. Written as "unrolled loops" with a lookahead for the
# opening quote: about three times faster than the plain alternation in ``re``.
_STRING = re.compile(
    r"(?=[\"'])(\"[^\"\\]*(?:\\[\s\S]?[^\"\\]*)*(?:\"|\Z)|'[^'\\]*(?:\\[\s\S]?[^'\\]*)*(?:'|\Z))"
)
# Each literal found by its first letter, then checked to stand alone (as ``\b`` would,
# at a fifth of its cost).
_PY_TO_JSON = tuple(
    (py, re.compile(rf"{py[0]}(?<![\w$]{py[0]}){py[1:]}(?![\w$])"), js)
    for py, js in (("True", "true"), ("False", "false"), ("None", "null"))
)
_TRAILING_COMMA = re.compile(r",\s*[\]}]")
_UNQUOTED_KEY = re.compile(r"[{,]\s*[A-Za-z_$][\w$]*\s*:")
# Joins the text between string literals, so that one regular expression pass reads
# all of it (no Python code per string); text containing it takes the slow way.
_SEP = "\x00"
_AROUND = "removed text around the JSON"
_MAX_FENCES = 4
_UNCLOSED = re.compile(r"Unclosed b?'(\w+)'")
_NEAR = re.compile(r" near (\d+)")
_CODE_POINT = re.compile(r"U\+([0-9a-fA-F]{4,6})")
_BYTES_NAME = re.compile(r"b'(\w+)'")
_JSON5_POSITION = re.compile(r"^<string>:(\d+) (.*) at column (\d+)$", re.DOTALL)


class TruncatedJSON(LagentLikeError, ValueError):
    """The text ends in the middle of a JSON value: the model's output was cut off."""


class LenientResult:
    """A value read leniently and the repairs that reading it took.

    Attributes:
        value: the parsed value.
        repairs: what was repaired, in plain words, in the order found.
    """

    __slots__ = ("repairs", "value")

    def __init__(self, value: Any, repairs: list[str]) -> None:
        self.value = value
        self.repairs = repairs


class _Failure(NamedTuple):
    """Why a candidate did not parse (returned, not raised: failing is the common case here).

    Attributes:
        message: the parser's reason, made readable only if it is the one reported.
        text: the candidate, where ``message`` gives positions in it.
        truncated: what the text broke off in (``"string"``, ``"object"``, ...), or ``None``.
        raw: ``message`` is pyjson5's own, to be put in plain words (see :func:`_describe`).
    """

    message: str
    text: str = ""
    truncated: Optional[str] = None
    raw: bool = True

    def reason(self) -> str:
        return _describe(self.message, self.text) if self.raw else self.message


_Decoded = Union[tuple[Any, bool], _Failure]


def _describe(message: str, text: str) -> str:
    """pyjson5's message in plain words, its 1-based position as line and column."""
    message = _BYTES_NAME.sub(lambda m: "value" if m.group(1) == "JSON5Value" else m.group(1), message)
    message = _CODE_POINT.sub(lambda m: repr(chr(int(m.group(1), 16))), message)
    near = _NEAR.search(message)
    if near is None:
        return message
    position = min(int(near.group(1)), len(text) + 1)
    line = text.count("\n", 0, max(position - 1, 0)) + 1
    column = position - (text.rfind("\n", 0, max(position - 1, 0)) + 1)
    where = f" at line {line}, column {column}"
    head, tail = message[: near.start()], message[near.end() :]
    if tail.startswith(", found"):  # "Expected x near 9, found y" -> "Expected x at ..., found y"
        return head + where + tail
    return head + where + tail


def _pyjson5_decoder() -> Optional[Callable[[str], _Decoded]]:
    try:
        import pyjson5
    except ImportError:  # pragma: no cover - pyjson5 ships wheels for every supported platform
        return None
    decode5, extra_data, eof, error = (
        pyjson5.decode,
        pyjson5.Json5ExtraData,
        pyjson5.Json5EOF,
        pyjson5.Json5Exception,
    )

    def decode(text: str) -> _Decoded:
        try:
            # No nesting limit of its own (32 by default): Python's recursion limit applies.
            return decode5(text, -1), False
        except extra_data as exc:
            return exc.result, True  # the value, then prose or a second value
        except eof as exc:
            message = exc.args[0]
            unclosed = _UNCLOSED.search(message)
            return _Failure(message, text, unclosed.group(1) if unclosed else "value")
        except error as exc:
            return _Failure(exc.args[0] if exc.args else type(exc).__name__, text)
        except (RecursionError, ValueError, MemoryError) as exc:
            return _Failure(f"{type(exc).__name__}: {exc}", raw=False)

    return decode


def _json5_decode(text: str) -> _Decoded:
    import json5

    try:
        return json5.loads(text), False
    except Exception as exc:  # noqa: BLE001 - json5 raises several types on bad input
        message = str(exc)
        match = _JSON5_POSITION.match(message)
        if match:
            message = f"{match.group(2)} at line {match.group(1)}, column {match.group(3)}"
        truncated = "value" if "Unexpected end of input" in message else None
        return _Failure(message or type(exc).__name__, truncated=truncated, raw=False)


_decoder: Optional[Callable[[str], _Decoded]] = None


def _decode5(text: str) -> _Decoded:
    global _decoder
    if _decoder is None:
        _decoder = _pyjson5_decoder() or _json5_decode
    return _decoder(text)


def _split_strings(text: str) -> tuple[list[str], str, set[str]]:
    """``text`` split around its string literals, the joiner that rebuilds it, the quotes used.

    Even indexes hold the text between strings. Text with one kind of quote and no
    backslash splits on that quote with ``str.split`` (the common case, about thirty
    times faster); otherwise one regular expression finds the strings, quotes included.
    """
    single, double = "'" in text, '"' in text
    if "\\" not in text and not (single and double):
        quote = "'" if single else '"'
        pieces = text.split(quote)
        return pieces, quote, {quote} if len(pieces) > 1 else set()
    pieces = _STRING.split(text)
    if _SEP in text:
        return pieces, "", {p[:1] for p in pieces[1::2]}
    return pieces, "", {"'"} if _SEP + "'" in _SEP + _SEP.join(pieces[1::2]) else set()


def _outside_strings(text: str, repairs: list[str]) -> str:
    """``text`` with Python literals outside strings made JSON; names the repairs seen there.

    Everything runs as whole-text passes in C (split, join, regular expressions): a
    megabyte of arguments holds tens of thousands of strings, and a Python call per
    string would cost more than parsing.
    """
    pieces, joiner, quotes = _split_strings(text)
    # The text between strings as one string when possible (one pass per check).
    joined = _SEP not in text
    betweens = [_SEP.join(pieces[::2])] if joined else pieces[::2]
    if "'" in quotes:
        repairs.append("single quotes")
    if any(_TRAILING_COMMA.search(part) for part in betweens):
        repairs.append("trailing comma")
    if any("//" in part or "/*" in part for part in betweens):
        repairs.append("comments")
    if any(_UNQUOTED_KEY.search(part) for part in betweens):
        repairs.append("unquoted keys")
    swapped = False
    for py, pattern, js in _PY_TO_JSON:
        counts = [pattern.subn(js, part) for part in betweens]
        if any(count for _, count in counts):
            repairs.append(f"Python literal {py}")
            betweens = [part for part, _ in counts]
            swapped = True
    if not swapped:
        return text
    pieces[::2] = betweens[0].split(_SEP) if joined else betweens
    return joiner.join(pieces)


def _candidates(text: str) -> list[tuple[str, Optional[str], int]]:
    """``(candidate, what cutting it out removed, where it ends in text)``, likeliest first."""
    stripped = text.strip()
    end = len(text.rstrip())
    brace = text.find("{")
    around: list[tuple[str, Optional[str], int]]
    around = [(text[brace:end], _AROUND, end)] if brace >= 0 and text[brace:end] != stripped else []
    if "```" not in text:  # the common case, without building and deduplicating a pool
        whole: list[tuple[str, Optional[str], int]] = [(stripped, None, end)] if stripped else []
        return whole + around
    fences = fenced_blocks(text)
    tagged = [body for tag, body in fences if tag.lower() in ("json", "json5")]
    pool: list[tuple[str, Optional[str], int]] = []
    # A few fences at most: each costs a parse and a search (text of thousands of
    # fences must not cost thousands of parses).
    for body in (tagged[:_MAX_FENCES] + [body for _, body in fences[:_MAX_FENCES]])[:_MAX_FENCES]:
        pool.append((body.strip(), "removed code fence", text.find(body) + len(body.rstrip())))
    pool.append((stripped, None, end))
    seen: set[str] = set()
    unique = []
    for candidate in pool + around:
        if candidate[0] and candidate[0] not in seen:
            seen.add(candidate[0])
            unique.append(candidate)
    return unique


def _read(candidate: str, removed: Optional[str]) -> Union[LenientResult, _Failure]:
    repairs = [removed] if removed else []
    if removed is not None:  # the caller tried the whole text as strict JSON already
        try:
            return LenientResult(json.loads(candidate), repairs)
        except (ValueError, RecursionError):
            pass
    text = _outside_strings(candidate, repairs)
    decoded = _decode5(text)
    if isinstance(decoded, _Failure):
        return decoded
    value, extra = decoded
    if extra:
        repairs.append("ignored text after the JSON" if removed is None else _AROUND)
    if not repairs:
        repairs.append("JSON5 syntax")
    return LenientResult(value, list(dict.fromkeys(repairs)))


def _truncated(kind: str, end: int) -> TruncatedJSON:
    article = "an" if kind[0] in "aeiou" else "a"
    return TruncatedJSON(
        f"the arguments end in the middle of {article} {kind} at character {end}: "
        "the output was probably cut off"
    )


#: json's reasons for stopping at the end of the text that only arise inside an object.
_IN_OBJECT = frozenset(("Expecting property name enclosed in double quotes", "Expecting ':' delimiter"))


def strict_truncation(error: BaseException, text: str) -> Optional[TruncatedJSON]:
    """What ``json.loads``' own refusal of ``text`` shows was cut off, if it shows it.

    A string that never closes, or an object that breaks off at the end of the text,
    was strict JSON up to the cut: the lenient parser would only find the same, at
    the price of a second parse (cut-off output is common, so this is the fast path).
    """
    if not isinstance(error, json.JSONDecodeError):
        return None
    if error.msg.startswith("Unterminated string"):
        return _truncated("string", len(text.rstrip()))
    if error.msg in _IN_OBJECT and error.pos >= len(text.rstrip()):
        return _truncated("object", len(text.rstrip()))
    return None


def read_lenient(text: str) -> Union[LenientResult, ValueError]:
    """Parse JSON written by a model, or say why not (returned: refusals are common here).

    The caller has tried ``text`` as strict JSON already. A :class:`TruncatedJSON` is
    returned when a candidate ends in the middle of a value; any other ``ValueError``
    gives the reason found in the likeliest candidate.
    """
    # (why, where the candidate ends, whether it was cut out of prose), likeliest first
    failures: list[tuple[_Failure, int, bool]] = []
    for candidate, removed, end in _candidates(text):
        failure = _read(candidate, removed)
        if isinstance(failure, LenientResult):
            return failure
        failures.append((failure, end, removed == _AROUND))
    if not failures:
        return ValueError("the input is empty")
    # An object cut off beats any other reason: the model should hear that first.
    for failure, end, _ in failures:
        if failure.truncated is not None:
            return _truncated(failure.truncated, end)
    # Prose around an object: the object's own reason is the one worth telling.
    likeliest = [f for f, _, around in failures if around] or [failures[0][0]]
    return ValueError(likeliest[0].reason())


def loads_lenient(text: str) -> LenientResult:
    """:func:`read_lenient`, raising what it returns for text it cannot read.

    Raises:
        TruncatedJSON: the text ends in the middle of a value.
        ValueError: nothing in ``text`` parses.
    """
    result = read_lenient(text)
    if isinstance(result, ValueError):
        raise result
    return result
