"""Read one ReAct step (``Thought`` / ``Action`` / ``Action Input`` / ``Final Answer``) from model text.

Models follow the ReAct format loosely: keys change case or gain Markdown bold, the
``Thought`` goes missing, the arguments arrive in a fenced block followed by chatter or
by an ``Observation`` the model made up, two actions share one reply. The agent needs one
decision per reply, and the model needs to hear precisely what was wrong when there is
none. This module turns any text into a :class:`ReActStep` that says both, and never
raises. Model text is only ever scanned and, for ``Action: Tool(a=1)`` calls, read with
:func:`ast.parse` and :func:`ast.literal_eval`; nothing is evaluated.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import NamedTuple, Optional

from .._private.text import fenced_blocks

__all__ = ["ReActStep", "parse_react"]

#: A key at the start of a line, any case, maybe bulleted or bold (``**Action:**``), or
#: a key in its usual spelling after a space inside a line (``... Action: Calc.add``).
_KEY = re.compile(
    # Each run of spaces has one place to go: no backtracking on long blank runs.
    r"(?:^[ \t]*(?:[-*>#]+[ \t]*)?"
    r"(?i:(?P<key>thought|action[ \t_-]*input|action|final[ \t_-]*answer|observation))"
    r"|(?<=[ \t])(?P<inline>Thought|Action Input|Action|Final Answer|Observation))"
    r"[ \t]*(?:\d+[ \t]*)?(?:\*+[ \t]*)?:[ \t]*\**",
    re.MULTILINE,
)

#: Normalised key spelling (letters only, lower case) -> step field.
_FIELDS: dict[str, str] = {
    "thought": "thought",
    "action": "action",
    "actioninput": "action_input",
    "finalanswer": "final_answer",
    "observation": "observation",
}

#: ``Calc.add(a=1, b=2)``: a tool name written as a call.
_CALL = re.compile(r"(?P<name>[\w.\-]+)[ \t]*\((?P<args>.*)\)", re.DOTALL)

#: Characters wrapped around a tool name by models (quotes, backticks, bold).
_NAME_WRAPPERS = "`'\"*[] \t"

#: The first characters of a JSON value whose end the brackets tell.
_OPENERS = frozenset("{[")

#: How much of a model's call arguments an error message quotes.
_MAX_SHOWN = 80

ERROR_NO_ACTION = "Your reply has neither an `Action:` nor a `Final Answer:`."
ERROR_EMPTY_ACTION = "`Action:` is empty; it must name one of the tools."
ERROR_INPUT_WITHOUT_ACTION = "Your reply has an `Action Input:` but no `Action:` naming the tool."
ERROR_EMPTY_ANSWER = "`Final Answer:` is empty."


@dataclass
class ReActStep:
    """What one model reply asks for.

    Attributes:
        outcome: ``'action'`` (call ``action`` with ``action_input``), ``'final_answer'``,
            ``'no_action'`` (neither an action nor a final answer was found) or
            ``'parse_error'`` (one was started but cannot be used; see ``error``).
        thought: the reasoning before the action or answer: the ``Thought:`` field, or
            the text before the first key when there is no ``Thought:``; ``None`` if empty.
        action: the tool name, without wrapping quotes, backticks or call parentheses.
        action_input: the argument text: a fence's body, a JSON value cut where its
            brackets balance, or the bare text up to the next key; ``''`` when absent.
        final_answer: the answer text, for ``'final_answer'``.
        error: what was wrong, written for the model; ``None`` for a usable step.
        text: the reply up to a made-up ``Observation:`` after the action (the whole
            reply when there is none): what belongs in the conversation history.
    """

    outcome: str
    thought: Optional[str] = None
    action: Optional[str] = None
    action_input: Optional[str] = None
    final_answer: Optional[str] = None
    error: Optional[str] = None
    text: str = ""


class _Key(NamedTuple):
    field: str
    start: int
    end: int


_SPACES = re.compile(r"\s*")


def _value_start(text: str, start: int) -> int:
    match = _SPACES.match(text, start)
    return match.end() if match else start


def _opens_value(text: str, start: int) -> bool:
    """Whether the value at ``start`` (after spaces) opens a fence or a bracket."""
    first = _value_start(text, start)
    return text.startswith("```", first) or text[first : first + 1] in _OPENERS


def _value_extent(text: str, start: int) -> Optional[int]:
    """End of a fenced or bracketed value starting at ``start`` (after spaces), else ``None``."""
    first = _value_start(text, start)
    if text.startswith("```", first):
        newline = text.find("\n", first)
        close = text.find("```", newline + 1) if newline >= 0 else -1
        return close + 3 if close >= 0 else None
    if text[first : first + 1] in _OPENERS:
        return _balanced_end(text, first)
    return None


def _balanced_end(text: str, start: int) -> Optional[int]:
    """Index after the bracket closing the one at ``start``, skipping quoted strings."""
    depth = 0
    quote = ""
    escaped = False
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
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _scan(text: str) -> list[_Key]:
    """The keys of ``text`` in order; keys inside an ``Action Input`` value are not keys."""
    keys: list[_Key] = []
    position = 0
    # After one value that never closes, later ones are not measured: each measure may
    # read to the end of the text, and hostile text would make the scan quadratic.
    measuring = True
    while True:
        match = _KEY.search(text, position)
        if match is None:
            return keys
        spelled = match.group("key") or match.group("inline")
        field = _FIELDS[re.sub(r"[^a-z]", "", spelled.lower())]
        keys.append(_Key(field, match.start(), match.end()))
        position = match.end()
        if field == "action_input" and measuring and _opens_value(text, position):
            # A fence or a JSON value may contain lines that look like keys.
            extent = _value_extent(text, position)
            measuring = extent is not None
            position = max(position, extent or position)


def _field_text(text: str, keys: list[_Key], index: int, end: int) -> str:
    """The text of key ``index``: up to the next key, or ``end``."""
    stop = keys[index + 1].start if index + 1 < len(keys) else end
    return text[keys[index].end : stop].strip()


def _clean_input(value: str) -> str:
    """The argument text of an ``Action Input`` value, without fences or trailing chatter."""
    value = value.strip()
    if value.startswith(("{", "[")):
        end = _balanced_end(value, 0)
        return value[:end] if end is not None else value
    blocks = fenced_blocks(value)
    if blocks:
        return blocks[0][1].strip()
    if len(value) > 1 and value[0] == value[-1] == "`":
        return value.strip("`").strip()
    return value


def _call_arguments(args: str) -> tuple[Optional[str], Optional[str]]:
    """``(input, error)`` for the text inside ``Tool(...)``: JSON for keywords, else as is."""
    args = args.strip()
    if not args or args.startswith(("{", "[")):
        return args, None
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return args, None
    if not isinstance(call, ast.Call):
        return args, None
    try:
        if call.keywords and not call.args and all(k.arg for k in call.keywords):
            values = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            return json.dumps(values, ensure_ascii=False), None
        if len(call.args) == 1 and not call.keywords:
            value = ast.literal_eval(call.args[0])
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), None
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        pass
    shown = args if len(args) <= _MAX_SHOWN else args[: _MAX_SHOWN - 3] + "..."
    return None, (
        f"The arguments in `Action: ...({shown})` are not literal name=value pairs; "
        "give them in `Action Input:` instead."
    )


def _action_step(text: str, keys: list[_Key], index: int, end: int, thought: Optional[str]) -> ReActStep:
    """The step for the ``Action`` key ``index``."""
    value = _field_text(text, keys, index, end)
    name, _, rest = value.partition("\n")
    has_input = index + 1 < len(keys) and keys[index + 1].field == "action_input"
    # Without the key, the lines after ``Action: Tool`` are taken as the arguments.
    raw_input = _input_text(text, keys, index + 1, end) if has_input else _clean_input(rest)
    name = name.strip().strip(_NAME_WRAPPERS).rstrip(".")
    call = _CALL.fullmatch(name)
    error = None
    if call is not None:
        name = call.group("name")
        if not has_input and not raw_input:
            parsed, error = _call_arguments(call.group("args"))
            raw_input = parsed or ""
    name = name.strip(_NAME_WRAPPERS)
    if not name:
        error = ERROR_EMPTY_ACTION
    outcome = "parse_error" if error else "action"
    return ReActStep(outcome, thought, name or None, raw_input, None, error, text[:end].rstrip())


def _input_text(text: str, keys: list[_Key], index: int, end: int) -> str:
    start = keys[index].end
    extent = _value_extent(text, start)
    if extent is not None:
        return _clean_input(text[start:extent])
    return _clean_input(_field_text(text, keys, index, end))


def _thought_before(text: str, keys: list[_Key], index: int) -> Optional[str]:
    """The nearest ``Thought`` before key ``index``, else the text before the first key."""
    for earlier in range(index - 1, -1, -1):
        if keys[earlier].field == "thought":
            return _field_text(text, keys, earlier, keys[index].start) or None
    first = keys[0].start if keys else len(text)
    return text[:first].strip() or None


def _undecided_step(text: str, keys: list[_Key], end: int) -> ReActStep:
    """The step of a reply with neither an ``Action`` nor a ``Final Answer``."""
    thoughts = [_field_text(text, keys, i, end) for i, key in enumerate(keys) if key.field == "thought"]
    thought = thoughts[0] if thoughts and thoughts[0] else None
    if any(key.field == "action_input" for key in keys):
        return ReActStep("parse_error", thought, error=ERROR_INPUT_WITHOUT_ACTION, text=text[:end].rstrip())
    return ReActStep("no_action", thought, error=ERROR_NO_ACTION, text=text[:end].rstrip())


def _cut(keys: list[_Key], text: str) -> tuple[list[_Key], int]:
    """Drop an ``Observation`` after an action and everything after it (the model's invention)."""
    seen_action = False
    for index, key in enumerate(keys):
        if key.field == "observation" and seen_action:
            return keys[:index], key.start
        seen_action = seen_action or key.field == "action"
    return keys, len(text)


def parse_react(text: str) -> ReActStep:
    """Read the step a model reply asks for; never raises.

    Tolerated: keys in any case, with extra spaces, a number (``Action 1:``), Markdown
    bullets or bold; keys inside a line in their usual spelling; a missing ``Thought``;
    the arguments in a fenced block, as JSON followed by chatter, or bare; an
    ``Observation`` the model wrote itself (it and everything after it are ignored);
    a tool name in quotes or backticks, or written as a call, ``Calc.add(a=1, b=2)``,
    whose literal keyword arguments become the JSON input when no ``Action Input`` is
    given (a single literal argument is passed as it is).

    When a reply has several ``Action`` blocks, the first one followed by an
    ``Action Input`` is used (else the first). When it has both an action and a
    ``Final Answer``, whichever comes first wins. A final answer runs to the end of the
    reply or to a later ``Action``/``Observation`` key.

    Args:
        text: the model's reply.

    Returns:
        The step; ``outcome`` and ``error`` say whether it can be acted upon.
    """
    keys, end = _cut(_scan(text), text)
    deciding = [i for i, key in enumerate(keys) if key.field in ("action", "final_answer")]
    if not deciding:
        return _undecided_step(text, keys, end)
    first = deciding[0]
    if keys[first].field == "final_answer":
        stop = next((k.start for k in keys[first + 1 :] if k.field in ("action", "observation")), end)
        answer = text[keys[first].end : stop].strip()
        thought = _thought_before(text, keys, first)
        if not answer:
            return ReActStep("parse_error", thought, error=ERROR_EMPTY_ANSWER, text=text[:end].rstrip())
        return ReActStep("final_answer", thought, final_answer=answer, text=text[:end].rstrip())
    # Only actions before any final answer compete: the first of the two wins.
    answers = [i for i in deciding if keys[i].field == "final_answer"]
    actions = [i for i in deciding if keys[i].field == "action" and (not answers or i < answers[0])]
    complete = [i for i in actions if i + 1 < len(keys) and keys[i + 1].field == "action_input"]
    chosen = complete[0] if complete else first
    return _action_step(text, keys, chosen, end, _thought_before(text, keys, chosen))
