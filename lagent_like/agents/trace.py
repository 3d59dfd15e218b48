"""An agent run's trace: one :class:`Turn` per model reply, and the :class:`AgentResult`.

An agent run is only debuggable when every step and every refusal can be read
afterwards, by a person or by the inspector page. These records are what
:class:`~lagent_like.agents.ReAct` produces and what ``lagent-like inspect --trace``
reads back, so they live apart from the loop, with the JSON trace file format
(:data:`TRACE_FORMAT`, :data:`TRACE_VERSION`) they are saved in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Optional, Union

from ..schema import ActionReturn
from ._approvals import Interruption

__all__ = ["TRACE_FORMAT", "TRACE_VERSION", "AgentResult", "Message", "Turn"]

#: One chat message, OpenAI-style (``{'role': ..., 'content': ...}``).
Message = dict[str, Any]

#: The ``format`` marker of a trace file written by :meth:`AgentResult.save`.
TRACE_FORMAT = "lagent-like-trace"
#: The version of the trace file layout.
TRACE_VERSION = 1


@dataclass
class Turn:
    """One model reply and what the agent did with it.

    Attributes:
        index: the turn's number in the run, from 1.
        model_text: what the model wrote, unedited (in native mode, the text beside
            the tool calls, ``''`` when none).
        outcome: ``'action'`` (a tool was called), ``'final_answer'`` (a ``Final
            Answer``, a call of the executor's finish action, or in native mode a reply
            without tool calls), ``'no_action'`` (neither an action nor an answer) or
            ``'parse_error'`` (an action or answer that cannot be used); the last two
            went to the executor's ``NoAction`` and the model was told the format.
        thought: the model's reasoning before the action or answer, if any.
        action: the tool name the model wrote (native mode: the first call's name).
        action_input: the argument text given to the tool (native: the first call's).
        action_return: the executor's record of the call (native: the first call's);
            for ``'no_action'`` and ``'parse_error'``, the ``NoAction`` record;
            ``None`` for a ``Final Answer``.
        tool_calls: native mode only: the model's tool calls, as OpenAI dicts.
        tool_returns: native mode only: one record per tool call, in order (``None`` for
            a call without a function name).
        observation: what was sent back to the model after this turn (native mode: the
            tool messages' contents, one per line); ``None`` when the run ended.
        repeat_of: the index of an earlier turn that made exactly the same call(s),
            when this one repeats it; a model stuck in a loop shows as a chain of these.
        messages_sent: how many messages of the run's ``messages`` the model was given
            for this reply (``AgentResult.messages[:messages_sent]``).
        model_seconds: how long the model took to reply.
        tool_seconds: how long the agent took over the reply: reading it and running
            the tool calls.
        usage: the token counts the server reported for this reply (OpenAI's ``usage``
            object, e.g. ``{'prompt_tokens': 31, 'completion_tokens': 9, ...}``), read from
            the model's ``last_usage`` attribute; ``None`` when the server reports none.
        agent: the name of the agent that took this turn.
        handoff: the name of the agent the conversation went to after this turn, if any.
        tool_actions: what the turn's calls asked the agent to do
            (``tool_context.actions``), one dict per call that asked, in call order:
            ``{'position', 'transfer_to_agent', 'escalate', 'skip_summarization',
            'handoff', 'handoff_message'}`` (``handoff``: the name of an agent a tool
            returned); ``None`` when no call asked. A run resumed after approval
            acts on these.
    """

    index: int
    model_text: str
    outcome: str
    thought: Optional[str] = None
    action: Optional[str] = None
    action_input: Optional[str] = None
    action_return: Optional[ActionReturn] = None
    tool_calls: Optional[list[dict[str, Any]]] = None
    tool_returns: Optional[list[Optional[ActionReturn]]] = None
    observation: Optional[str] = None
    repeat_of: Optional[int] = None
    messages_sent: Optional[int] = None
    model_seconds: Optional[float] = None
    tool_seconds: Optional[float] = None
    usage: Optional[dict[str, Any]] = None
    agent: Optional[str] = None
    handoff: Optional[str] = None
    tool_actions: Optional[list[dict[str, Any]]] = None

    def to_dict(self) -> dict[str, Any]:
        """The turn as a JSON-able dict (records as :meth:`ActionReturn.to_dict`)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.action_return is not None:
            data["action_return"] = self.action_return.to_dict()
        if self.tool_returns is not None:
            data["tool_returns"] = [None if r is None else r.to_dict() for r in self.tool_returns]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Turn:
        """Rebuild a turn from :meth:`to_dict` output.

        Raises:
            TypeError: ``data`` has keys that are not fields of ``Turn``, or lacks
                ``index``, ``model_text`` or ``outcome``.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        missing = [key for key in ("index", "model_text", "outcome") if key not in data]
        if unknown or missing:
            raise TypeError(f"Turn.from_dict: unknown keys {unknown}, missing keys {missing}")
        values = dict(data)
        if values.get("action_return") is not None:
            values["action_return"] = ActionReturn.from_dict(values["action_return"])
        if values.get("tool_returns") is not None:
            values["tool_returns"] = [
                None if r is None else ActionReturn.from_dict(r) for r in values["tool_returns"]
            ]
        return cls(**values)


@dataclass
class AgentResult:
    """How a run ended, and its whole trace.

    Attributes:
        answer: the final answer; ``None`` when the run ended without one.
        turns: every turn, in order.
        stop_reason: ``'final_answer'`` (the model wrote its answer), ``'finish'`` (it
            called the executor's finish action), ``'max_turns'`` (the turn limit came
            first), ``'model_error'`` (the model raised; see ``error``),
            ``'escalated'`` (a tool set ``tool_context.actions.escalate``),
            ``'skip_summarization'`` (a tool's result is the answer),
            ``'interrupted'`` (calls wait for approval; see ``interruptions``) or
            ``'tripwire'`` (a guardrail halted the run; see ``error``).
        messages: the whole chat: the system prompt, the history, the question, and
            every message sent to or received from the model.
        error: for ``'model_error'``, the exception as ``'Type: message'``; for
            ``'tripwire'``, the guardrail's reason; else ``None``.
        last_agent: the name of the agent that answered (or was running when the run
            stopped): after a handoff, not the agent ``run`` was called on.
        invocation_id: the run's id (``ToolContext.invocation_id``); kept on resume.
        interruptions: for ``'interrupted'``, the calls waiting for a decision.
        resumed: true once :meth:`ReAct.resume` has taken this result up (its approved
            calls have run); saved in the trace file, so that a copy saved or loaded
            after that is refused by ``resume`` too. A copy saved *before* the resume
            cannot know (see the agents page on resuming twice).

    A result is saved as a JSON trace file with :meth:`save` and read back with
    :meth:`load`; ``lagent-like inspect --trace FILE`` shows such a file turn by turn.
    """

    answer: Optional[str] = None
    turns: list[Turn] = field(default_factory=list)
    stop_reason: str = "max_turns"
    messages: list[Message] = field(default_factory=list)
    error: Optional[str] = None
    last_agent: Optional[str] = None
    invocation_id: Optional[str] = None
    interruptions: list[Interruption] = field(default_factory=list)
    resumed: bool = False
    # In this process only (never saved): the agents tools returned during the run, by
    # name, so that a resumed run finds one outside the agent tree; and the run's context
    # object, for a resume not given one.
    _agents: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _context: Any = field(default=None, init=False, repr=False, compare=False)

    def approve(self, item: Interruption) -> None:
        """Approve a held call: :meth:`ReAct.resume` runs it.

        Raises:
            ValueError: ``item`` is not one of this result's ``interruptions``.
        """
        self._decide(item, "approved", None)

    def reject(self, item: Interruption, message: Optional[str] = None) -> None:
        """Refuse a held call: :meth:`ReAct.resume` tells the model ``message`` instead of running it.

        Args:
            item: one of this result's ``interruptions``.
            message: what the model is told; default the ``ApprovalHook``'s
                ``'<name> was not approved, so it did not run'``.

        Raises:
            ValueError: ``item`` is not one of this result's ``interruptions``.
        """
        self._decide(item, "rejected", message)

    def _decide(self, item: Interruption, decision: str, message: Optional[str]) -> None:
        if not any(item is held for held in self.interruptions):
            raise ValueError(
                f"AgentResult.{decision[:-1]}: {item!r} is not one of this result's interruptions"
            )
        item.decision, item.message = decision, message

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-able dict, marked with ``TRACE_FORMAT`` and its version."""
        return {
            "format": TRACE_FORMAT,
            "version": TRACE_VERSION,
            "answer": self.answer,
            "stop_reason": self.stop_reason,
            "error": self.error,
            "last_agent": self.last_agent,
            "invocation_id": self.invocation_id,
            "interruptions": [item.to_dict() for item in self.interruptions],
            "resumed": self.resumed,
            "messages": self.messages,
            "turns": [turn.to_dict() for turn in self.turns],
        }

    @classmethod
    def from_dict(cls, data: Any) -> AgentResult:
        """Rebuild a result from :meth:`to_dict` output.

        Raises:
            ValueError: ``data`` is not a trace of this format and version, or a turn
                or record in it is malformed (the message says which).
        """
        if not isinstance(data, Mapping) or data.get("format") != TRACE_FORMAT:
            raise ValueError(f"not a lagent-like trace: expected an object with format {TRACE_FORMAT!r}")
        if data.get("version") != TRACE_VERSION:
            raise ValueError(
                f"trace version {data.get('version')!r} is not supported (expected {TRACE_VERSION})"
            )
        turns = data.get("turns")
        messages = data.get("messages")
        if not isinstance(turns, list) or not isinstance(messages, list):
            raise ValueError("trace: 'turns' and 'messages' must be lists")
        rebuilt = []
        for position, turn in enumerate(turns):
            try:
                rebuilt.append(Turn.from_dict(turn))
            except (TypeError, AttributeError, ValueError) as exc:
                raise ValueError(f"trace: turn {position + 1} is malformed: {exc}") from None
        try:
            held = [Interruption.from_dict(item) for item in data.get("interruptions") or ()]
        except (TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"trace: an interruption is malformed: {exc}") from None
        return cls(
            answer=data.get("answer"),
            turns=rebuilt,
            stop_reason=str(data.get("stop_reason", "max_turns")),
            messages=list(messages),
            error=data.get("error"),
            last_agent=data.get("last_agent"),
            invocation_id=data.get("invocation_id"),
            interruptions=held,
            resumed=_flag(data, "resumed"),
        )

    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Write the result to ``path`` as a JSON trace file (UTF-8)."""
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=1, default=str)
        Path(path).write_text(text + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]]) -> AgentResult:
        """Read a trace file written by :meth:`save`.

        Raises:
            OSError: the file cannot be read.
            ValueError: the file is not JSON, or not a trace (the message names the file).
        """
        text = Path(path).read_text(encoding="utf-8")
        try:
            return cls.from_dict(json.loads(text))
        except ValueError as exc:
            raise ValueError(f"{os.fspath(path)}: {exc}") from None


def _flag(data: Mapping[str, Any], key: str) -> bool:
    """A true/false entry of a trace (absent: false), so that a hand-edited ``"yes"`` is refused.

    Raises:
        ValueError: the entry is there and not a JSON boolean.
    """
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"trace: {key!r} must be true or false, got {value!r}")
    return value
