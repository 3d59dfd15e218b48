"""``ToolContext``: what a tool may know about the call it is serving.

A parameter annotated ``ToolContext`` is never described to the model, never parsed
or validated: the executor fills it with the call's session, a state dict that
persists for that session, the tool and API names, the call id and the executor
itself (as Google ADK's ``tool_context`` and LiveKit's ``RunContext`` do). Inside an
agent run it also names the agent and the run, carries the run's own context object,
and has :class:`ToolActions`, through which a tool steers the agent's loop: hand the
conversation to another agent, end the run, or skip the model's summary (ADK's
``EventActions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ._private.records import FACTORY, field_eq, field_repr

__all__ = ["DEFAULT_SESSION", "AgentScope", "ToolActions", "ToolContext", "handoff_of"]

#: The session of calls made without a ``session_id``.
DEFAULT_SESSION = "default"


@dataclass(init=False, repr=False, eq=False)
class ToolActions:
    """What a tool asks the agent running it to do once the call is over.

    Set these on ``tool_context.actions`` (seed: ADK's ``EventActions``); an agent
    reads them after the call. Outside an agent run nothing reads them.

    Attributes:
        transfer_to_agent: the name of the agent to hand the conversation to; it must
            be one of the running agent's ``sub_agents`` (or its parent), else the
            model is told the names it may use.
        escalate: end the run now, with ``stop_reason='escalated'`` (ADK's
            ``escalate``: a loop or sub-agent gives control back).
        skip_summarization: end the run with this call's result as the final answer,
            without asking the model to summarise it.
        handoff: the agent a tool returned (LiveKit's handoff by return), set by the
            executor; a tool sets ``transfer_to_agent`` instead.
        handoff_message: the message returned with that agent (``(agent, message)``),
            told to the model in place of a tool result.
    """

    transfer_to_agent: Optional[str] = None
    escalate: bool = False
    skip_summarization: bool = False
    handoff: Any = None
    handoff_message: Optional[str] = None

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        transfer_to_agent: Optional[str] = None,
        escalate: bool = False,
        skip_summarization: bool = False,
        handoff: Any = None,
        handoff_message: Optional[str] = None,
    ) -> None:
        self.transfer_to_agent = transfer_to_agent
        self.escalate = escalate
        self.skip_summarization = skip_summarization
        self.handoff = handoff
        self.handoff_message = handoff_message

    __repr__ = field_repr
    __eq__ = field_eq

    def __bool__(self) -> bool:
        """Whether any action was asked for."""
        return bool(
            self.transfer_to_agent is not None or self.escalate or self.skip_summarization or self.handoff
        )


@dataclass(init=False, repr=False, eq=False)
class AgentScope:
    """What an agent run tells the executor about each call it makes.

    Pass one as ``executor(name, command, context=scope)``; any other object given as
    ``context`` is the run's own context object (:attr:`ToolContext.context`).

    Attributes:
        agent_name: the agent making the call.
        invocation_id: the id of the agent run (one per ``run``).
        context: the run's own context object (``ReAct.run(..., context=obj)``).
        actions: where the call's :class:`ToolActions` go; the agent reads them after
            the call (a fresh one per call).
        approved: a person approved this call (an interrupted run resumed);
            :class:`~lagent_like.runtime.hooks.ApprovalHook` lets it run.
        paused_run: for an approved call of an agent tool whose own run was waiting
            for approval, that run as saved (``AgentResult.to_dict()``): the tool
            resumes it instead of starting again.
    """

    agent_name: Optional[str] = None
    invocation_id: Optional[str] = None
    context: Any = None
    actions: ToolActions = field(default_factory=ToolActions)
    approved: bool = False
    paused_run: Optional[dict[str, Any]] = None

    # Written here rather than by @dataclass (see ToolActions).
    def __init__(
        self,
        agent_name: Optional[str] = None,
        invocation_id: Optional[str] = None,
        context: Any = None,
        actions: ToolActions = FACTORY,
        approved: bool = False,
        paused_run: Optional[dict[str, Any]] = None,
    ) -> None:
        self.agent_name = agent_name
        self.invocation_id = invocation_id
        self.context = context
        self.actions = ToolActions() if actions is FACTORY else actions
        self.approved = approved
        self.paused_run = paused_run

    __repr__ = field_repr
    __eq__ = field_eq


@dataclass(init=False, repr=False, eq=False)
class ToolContext:
    """The context of one tool call.

    Attributes:
        session_id: the conversation or user session the call belongs to.
        state: a dict shared by every call of the same session in one executor; tools
            keep what they learn here. Sessions never see each other's state. When the
            tool fails (its record is not a success), the keys it set or deleted are
            put back as they were before it ran (ADK commits a call's state delta on
            success); values changed in place (a list appended to) are not, nor
            what hooks wrote.
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
        agent_name: the agent that made the call, or ``None`` outside an agent run.
        invocation_id: the id of the agent run the call belongs to (one per run).
        function_call: the call as the model wrote it: ``{'id', 'name', 'arguments'}``
            (the arguments unparsed).
        context: the run's own context object (``ReAct.run(..., context=obj)`` or
            ``executor(..., context=obj)``), ``None`` when none was given.
        actions: what the tool asks the agent to do next (see :class:`ToolActions`).
        approved: a person approved this call (see :class:`AgentScope`).
        paused_run: the saved run an approved agent tool resumes (see
            :class:`AgentScope`).
    """

    session_id: str = DEFAULT_SESSION
    state: dict[str, Any] = field(default_factory=dict)
    tool_name: str = ""
    api_name: str = ""
    call_id: Optional[str] = None
    executor: Any = None
    on_progress: Optional[Callable[[Any], Any]] = None
    cancelled: bool = False
    # Two fields for the agent's part, read through the properties below: every field
    # costs each call's construction, and the call path is hot.
    _scope: Optional[AgentScope] = field(default=None, repr=False)
    _call: Optional[tuple[Any, Any]] = field(default=None, repr=False)

    # Written here rather than by @dataclass (see ToolActions).
    def __init__(
        self,
        session_id: str = DEFAULT_SESSION,
        state: dict[str, Any] = FACTORY,
        tool_name: str = "",
        api_name: str = "",
        call_id: Optional[str] = None,
        executor: Any = None,
        on_progress: Optional[Callable[[Any], Any]] = None,
        cancelled: bool = False,
        _scope: Optional[AgentScope] = None,
        _call: Optional[tuple[Any, Any]] = None,
    ) -> None:
        self.session_id = session_id
        self.state = {} if state is FACTORY else state
        self.tool_name = tool_name
        self.api_name = api_name
        self.call_id = call_id
        self.executor = executor
        self.on_progress = on_progress
        self.cancelled = cancelled
        self._scope = _scope
        self._call = _call

    __repr__ = field_repr
    __eq__ = field_eq

    @property
    def agent_name(self) -> Optional[str]:
        """The agent that made the call, or ``None`` outside an agent run."""
        return None if self._scope is None else self._scope.agent_name

    @property
    def invocation_id(self) -> Optional[str]:
        """The id of the agent run the call belongs to (one per run)."""
        return None if self._scope is None else self._scope.invocation_id

    @property
    def context(self) -> Any:
        """The run's own context object, ``None`` when none was given."""
        return None if self._scope is None else self._scope.context

    @property
    def approved(self) -> bool:
        """Whether a person approved this call (see :class:`AgentScope`)."""
        return False if self._scope is None else self._scope.approved

    @property
    def paused_run(self) -> Optional[dict[str, Any]]:
        """The saved run an approved agent tool resumes (see :class:`AgentScope`)."""
        return None if self._scope is None else self._scope.paused_run

    @property
    def actions(self) -> ToolActions:
        """What the tool asks the agent to do next (see :class:`ToolActions`)."""
        if self._scope is None:
            self._scope = AgentScope()
        return self._scope.actions

    @property
    def function_call(self) -> Optional[dict[str, Any]]:
        """The call as the model wrote it, ``{'id', 'name', 'arguments'}`` (arguments unparsed), or None."""
        if self._call is None:
            return None
        return {"id": self.call_id, "name": self._call[0], "arguments": self._call[1]}


def handoff_of(output: Any) -> Optional[tuple[Any, Optional[str]]]:
    """``(agent, message)`` when a tool's return value hands the conversation over, else ``None``.

    An agent is an object whose class sets ``__lagent_like_agent__ = True`` (as
    :class:`~lagent_like.agents.ReAct` does); a tool returns one, or a pair
    ``(agent, message)`` (LiveKit's idiom).
    """
    if getattr(type(output), "__lagent_like_agent__", False):
        return output, None
    if (
        type(output) is tuple
        and len(output) == 2
        and getattr(type(output[0]), "__lagent_like_agent__", False)
        and (output[1] is None or isinstance(output[1], str))
    ):
        return output[0], output[1]
    return None
