"""``ReAct``: the agent loop that turns a chat model and an executor into answers.

The tool layer describes tools and runs calls; something has to sit between it and a
model: write the system prompt, read what the model asked for, run it, feed the result
back, and stop. This module is that loop, in the ReAct text format (``Thought`` /
``Action`` / ``Action Input`` / ``Observation`` / ``Final Answer``) that any chat model
can follow, or with native function calling for models that support it. It keeps the
whole trace, one :class:`Turn` per model reply, because an agent run is only debuggable
when every step and every refusal can be read afterwards; those records (and the
trace file they are saved in) are defined in :mod:`.trace` and re-exported here.

Agents compose: one may hand the conversation to another (:mod:`._handoff`), be
another's tool (:mod:`._as_tool`), stop for a person's approval and go on later
(:mod:`._approvals`), and report its run as events (:mod:`._events`). This class holds
what an agent is; the state of one run and its loop are in :mod:`._run`.
"""

from __future__ import annotations

import string
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ..exceptions import DefinitionError
from ..toolkits._function_tool import FunctionTool
from ._as_tool import agent_tool
from ._events import AgentEvent
from ._handoff import TRANSFER_TOOL, adopt_sub_agents, transfer_executor, transfer_targets
from ._run import EMPTY_NATIVE_REPLY, AgentRun, check_resumable
from ._stream import astream_run, stream_run
from ._tool_search import with_tool_search
from .prompts import DEFAULT_SYSTEM_TEMPLATE, TEMPLATE_FIELDS, render_tool_descriptions, tool_names
from .trace import TRACE_FORMAT, TRACE_VERSION, AgentResult, Message, Turn

if TYPE_CHECKING:
    from ..executors._action_executor import ActionExecutor

__all__ = [
    "AgentResult",
    "DEFAULT_NATIVE_TEMPLATE",
    "EMPTY_NATIVE_REPLY",
    "ReAct",
    "TRACE_FORMAT",
    "TRACE_VERSION",
    "Turn",
]

#: The system prompt in native mode: the tools travel in the request, not in the text.
DEFAULT_NATIVE_TEMPLATE = (
    "You are a helpful assistant that solves tasks step by step and can use tools. "
    "Call a tool whenever it helps. When you know the answer, reply with the final answer "
    "as plain text, without calling a tool."
)


def _default_text_params() -> dict[str, Any]:
    # A fresh dict each time: a client may keep or change what it is given.
    return {"stop": ["Observation:"]}


def _check_template(template: str) -> None:
    """Raise ``DefinitionError`` unless ``template`` formats with :data:`TEMPLATE_FIELDS`."""
    placeholders = ", ".join("{" + name + "}" for name in TEMPLATE_FIELDS)
    hint = f"use {placeholders}; write literal braces as {{{{ and }}}}"
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as exc:
        raise DefinitionError(f"system_template is not a valid str.format template ({exc}); {hint}") from None
    unknown = sorted({repr("{" + name + "}") for name in names if name not in TEMPLATE_FIELDS})
    if unknown:
        raise DefinitionError(f"system_template has unknown placeholders {', '.join(unknown)}; {hint}")
    try:
        template.format(**dict.fromkeys(TEMPLATE_FIELDS, ""))
    except (KeyError, IndexError, ValueError, AttributeError) as exc:
        raise DefinitionError(f"system_template cannot be formatted ({exc!r}); {hint}") from None


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


class ReAct:
    """A ReAct agent: a chat model thinking aloud and calling an executor's tools.

    Each turn the model gets the chat so far and replies. In text mode (the default)
    the reply is read with :func:`~lagent_like.agents.parse_react`: an ``Action`` runs
    through the executor and its result comes back as a user message ``Observation:
    ...``; a ``Final Answer`` (or a call of the executor's finish action) ends the run;
    a reply with neither, or with an unusable one, goes to the executor's ``NoAction``
    and the model is told what was wrong and the expected format. An unknown tool name
    reaches the executor, whose ``InvalidAction`` lists the available tools.

    Args:
        model: a callable ``messages -> str`` (OpenAI-style ``{'role', 'content'}``
            dicts in, the reply text out), or an object with ``chat(messages,
            tools=None, **params) -> {'role', 'content', 'tool_calls'?}`` such as
            :class:`lagent_like.llms.OpenAIChat` (which is both).
        executor: runs the tools and describes them for the system prompt: an
            ``ActionExecutor``, or an async one (``AsyncActionExecutor``,
            ``RayActionExecutor``), whose calls the loop runs to completion one at a
            time on one event loop per run (made at the run's first call and closed,
            its leftover tasks cancelled, when the run ends).
        system_template: the system prompt, a ``str.format`` template with
            ``{tool_descriptions}`` and ``{tool_names}`` (see
            :mod:`lagent_like.agents.prompts`); default :data:`DEFAULT_SYSTEM_TEMPLATE`,
            or :data:`DEFAULT_NATIVE_TEMPLATE` in native mode.
        max_turns: the most model replies one run may take.
        native_tools: use the model's native function calling: ``model.chat`` gets
            ``tools=executor.to_openai_tools()``, tool calls run through the executor and
            each result goes back as a ``tool`` message; a reply without tool calls is
            the final answer.
        on_turn: called with each :class:`Turn` as soon as it is done, in order.
        on_progress: called as ``on_progress(tool_name, chunk)`` with each chunk a
            generator tool yields, as it comes, while the call runs (the executor's
            ``on_progress``); the observation is still the whole output.
        model_params: keyword arguments for each model call. Plain callables get them
            only when given; a text-mode model that has ``chat`` (an ``OpenAIChat``) also
            gets ``stop=['Observation:']`` so that it cannot invent observations (set
            ``stop`` to ``None`` here to send no ``stop``).
        name: the agent's name, unique in its tree (``ToolContext.agent_name``, the
            traces, ``AgentResult.last_agent``, the transfer tool).
        description: what the agent does, told to agents that may hand over to it
            and used by :meth:`as_tool`.
        sub_agents: agents this one may hand the conversation to: the model gets a
            ``transfer_to_agent`` tool naming them (ADK's ``sub_agents``); each becomes
            this agent's child and may hand back. A tool hands over too by setting
            ``tool_context.actions.transfer_to_agent``, or by returning an agent or
            ``(agent, message)`` (LiveKit). After a handoff the other agent's model,
            tools and system prompt carry on the same conversation.
        before_model: called as ``before_model(messages)`` before each model call with
            the messages about to be sent (a copy it may edit); a reply it returns (the
            text, or in native mode a message dict) is used and the model is not called.
        after_model: called as ``after_model(reply)`` with each reply (text, or in
            native mode ``{'role', 'content', 'tool_calls'}``); a value it returns
            replaces the reply. Either callback may raise
            :class:`~lagent_like.exceptions.GuardrailTripwire` to halt the run.
        tool_search: give the model ``search_tools(query)`` and only the tools it has found
            instead of the whole catalogue (searches run
            :meth:`~lagent_like.ActionExecutor.find_tools`); an int is how many tools a
            search returns (``True``: 5).

    Raises:
        DefinitionError: the template has unknown placeholders or stray braces, or
            ``max_turns`` is below 1 (a ``ValueError``).
        TypeError: ``model`` is neither callable nor has ``chat``, or native mode was
            asked of a model without ``chat``, or a sub-agent is not a ``ReAct``.
    """

    #: Marks agents: a tool returning one hands the conversation over.
    __lagent_like_agent__ = True

    def __init__(
        self,
        model: Any,
        executor: ActionExecutor,
        *,
        system_template: Optional[str] = None,
        max_turns: int = 10,
        native_tools: bool = False,
        on_turn: Optional[Callable[[Turn], None]] = None,
        model_params: Optional[dict[str, Any]] = None,
        on_progress: Optional[Callable[[str, Any], Any]] = None,
        name: str = "agent",
        description: str = "",
        sub_agents: Iterable[ReAct] = (),
        before_model: Optional[Callable[[list[Message]], Any]] = None,
        after_model: Optional[Callable[[Any], Any]] = None,
        tool_search: Union[bool, int] = False,
    ) -> None:
        executor = with_tool_search(executor, tool_search)
        if not isinstance(name, str) or not name:
            raise DefinitionError(f"ReAct: name must be a non-empty str, got {name!r}")
        if max_turns < 1:
            raise DefinitionError(f"max_turns must be at least 1, got {max_turns!r}")
        if system_template is None:
            system_template = DEFAULT_NATIVE_TEMPLATE if native_tools else DEFAULT_SYSTEM_TEMPLATE
        _check_template(system_template)
        self.model = model
        self.executor = executor
        self.system_template = system_template
        self.max_turns = max_turns
        self.native_tools = native_tools
        self.on_turn = on_turn
        self.on_progress = on_progress
        self.model_params = dict(model_params or {})
        self.name = name
        self.description = description
        self.before_model = before_model
        self.after_model = after_model
        self.parent_agent: Optional[ReAct] = None
        self.sub_agents: list[ReAct] = []
        self._transfer_cache: Optional[tuple[tuple[int, ...], Optional[ActionExecutor]]] = None
        self.sub_agents = adopt_sub_agents(self, sub_agents)
        if self.sub_agents and TRANSFER_TOOL in getattr(executor, "actions", {}):
            raise DefinitionError(
                f"ReAct {name!r}: the executor has a tool named {TRANSFER_TOOL!r}, the name of the "
                f"tool that hands over to sub-agents; rename that tool"
            )
        self._ask: Callable[[list[Message]], Any] = (
            self._native_caller() if native_tools else self._text_caller()
        )

    def _params(self, defaults: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments of one model call; read per call, so edits take effect."""
        merged = {**defaults, **self.model_params}
        return {key: value for key, value in merged.items() if value is not None}

    def _text_caller(self) -> Callable[[list[Message]], str]:
        """``messages -> reply text`` for the model."""
        chat = getattr(self.model, "chat", None)
        defaults = _default_text_params if callable(chat) else dict
        if callable(self.model):
            model = self.model
            return lambda messages: _text_reply(model(messages, **self._params(defaults())))
        if callable(chat):

            def ask_chat(messages: list[Message]) -> str:
                return _text_reply(_field(chat(messages, **self._params(defaults())), "content") or "")

            return ask_chat
        raise TypeError(
            f"ReAct: model must be a callable messages -> str or have a chat() method; "
            f"got {type(self.model).__name__}"
        )

    def _native_caller(self) -> Callable[[list[Message]], tuple[str, list[Any]]]:
        """``messages -> (content, tool calls)`` for the model's ``chat``, with the tools."""
        chat = getattr(self.model, "chat", None)
        if not callable(chat):
            raise TypeError(
                "ReAct: native_tools=True needs a model with chat(messages, tools=None, **params); "
                f"{type(self.model).__name__} has none"
            )

        def ask(messages: list[Message]) -> tuple[str, list[Any]]:
            # The tools are read per call: they may be enabled or added during a run.
            return _chat_reply(chat(messages, tools=self._openai_tools(), **self._params({})))

        return ask

    @property
    def system_prompt(self) -> str:
        """The system prompt for the agent's tools as they are now."""
        info = self.tool_info()
        return self.system_template.format(
            tool_descriptions=render_tool_descriptions(info), tool_names=tool_names(info)
        )

    def tool_info(self) -> list[dict[str, Any]]:
        """The tools offered to the model, as ``get_actions_info`` entries.

        The executor's tools, then ``transfer_to_agent`` when the agent has sub-agents
        or a parent.
        """
        info = self.executor.get_actions_info()
        transfer = self._transfer()
        return info + transfer.get_actions_info() if transfer is not None else info

    def _openai_tools(self) -> list[dict[str, Any]]:
        tools = self.executor.to_openai_tools()
        transfer = self._transfer()
        return tools + transfer.to_openai_tools() if transfer is not None else tools

    def _transfer(self) -> Optional[ActionExecutor]:
        """The executor of this agent's ``transfer_to_agent`` tool (rebuilt when the tree changes)."""
        key = tuple(id(agent) for agent in transfer_targets(self))
        if self._transfer_cache is None or self._transfer_cache[0] != key:
            self._transfer_cache = (key, transfer_executor(self))
        return self._transfer_cache[1]

    def executor_for(self, name: str) -> Any:
        """The executor that runs a call of tool ``name``: the agent's, or its transfer tool's."""
        if name == TRANSFER_TOOL:
            transfer = self._transfer()
            if transfer is not None:
                return transfer
        return self.executor

    def find_agent(self, name: Optional[str]) -> ReAct:
        """The agent named ``name`` in this agent's tree (this agent, its sub-agents, theirs).

        Raises:
            ValueError: no agent of the tree has that name.
        """
        pending = [self]
        while pending:
            agent = pending.pop()
            if agent.name == name:
                return agent
            pending.extend(agent.sub_agents)
        raise ValueError(f"ReAct {self.name!r}: no agent named {name!r} among it and its sub-agents")

    def _reply_of(self, reply: Any) -> Any:
        """A reply given by a model callback, read as the model's own would be."""
        return _chat_reply(reply) if self.native_tools else _text_reply(reply)

    def _reply_view(self, reply: Any) -> Any:
        """A reply as ``after_model`` sees it: the text, or in native mode a message dict."""
        if not self.native_tools:
            return reply
        content, calls = reply
        return {"role": "assistant", "content": content, "tool_calls": calls}

    def run(
        self, question: str, history: Optional[Sequence[Message]] = None, *, context: Any = None
    ) -> AgentResult:
        """Answer ``question``, calling tools as the model asks, within ``max_turns`` replies.

        Never raises for what the model does: a model that raises ends the run with
        ``stop_reason='model_error'`` (``KeyboardInterrupt`` and other non-``Exception``
        errors go through). An exception from ``on_turn`` is the caller's and propagates.

        Args:
            question: the user's message.
            history: earlier messages of the conversation, placed between the system
                prompt and the question (copied, never changed).
            context: the run's own context object: every tool call sees it as
                ``ToolContext.context`` (agents asked through ``as_tool`` too).

        Returns:
            The run's result and trace; see :class:`AgentResult` for the stop reasons.
        """
        return AgentRun(self, self._new_result(question, history), context).play()

    def _new_result(self, question: str, history: Optional[Sequence[Message]]) -> AgentResult:
        messages: list[Message] = [{"role": "system", "content": self.system_prompt}]
        messages += [dict(message) for message in history or ()]
        messages.append({"role": "user", "content": question})
        return AgentResult(messages=messages, last_agent=self.name, invocation_id=uuid.uuid4().hex)

    def resume(self, result: AgentResult, *, context: Any = None) -> AgentResult:
        """Go on with a run that stopped for approval, once every held call is decided.

        The approved calls run (an ``ApprovalHook`` lets them through), the rejected
        ones are answered with their message, and the run continues from the turn it
        stopped in, with the same ``invocation_id``. ``result`` itself is not changed:
        the continued run is a new result (it may come from :meth:`AgentResult.load`).

        Args:
            result: an ``'interrupted'`` result of a run of this agent (or its tree).
            context: the run's own context object, as for :meth:`run`; default the one
                the run was given, when it ran in this process (a loaded result has
                none: pass it again).

        Returns:
            The continued run's result.

        Raises:
            ValueError: ``result`` did not stop with ``'interrupted'``, was resumed
                already, a held call is still undecided (or has a decision other than
                ``'approved'`` / ``'rejected'``), or an agent of the run is not in this
                agent's tree (nor, in this process, one a tool returned). "Resumed
                already" is known from the object and from a file saved after the
                resume (``result.resumed``); two copies saved *before* it cannot know
                of each other, so each would run the approved calls.
        """
        return self._taken_up(result, context).resume()

    def _taken_up(self, result: AgentResult, context: Any) -> AgentRun:
        """The run that goes on with ``result``, which is marked resumed (see :meth:`resume`)."""
        check_resumable(result)
        copy = AgentResult.from_dict(result.to_dict())
        copy._agents = dict(result._agents)
        run = AgentRun(self, copy, context if context is not None else result._context)
        run.take_up()
        # From here the approved calls run: a second resume would run them again.
        result.resumed = True
        return run

    def resume_stream(self, result: AgentResult, *, context: Any = None) -> Iterator[AgentEvent]:
        """Go on as :meth:`resume` does, yielding the resumed part's events as they happen.

        The events are those :meth:`stream` yields, from the decided calls on: a
        :class:`ToolCallEvent` and :class:`ToolResultEvent` for each approved call, a
        :class:`ToolResultEvent` with the refusal for each rejected one, then the turns
        that follow, and last a :class:`FinalAnswerEvent` holding the continued run's
        result. The result is checked, and marked resumed, when this is called (a
        ``ValueError`` is raised here, not while iterating); the run then plays in a
        worker thread, as for :meth:`stream`. :meth:`aresume_stream` is the same for an
        event loop.

        Args:
            result: an ``'interrupted'`` result, every held call decided, as for :meth:`resume`.
            context: the run's own context object, as for :meth:`resume`.

        Returns:
            An iterator of the resumed part's events.

        Raises:
            ValueError: as :meth:`resume` does.
        """
        run = self._taken_up(result, context)
        return stream_run(lambda emit: run.resume(emit))

    def aresume_stream(self, result: AgentResult, *, context: Any = None) -> AsyncIterator[AgentEvent]:
        """:meth:`resume_stream` for an event loop: ``async for event in agent.aresume_stream(result)``.

        Args:
            result: an ``'interrupted'`` result, every held call decided, as for :meth:`resume`.
            context: the run's own context object, as for :meth:`resume`.

        Returns:
            An async iterator of the events :meth:`resume_stream` yields, in the same order.

        Raises:
            ValueError: as :meth:`resume` does, when called.
        """
        run = self._taken_up(result, context)
        return astream_run(lambda emit: run.resume(emit))

    def stream(
        self, question: str, history: Optional[Sequence[Message]] = None, *, context: Any = None
    ) -> Iterator[AgentEvent]:
        """Run as :meth:`run` does, yielding the run's events as they happen.

        The run goes on in a worker thread, so that a tool's chunks arrive while it
        runs; the last event is always a :class:`FinalAnswerEvent` holding the whole
        result. An exception the run raises (from ``on_turn``, say) is raised here.
        Stopping early leaves the run to finish in its thread. :meth:`astream` is the
        same for an event loop.

        Args:
            question: the user's message.
            history: earlier messages, as for :meth:`run`.
            context: the run's own context object, as for :meth:`run`.

        Yields:
            :class:`ModelTextEvent`, :class:`ToolCallEvent`, :class:`ToolProgressEvent`,
            :class:`ToolResultEvent`, :class:`HandoffEvent`, :class:`InterruptionEvent`
            and, last, :class:`FinalAnswerEvent`.
        """
        return stream_run(
            lambda emit: AgentRun(self, self._new_result(question, history), context, emit).play()
        )

    def astream(
        self, question: str, history: Optional[Sequence[Message]] = None, *, context: Any = None
    ) -> AsyncIterator[AgentEvent]:
        """:meth:`stream` for an event loop: ``async for event in agent.astream(question)``.

        The model and tools still run synchronously, in a worker thread; the loop only
        awaits the events, so it is never blocked by the run.

        Args:
            question: the user's message.
            history: earlier messages, as for :meth:`run`.
            context: the run's own context object, as for :meth:`run`.

        Returns:
            An async iterator of the events :meth:`stream` yields, in the same order.
        """
        return astream_run(
            lambda emit: AgentRun(self, self._new_result(question, history), context, emit).play()
        )

    def as_tool(self, name: Optional[str] = None, description: Optional[str] = None) -> FunctionTool:
        """This agent as a tool with one ``request`` parameter, for another agent's executor.

        Args:
            name: the tool name; default the agent's ``name``.
            description: what the tool does, for the model; default the agent's
                ``description``.

        Returns:
            A tool whose call runs this agent on the request and answers with its
            final answer; the record's result item keeps the nested trace under
            ``'trace'`` (read it back with :func:`~lagent_like.agents.nested_trace`).
        """
        return agent_tool(self, name, description)


def _text_reply(reply: Any) -> str:
    if not isinstance(reply, str):
        raise TypeError(f"the model returned {type(reply).__name__}, expected str")
    return reply


def _chat_reply(reply: Any) -> tuple[str, list[Any]]:
    """``(content, tool_calls)`` of a ``chat()`` reply (a dict or a client object)."""
    if isinstance(reply, str):
        return reply, []
    if reply is None:
        raise TypeError("model.chat returned None, expected a message dict")
    content = _field(reply, "content")
    calls = _field(reply, "tool_calls")
    return (content if isinstance(content, str) else ""), list(calls or [])
