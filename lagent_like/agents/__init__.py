"""Agents: loops that put a chat model in front of an :class:`~lagent_like.ActionExecutor`.

Not imported by ``import lagent_like``; import ``lagent_like.agents`` when you want an
agent. :class:`ReAct` is the one agent: the ReAct text format for any chat model, or
native function calling.
"""

from __future__ import annotations

from ._approvals import Interruption
from ._as_tool import nested_trace
from ._events import (
    AgentEvent,
    FinalAnswerEvent,
    HandoffEvent,
    InterruptionEvent,
    ModelTextEvent,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
)
from .prompts import DEFAULT_SYSTEM_TEMPLATE, render_tool_descriptions
from .react import DEFAULT_NATIVE_TEMPLATE, ReAct
from .react_parser import ReActStep, parse_react
from .trace import AgentResult, Turn

__all__ = [
    "AgentEvent",
    "AgentResult",
    "DEFAULT_NATIVE_TEMPLATE",
    "DEFAULT_SYSTEM_TEMPLATE",
    "FinalAnswerEvent",
    "HandoffEvent",
    "Interruption",
    "InterruptionEvent",
    "ModelTextEvent",
    "ReAct",
    "ReActStep",
    "ToolCallEvent",
    "ToolProgressEvent",
    "ToolResultEvent",
    "Turn",
    "nested_trace",
    "parse_react",
    "render_tool_descriptions",
]
