"""``ReAct``: the agent loop that turns a chat model and an executor into answers.

The tool layer describes tools and runs calls; something has to sit between it and a
model: write the system prompt, read what the model asked for, run it, feed the result
back, and stop. This module is that loop, in the ReAct text format (``Thought`` /
``Action`` / ``Action Input`` / ``Observation`` / ``Final Answer``) that any chat model
can follow, or with native function calling for models that support it. It keeps the
whole trace, one :class:`Turn` per model reply, because an agent run is only debuggable
when every step and every refusal can be read afterwards; those records (and the
trace file they are saved in) are defined in :mod:`.trace` and re-exported here.
"""

from __future__ import annotations

import json
import string
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional, Union

from .._private.log import logger
from ..exceptions import DefinitionError
from ..executors._exports import _read_tool_call, tool_messages
from ..runtime._messages import native_calls
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from ._tool_search import with_tool_search
from .prompts import (
    DEFAULT_SYSTEM_TEMPLATE,
    FORMAT_REMINDER,
    TEMPLATE_FIELDS,
    render_tool_descriptions,
    tool_names,
)
from .react_parser import parse_react
from .trace import TRACE_FORMAT, TRACE_VERSION, AgentResult, Message, Turn

if TYPE_CHECKING:
    from ..executors._action_executor import ActionExecutor

__all__ = ["AgentResult", "DEFAULT_NATIVE_TEMPLATE", "TRACE_FORMAT", "TRACE_VERSION", "ReAct", "Turn"]

#: The system prompt in native mode: the tools travel in the request, not in the text.
DEFAULT_NATIVE_TEMPLATE = (
    "You are a helpful assistant that solves tasks step by step and can use tools. "
    "Call a tool whenever it helps. When you know the answer, reply with the final answer "
    "as plain text, without calling a tool."
)

#: Told to the model when a native-mode reply has neither tool calls nor text.
EMPTY_NATIVE_REPLY = "Your reply was empty. Call a tool, or reply with the final answer as text."


class _TurnEnd(NamedTuple):
    """A finished turn, and the answer and stop reason when it ended the run."""

    turn: Turn
    answer: Optional[str] = None
    stop_reason: Optional[str] = None


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


def _observation(ret: ActionReturn) -> str:
    """What the model is told about a call: the result, or what went wrong."""
    if ret.state == ActionStatusCode.SUCCESS:
        return ret.format_result()
    return ret.errmsg or ret.format_result()


def _normalized_call(call: Any) -> dict[str, Any]:
    """An OpenAI tool call (dict or client object) as a plain dict with string arguments."""
    call_id, name, arguments = _read_tool_call(call)
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False, default=str)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _repeat_key(turn: Turn) -> Optional[tuple[Any, ...]]:
    """What makes two turns the same call, or ``None`` for a turn that called nothing."""
    if turn.outcome != "action":
        return None
    if turn.tool_calls is not None:
        return tuple((c["function"]["name"], c["function"]["arguments"]) for c in turn.tool_calls)
    return (turn.action, turn.action_input)


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
        executor: runs the tools and describes them for the system prompt.
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
        tool_search: give the model ``search_tools(query)`` and only the tools it has found
            instead of the whole catalogue (searches run :meth:`~lagent_like.ActionExecutor.find_tools`); an
            int is how many tools a search returns (``True``: 5).
        model_params: keyword arguments for each model call. Plain callables get them
            only when given; a text-mode model that has ``chat`` (an ``OpenAIChat``) also
            gets ``stop=['Observation:']`` so that it cannot invent observations (set
            ``stop`` to ``None`` here to send no ``stop``).

    Raises:
        DefinitionError: the template has unknown placeholders or stray braces, or
            ``max_turns`` is below 1 (a ``ValueError``).
        TypeError: ``model`` is neither callable nor has ``chat``, or native mode was
            asked of a model without ``chat``.
    """

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
        tool_search: Union[bool, int] = False,
    ) -> None:
        executor = with_tool_search(executor, tool_search)
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
            return _chat_reply(chat(messages, tools=self.executor.to_openai_tools(), **self._params({})))

        return ask

    @property
    def system_prompt(self) -> str:
        """The system prompt for the executor's tools as they are now."""
        info = self.executor.get_actions_info()
        return self.system_template.format(
            tool_descriptions=render_tool_descriptions(info), tool_names=tool_names(info)
        )

    def run(self, question: str, history: Optional[Sequence[Message]] = None) -> AgentResult:
        """Answer ``question``, calling tools as the model asks, within ``max_turns`` replies.

        Never raises for what the model does: a model that raises ends the run with
        ``stop_reason='model_error'`` (``KeyboardInterrupt`` and other non-``Exception``
        errors go through). An exception from ``on_turn`` is the caller's and propagates.

        Args:
            question: the user's message.
            history: earlier messages of the conversation, placed between the system
                prompt and the question (copied, never changed).
        """
        messages: list[Message] = [{"role": "system", "content": self.system_prompt}]
        messages += [dict(message) for message in history or ()]
        messages.append({"role": "user", "content": question})
        result = AgentResult(messages=messages)
        play = self._native_turn if self.native_tools else self._text_turn
        first_seen: dict[tuple[Any, ...], int] = {}
        for index in range(1, self.max_turns + 1):
            sent = len(messages)
            started = time.perf_counter()
            try:
                reply = self._ask(list(messages))
            except Exception as exc:  # noqa: BLE001 - any model failure ends the run, recorded
                logger().warning("ReAct: the model raised in turn %d", index, exc_info=True)
                result.stop_reason = "model_error"
                result.error = f"{type(exc).__name__}: {exc}"
                return result
            answered = time.perf_counter()
            usage = getattr(self.model, "last_usage", None)
            end = play(index, reply, messages)
            end.turn.messages_sent = sent
            end.turn.model_seconds = answered - started
            end.turn.tool_seconds = time.perf_counter() - answered
            end.turn.usage = dict(usage) if isinstance(usage, Mapping) else None
            key = _repeat_key(end.turn)
            if key is not None:
                earlier = first_seen.setdefault(key, index)
                end.turn.repeat_of = earlier if earlier != index else None
            result.turns.append(end.turn)
            if self.on_turn is not None:
                self.on_turn(end.turn)
            if end.stop_reason is not None:
                result.answer, result.stop_reason = end.answer, end.stop_reason
                return result
        return result

    def _refuse(self, message: str) -> tuple[ActionReturn, str]:
        """Send a reply without a usable action to the executor's ``NoAction``."""
        ret = self.executor(self.executor.no_action.name, message)
        return ret, _observation(ret)

    def _text_turn(self, index: int, reply: Any, messages: list[Message]) -> _TurnEnd:
        step = parse_react(reply)
        messages.append({"role": "assistant", "content": step.text})
        if step.outcome == "final_answer":
            turn = Turn(index, reply, "final_answer", thought=step.thought)
            return _TurnEnd(turn, step.final_answer, "final_answer")
        if step.outcome == "action" and step.action is not None:
            ret = self._call(step.action, step.action_input or "")
            if ret.thought is None:
                ret.thought = step.thought
            if ret.valid == ActionValidCode.FINISH:
                turn = Turn(index, reply, "final_answer", step.thought, step.action, step.action_input, ret)
                return _TurnEnd(turn, ret.format_result(), "finish")
            observation = _observation(ret)
        else:
            names = tool_names(self.executor.get_actions_info())
            ret, observation = self._refuse(f"{step.error}\n{FORMAT_REMINDER.format(tool_names=names)}")
        messages.append({"role": "user", "content": f"Observation: {observation}"})
        turn = Turn(index, reply, step.outcome, step.thought, step.action, step.action_input, ret)
        turn.observation = observation
        return _TurnEnd(turn)

    def _native_turn(self, index: int, reply: Any, messages: list[Message]) -> _TurnEnd:
        content, raw_calls = reply
        if not raw_calls:
            messages.append({"role": "assistant", "content": content})
            if content.strip():
                return _TurnEnd(Turn(index, content, "final_answer"), content.strip(), "final_answer")
            ret, observation = self._refuse(EMPTY_NATIVE_REPLY)
            messages.append({"role": "user", "content": observation})
            return _TurnEnd(Turn(index, content, "no_action", action_return=ret, observation=observation))
        calls = [_normalized_call(call) for call in raw_calls]
        messages.append({"role": "assistant", "content": content or None, "tool_calls": calls})
        thought = content.strip() or None
        records = [self._run_call(call, thought) for call in calls]
        answers = tool_messages(calls, records)
        messages.extend(answers)
        first = calls[0]["function"]
        turn = Turn(
            index,
            content,
            "action",
            thought,
            first["name"],
            first["arguments"],
            records[0],
            tool_calls=calls,
            tool_returns=records,
            observation="\n".join(str(answer["content"]) for answer in answers),
        )
        finish = next((r for r in records if r is not None and r.valid == ActionValidCode.FINISH), None)
        if finish is None:
            return _TurnEnd(turn)
        turn.outcome, turn.observation = "final_answer", None
        return _TurnEnd(turn, finish.format_result(), "finish")

    def _run_call(self, call: dict[str, Any], thought: Optional[str]) -> Optional[ActionReturn]:
        """One native tool call through the executor; ``None`` when it names no function."""
        name = call["function"]["name"]
        if name is None:
            return None
        call_id = call["id"] if isinstance(call["id"], str) else None
        with native_calls():  # the model was given the aliases: messages name those
            ret = self._call(name, call["function"]["arguments"], None, call_id)
        self.executor._named_as_given([ret])
        if ret.thought is None:
            ret.thought = thought
        return ret

    def _call(self, name: str, *arguments: Any) -> ActionReturn:
        """``executor(name, *arguments)``, the call's chunks passed on to ``on_progress``."""
        report = self.on_progress
        if report is None:
            # Without the keyword: an executor of old (or a stand-in) still fits.
            return self.executor(name, *arguments)
        return self.executor(name, *arguments, on_progress=lambda chunk: report(name, chunk))


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
