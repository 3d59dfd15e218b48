"""Read the JSON that models actually write.

Models wrap arguments in code fences, surround them with prose, use single quotes,
trailing commas, comments and Python's ``True``/``False``/``None``. The strict
``json.loads`` runs first (the common, fast case); only when it fails are candidate
substrings extracted and read with json5, with the Python literals translated outside
string literals.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .text import fenced_blocks

# A string may run to the end of the text: an unterminated one then matches once
# instead of being retried from every later position (quadratic time).
_PY_LITERALS = re.compile(
    r"(\"(?:[^\"\\]|\\[\s\S]?)*(?:\"|\Z)|'(?:[^'\\]|\\[\s\S]?)*(?:'|\Z))|\b(True|False|None)\b"
)
_PY_TO_JSON = {"True": "true", "False": "false", "None": "null"}
_JSON5_POSITION = re.compile(r"^<string>:(\d+) (.*) at column (\d+)$", re.DOTALL)


def _python_literals_to_json(text: str) -> str:
    def _swap(match: re.Match[str]) -> str:
        return match.group(1) or _PY_TO_JSON[match.group(2)]

    return _PY_LITERALS.sub(_swap, text)


def _balanced_object(text: str) -> str:
    """The substring from the first ``{`` to its matching ``}`` (or to the end)."""
    start = text.find("{")
    if start < 0:
        return ""
    depth, quote, escaped = 0, "", False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return text[start:]


def _candidates(text: str) -> list[str]:
    fences = fenced_blocks(text)
    tagged = [body for tag, body in fences if tag.lower() in ("json", "json5")]
    ordered = tagged + [body for _, body in fences]
    pool = [body.strip() for body in ordered]
    pool += [_balanced_object(body) for body in pool]
    pool += [_balanced_object(text), text.strip()]
    return [c for c in dict.fromkeys(pool) if c]


def _describe(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    message = str(exc)
    match = _JSON5_POSITION.match(message)
    if match:
        return f"{match.group(2)} at line {match.group(1)}, column {match.group(3)}"
    return message or type(exc).__name__


def loads_lenient(text: str) -> Any:
    """Parse JSON written by a model.

    Raises:
        ValueError: nothing in ``text`` parses; the message gives the reason and its
            position in the most likely candidate.
    """
    import json5  # the strict path never needs it

    candidates = _candidates(text)
    if not candidates:
        raise ValueError("the input is empty")
    first_error: Exception | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            pass
        try:
            return json5.loads(_python_literals_to_json(candidate))
        except Exception as exc:  # noqa: BLE001 - json5 raises several types on bad input
            first_error = first_error or exc
    assert first_error is not None
    raise ValueError(_describe(first_error))
