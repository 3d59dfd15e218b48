"""The lines ``chat`` prints for each event of a streamed run, as the run goes.

A person at the terminal should see the agent work while it works: what the model
wrote as soon as it wrote it, the tool call before it runs, a generator tool's
chunks while it runs, then the observation. The turn-by-turn rendering of
:mod:`lagent_like.agents.trace_render` comes only once a turn is over, so the
events get their own rendering here, in its words and colours.
"""

from __future__ import annotations

from typing import Any, Callable

from ..agents.trace_render import _observation, paint

__all__ = ["format_event"]


def _model_text(event: Any, color: bool, width: int) -> list[str]:
    header = f"── turn {event.turn} ({event.agent}) "
    return [paint(header.ljust(width, "─"), "rule", color), *event.text.splitlines()]


def _tool_call(event: Any, color: bool, width: int) -> list[str]:
    arguments = event.arguments if isinstance(event.arguments, str) else repr(event.arguments)
    return [paint(f"Tool call: {event.name}", "action", color), f"Arguments: {arguments}"]


def _tool_progress(event: Any, color: bool, width: int) -> list[str]:
    return [paint(f"… {event.name}: ", "note", color) + str(event.chunk)]


def _tool_result(event: Any, color: bool, width: int) -> list[str]:
    return [_observation(event.action_return, color)]


def _handoff(event: Any, color: bool, width: int) -> list[str]:
    return [paint(f"Handed over from {event.source} to {event.target}", "note", color)]


def _interruption(event: Any, color: bool, width: int) -> list[str]:
    return [
        paint(f"Waiting for approval: {item.tool} {item.arguments}", "note", color)
        for item in event.interruptions
    ]


#: How each event type is shown; the final answer is the command's own last line.
_RENDERERS: dict[str, Callable[[Any, bool, int], list[str]]] = {
    "model_text": _model_text,
    "tool_call": _tool_call,
    "tool_progress": _tool_progress,
    "tool_result": _tool_result,
    "handoff": _handoff,
    "interruption": _interruption,
}


def format_event(event: Any, color: bool = False, width: int = 72) -> list[str]:
    """The lines to print for one event of :meth:`lagent_like.agents.ReAct.stream`.

    Args:
        event: an :data:`lagent_like.agents.AgentEvent`.
        color: add ANSI colours.
        width: length of a turn's header rule.

    Returns:
        The event's lines; none for the final answer (the command prints it) or an
        event type this version does not know.
    """
    render = _RENDERERS.get(event.type)
    return render(event, color, width) if render is not None else []
