"""Render an agent's turns as readable terminal text.

The ``demo`` and ``chat`` commands show a person what the model wrote, what the
parser made of it and what the tool answered, turn by turn, as the run goes. This
module holds that rendering once, with ANSI colour only when asked for (the command
decides from the terminal and ``NO_COLOR``).
"""

from __future__ import annotations

import os
from typing import IO, Any, Optional

from ..schema import ActionStatusCode

__all__ = ["format_turn", "paint", "wants_color"]

#: ANSI codes by role; the plain rendering uses none of them.
_STYLES: dict[str, str] = {
    "rule": "\033[2m",
    "thought": "\033[3m",
    "action": "\033[36m",
    "ok": "\033[32m",
    "error": "\033[31m",
    "answer": "\033[1;32m",
    "note": "\033[33m",
}
_RESET = "\033[0m"

#: What a turn's outcome is called in the header line.
_OUTCOME_LABELS: dict[str, str] = {
    "action": "tool call",
    "final_answer": "final answer",
    "no_action": "no action found",
    "parse_error": "unreadable action",
}


def wants_color(stream: IO[str], choice: str = "auto") -> bool:
    """Whether to colour output written to ``stream``.

    Args:
        stream: where the text goes.
        choice: ``'always'``, ``'never'`` or ``'auto'`` (a terminal and no
            ``NO_COLOR`` in the environment, see https://no-color.org).
    """
    if choice != "auto":
        return choice == "always"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def paint(text: str, style: str, color: bool) -> str:
    """``text`` wrapped in the ANSI codes of ``style`` when ``color`` is on."""
    return f"{_STYLES[style]}{text}{_RESET}" if color else text


def _observation(ret: Any, color: bool) -> str:
    state = ActionStatusCode(ret.state)
    text = ret.format_result() if state == ActionStatusCode.SUCCESS else ret.errmsg
    style = "ok" if state == ActionStatusCode.SUCCESS else "error"
    return paint(f"Observation [{state.name}]: ", style, color) + (text or "")


def _tool_call_lines(turn: Any, color: bool) -> list[str]:
    """Each native tool call of ``turn`` with what the model got back for it."""
    from ..executors._exports import call_results, read_calls  # only native turns need it

    calls = turn.tool_calls
    returns = list(turn.tool_returns or ())
    shown = turn.outcome != "final_answer" and len(returns) == len(calls)
    # What the model read for a call without a name (there is no record of it).
    answers = call_results(read_calls(calls), returns) if shown and None in returns else []
    lines = []
    for index, call in enumerate(calls):
        function = call.get("function", {})
        lines.append(paint(f"Tool call: {function.get('name')}", "action", color))
        lines.append(f"Arguments: {function.get('arguments')}")
        if not shown:
            continue
        ret = returns[index]
        if ret is not None:
            lines.append(_observation(ret, color))
        else:
            lines.append(paint("Observation [ARGS_ERROR]: ", "error", color) + str(answers[index]["content"]))
    return lines


def format_turn(turn: Any, color: bool = False, width: Optional[int] = 72) -> str:
    """One turn of a ReAct run as several lines of text.

    Args:
        turn: a :class:`lagent_like.agents.Turn`.
        color: add ANSI colours.
        width: length of the header rule (``None``: no padding).

    Returns:
        The header, the thought, the action, its input and the observation (or each
        tool call with its own observation), or the final answer, without a trailing
        newline.
    """
    label = _OUTCOME_LABELS.get(turn.outcome, turn.outcome)
    header = f"── turn {turn.index}: {label} "
    lines = [paint(header.ljust(width or 0, "─"), "rule", color)]
    if turn.thought:
        lines.append(paint(f"Thought: {turn.thought}", "thought", color))
    if turn.tool_calls:
        lines += _tool_call_lines(turn, color)
    if turn.outcome == "action" and not turn.tool_calls:
        lines.append(paint(f"Action: {turn.action}", "action", color))
        lines.append(f"Action Input: {turn.action_input}")
    if turn.outcome in ("no_action", "parse_error"):
        lines.append(paint("Model wrote:", "note", color))
        lines.extend(f"  {line}" for line in turn.model_text.splitlines())
    if turn.action_return is not None and turn.outcome != "final_answer" and not turn.tool_calls:
        lines.append(_observation(turn.action_return, color))
    if getattr(turn, "handoff", None):
        lines.append(paint(f"Handed over to {turn.handoff}", "note", color))
    return "\n".join(lines)
