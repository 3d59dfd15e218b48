r"""``TupleParser``: arguments as one Python tuple literal, in parameter order.

Text is read with :func:`ast.literal_eval` only, never evaluated as code. Python's
parser warns (on stderr, or refuses under ``-W error``) about some literals models
write, such as ``'\d'``; such text is first rewritten to the same meaning without
the warning, since silencing warnings would change process-wide state.
"""

from __future__ import annotations

import ast
import re
from typing import Any, ClassVar, Optional, Union

from .._private.text import fenced_blocks, preview
from ..exceptions import ParseError
from ..types._validation import UNCHECKED
from ._arguments import ApiArgs, Read, Reader, check, checked
from ._base import BaseParser

__all__ = ["TupleParser"]


class TupleParser(BaseParser):
    """Parser for a Python tuple literal of arguments in parameter order.

    Strings are read with :func:`ast.literal_eval` only, never evaluated as code. A
    single literal that is not a tuple is taken as a 1-tuple.

    Its readers return (see ``lagent_like.parsers._arguments``) a :class:`ParseError` for input that
    is not a literal (with its position), too few or too many arguments.
    """

    PARAMETER_DESCRIPTION = (
        "If you call this tool, you must pass arguments in the tuple format "
        "like (arg1, arg2, arg3), and the arguments are ordered."
    )
    # Lagent's tutorial shows no Chinese tuple sentence; this one mirrors its JSON one.
    PARAMETER_DESCRIPTIONS: ClassVar[dict[str, str]] = {
        "zh": "如果调用该工具，你必须使用元组格式 (arg1, arg2, arg3) 传参，且参数有序",  # noqa: RUF001
    }

    def _compile(self, api: ApiArgs) -> Reader:
        order, exact, size = api.order, api.exact, len(api.order)
        fast = api.whole is None

        def read(inputs: Any) -> Read:
            values = _literal(api, inputs) if type(inputs) is str else _values(api, inputs)
            if isinstance(values, ParseError):
                return values
            given = len(values)
            if given != size:
                if given > size:  # a common mistake of models: its message built inline
                    return ParseError(
                        f"{api.label}: too many arguments: takes at most {size} ({api.listing}), got {given}"
                    )
                refused = _too_few(api, given)
                if refused is not None:
                    return refused
            args = dict(zip(order, values))
            if not fast:
                return check(api, args)
            # Values of their parameter's exact type need no check (inlined: every call).
            for key, value in args.items():
                expected = exact[key]
                if type(value) is not expected and expected is not UNCHECKED:
                    return checked(api, args)
            return args

        return read


def _values(api: ApiArgs, inputs: Any) -> Union[tuple[Any, ...], ParseError]:
    """The argument values of input that is not plain text."""
    if isinstance(inputs, str):  # a str subclass: read its plain text
        return _literal(api, str(inputs))
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs)
    if inputs is None:
        return ()
    return ParseError(
        f"{api.label}: expected a tuple such as {api.example_tuple()}, "
        f"got {type(inputs).__name__} {preview(inputs)}"
    )


def _too_few(api: ApiArgs, given: int) -> Optional[ParseError]:
    """The error of too few values, unless the values left out are all of optional parameters."""
    missing = [n for n in api.order[given:] if n in api.required]
    if not missing:
        return None
    return ParseError(
        f"{api.label}: too few arguments: got {given}, missing "
        + ", ".join(repr(n) for n in missing)
        + f"; write {api.example_tuple()}"
    )


def _literal(api: ApiArgs, text: str) -> Union[tuple[Any, ...], ParseError]:
    """The values of the tuple literal in ``text`` (in a code fence or not), or why it is none."""
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
        return ParseError(
            f"{api.label}: invalid tuple arguments: {exc.msg}{where}. "
            f"Write a Python tuple such as {api.example_tuple()}"
        )
    except (ValueError, TypeError, MemoryError, RecursionError) as exc:
        return ParseError(
            f"{api.label}: invalid tuple arguments: only Python literals are accepted "
            f"({type(exc).__name__}). Write a Python tuple such as {api.example_tuple()}"
        )
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
    r"""``source`` with the same meaning, rewritten so that parsing it warns about nothing.

    Python's parser warns about invalid escapes (``'\d'`` means backslash and ``d``),
    octal escapes above ``\377`` and numbers run into a keyword (``1if`` means
    ``1 if``); the warning goes to stderr, and under ``-W error`` it refuses the text.
    Silencing warnings would change the process-wide filters, which is not
    thread-safe, so the text is rewritten instead: such backslashes are doubled,
    large octal escapes spelled in hex, and a space put after the number. Text that
    breaks off is rewritten up to where it breaks, for ``literal_eval`` to refuse.
    """
    import io
    import tokenize

    tokens = _tokens(source)
    if tokens is None:
        return source  # literal_eval refuses it as it is
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


def _tokens(source: str) -> Optional[list[Any]]:
    """The tokens of ``source`` up to where it breaks off, or ``None`` where it cannot be tokenized.

    Text that breaks off (an open bracket or string) gives its tokens up to there, as
    Python parses up to there too. A lone surrogate gives ``None``: Python 3.12+
    tokenizes in C, which raises ``UnicodeEncodeError`` on it.
    """
    import io
    import tokenize

    tokens: list[Any] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            tokens.append(token)
    except (tokenize.TokenError, SyntaxError):
        pass
    except UnicodeError:
        return None
    return tokens


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
