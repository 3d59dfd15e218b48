"""``ToolContext``: what a tool may know about the call it is serving.

A parameter annotated ``ToolContext`` is never described to the model, never parsed
or validated: the executor fills it with the call's session, a state dict that
persists for that session, the tool and API names, the call id and the executor
itself (as Google ADK's ``tool_context`` and LiveKit's ``RunContext`` do).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

__all__ = ["DEFAULT_SESSION", "ToolContext"]

#: The session of calls made without a ``session_id``.
DEFAULT_SESSION = "default"


@dataclass
class ToolContext:
    """The context of one tool call.

    Attributes:
        session_id: the conversation or user session the call belongs to.
        state: a dict shared by every call of the same session in one executor; tools
            keep what they learn here. Sessions never see each other's state.
        tool_name: the tool's name.
        api_name: the API's name (``'run'`` for a simple tool).
        call_id: the id of this call (the model's tool-call id when there is one).
        executor: the executor running the call, or ``None`` for a direct call.
        on_progress: called with each chunk a generator tool yields, as it comes (the
            executor call's ``on_progress``), or ``None``; a tool taking a context may
            call it too. An awaitable it returns is awaited.
        cancelled: set by the executor when it stopped waiting for the call (its
            timeout): a sync tool, whose thread cannot be stopped, may check it and
            return early; generator tools are closed at their next chunk.
    """

    session_id: str = DEFAULT_SESSION
    state: dict[str, Any] = field(default_factory=dict)
    tool_name: str = ""
    api_name: str = ""
    call_id: Optional[str] = None
    executor: Any = None
    on_progress: Optional[Callable[[Any], Any]] = None
    cancelled: bool = False
