"""Calls held for a person's approval: what an interrupted run waits on.

An :class:`~lagent_like.runtime.hooks.ApprovalHook` without an approver answers a call
with an ``APPROVAL_REQUIRED`` record; the agent then stops (the OpenAI Agents SDK's
``needs_approval`` interruptions) and lists the held calls here, so that a person can
decide, maybe much later and in another process (the records are plain JSON), and
:meth:`~lagent_like.agents.ReAct.resume` can go on from exactly that point.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, Optional

__all__ = ["Interruption"]


@dataclass
class Interruption:
    """One tool call held for approval.

    Attributes:
        agent: the name of the agent that made the call.
        tool: the tool name the model wrote.
        arguments: the argument text the model wrote.
        call_id: the model's id for the call (native mode), else ``None``.
        turn: the index of the turn that made the call.
        position: the call's place among the turn's tool calls (0 in text mode).
        decision: ``None`` until decided, then ``'approved'`` or ``'rejected'``.
        message: for a rejection, what the model is told (default: the
            ``ApprovalHook``'s denial message).
        nested: when the call is an agent tool (``as_tool``) whose own run waits for
            approval, that run as saved (``AgentResult.to_dict()``; its
            ``interruptions`` say which calls). Approving the call approves those
            and resumes that run; rejecting it abandons it.
    """

    agent: str
    tool: str
    arguments: str
    call_id: Optional[str] = None
    turn: int = 0
    position: int = 0
    decision: Optional[str] = None
    message: Optional[str] = None
    nested: Optional[dict[str, Any]] = None

    def to_dict(self) -> dict[str, Any]:
        """The interruption as a JSON-able dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Interruption:
        """Rebuild an interruption from :meth:`to_dict` output.

        Raises:
            TypeError: ``data`` has unknown keys or lacks ``agent``, ``tool`` or
                ``arguments``.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TypeError(f"Interruption.from_dict: unknown keys {unknown}")
        return cls(**dict(data))
