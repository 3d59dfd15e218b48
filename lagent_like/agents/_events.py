"""The events of a streamed agent run (:meth:`~lagent_like.agents.ReAct.stream`).

A person watching an agent wants to see it work as it works: what the model wrote,
which tool it called, the tool's output as it comes, the result, a handoff, a pause
for approval, the answer. Each is a small frozen record with a ``type`` field, so
a consumer can dispatch on ``event.type`` or on the class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from ..schema import ActionReturn

if TYPE_CHECKING:
    from ._approvals import Interruption
    from .trace import AgentResult

__all__ = [
    "AgentEvent",
    "FinalAnswerEvent",
    "HandoffEvent",
    "InterruptionEvent",
    "ModelTextEvent",
    "ToolCallEvent",
    "ToolProgressEvent",
    "ToolResultEvent",
]


@dataclass(frozen=True)
class ModelTextEvent:
    """The model replied (``text``: what it wrote; in native mode, the text beside its calls)."""

    agent: str
    turn: int
    text: str
    type: str = "model_text"


@dataclass(frozen=True)
class ToolCallEvent:
    """A tool call is about to run."""

    agent: str
    turn: int
    name: str
    arguments: Any
    call_id: Optional[str] = None
    type: str = "tool_call"


@dataclass(frozen=True)
class ToolProgressEvent:
    """A generator tool yielded ``chunk`` while its call runs."""

    agent: str
    name: str
    chunk: Any
    type: str = "tool_progress"


@dataclass(frozen=True)
class ToolResultEvent:
    """A tool call is done: ``action_return`` is its record."""

    agent: str
    turn: int
    name: str
    action_return: ActionReturn
    type: str = "tool_result"


@dataclass(frozen=True)
class HandoffEvent:
    """The conversation went from agent ``source`` to agent ``target``."""

    source: str
    target: str
    turn: int
    type: str = "handoff"


@dataclass(frozen=True)
class InterruptionEvent:
    """The run stopped for approval of ``interruptions``; ``agent.resume(result)`` goes on."""

    interruptions: tuple[Interruption, ...]
    type: str = "interruption"


@dataclass(frozen=True)
class FinalAnswerEvent:
    """The run ended (always the last event): its answer, stop reason and whole result."""

    answer: Optional[str]
    stop_reason: str
    result: AgentResult
    type: str = "final_answer"


#: Any event of a streamed run.
AgentEvent = Union[
    ModelTextEvent,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
    HandoffEvent,
    InterruptionEvent,
    FinalAnswerEvent,
]
