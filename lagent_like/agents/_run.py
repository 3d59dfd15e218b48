"""One agent run, turn by turn: the loop behind ``ReAct.run``, ``resume`` and ``stream``.

The :class:`~lagent_like.agents.ReAct` object holds what an agent *is* (model,
tools, prompt, callbacks, sub-agents); an :class:`AgentRun` holds what one run *has*
(the chat so far, the agent speaking now, the calls held for approval, what the
tools asked for) and plays the turns. Keeping the run's state out of the agent lets one
agent serve many runs, and lets a run stopped for approval go on from a saved result.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional, cast

from .._private.log import logger
from ..context import AgentScope, ToolActions
from ..exceptions import GuardrailTripwire
from ..executors._exports import _read_tool_call, call_results, read_calls
from ..runtime._messages import native_calls
from ..runtime.hooks import ApprovalHook
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from ._approvals import Interruption
from ._as_tool import saved_trace
from ._events import (
    FinalAnswerEvent,
    HandoffEvent,
    InterruptionEvent,
    ModelTextEvent,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
)
from ._handoff import find_target, root_of, unknown_target
from ._loop import RunLoop
from .prompts import FORMAT_REMINDER, tool_names
from .react_parser import parse_react
from .trace import AgentResult, Turn

if TYPE_CHECKING:
    from .react import ReAct

__all__ = ["AgentRun", "check_resumable"]

#: Told to the model when a native-mode reply has neither tool calls nor text.
EMPTY_NATIVE_REPLY = "Your reply was empty. Call a tool, or reply with the final answer as text."


class _TurnEnd(NamedTuple):
    """A finished turn, and the answer and stop reason when it ended the run."""

    turn: Turn
    answer: Optional[str] = None
    stop_reason: Optional[str] = None


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


def _ignore(event: Any) -> None:
    """The event sink of a run nobody streams."""


_DECISIONS = (None, "approved", "rejected")


def check_resumable(result: AgentResult) -> None:
    """Raise unless ``result`` is a run waiting for approval whose held calls are all decided.

    Raises:
        ValueError: ``result`` did not stop with ``'interrupted'``, was resumed already,
            or a held call is undecided or has an unknown decision (a hand-edited file).
    """
    if result.resumed:
        raise ValueError(
            "ReAct.resume: this result was resumed already and its approved calls ran; "
            "go on with the result that resume() returned"
        )
    if result.stop_reason != "interrupted" or not result.interruptions or not result.turns:
        raise ValueError(
            f"ReAct.resume: the run stopped with {result.stop_reason!r}, not 'interrupted'; "
            f"only a run waiting for approval can be resumed"
        )
    unknown = [(item.tool, item.decision) for item in result.interruptions if item.decision not in _DECISIONS]
    if unknown:
        raise ValueError(
            f"ReAct.resume: a decision is 'approved' or 'rejected' (use result.approve(item) or "
            f"result.reject(item, message)); got {unknown}"
        )
    undecided = [item.tool for item in result.interruptions if item.decision is None]
    if undecided:
        raise ValueError(
            f"ReAct.resume: decide every held call first (result.approve(item) or "
            f"result.reject(item, message)); undecided: {undecided}"
        )


class AgentRun:
    """The state of one run of ``root``'s agent tree, and the loop that plays it.

    Args:
        root: the agent ``run`` (or ``resume``) was called on.
        result: the result being built: new, or an interrupted one to go on with.
        context: the run's own context object, for ``ToolContext.context``.
        emit: called with each event as it happens (see :mod:`._events`).
    """

    def __init__(
        self,
        root: ReAct,
        result: AgentResult,
        context: Any = None,
        emit: Callable[[Any], None] = _ignore,
    ) -> None:
        self.root = root
        self.result = result
        self.context = result._context = context
        self.emit = emit
        self.agent = self._agent_named(result.last_agent) if result.last_agent else root
        self.held: list[Interruption] = []
        # What the calls of the turn being played asked for: (position, actions, record).
        self.asked: list[tuple[int, ToolActions, ActionReturn]] = []
        self.tripped: Optional[str] = None
        # The event loop of an async executor's calls, one for the whole run.
        self.loop = RunLoop()
        self.first_seen: dict[tuple[Any, ...], int] = {}
        for turn in result.turns:
            key = _repeat_key(turn)
            if key is not None:
                self.first_seen.setdefault(key, turn.index)

    # ------------------------------------------------------------------ the loop

    def play(self, start: int = 1) -> AgentResult:
        """Play turns from ``start`` until the run stops or ``max_turns`` is reached."""
        try:
            self._play(start)
        finally:
            self.loop.close()
        return self._ended()

    def _play(self, start: int) -> None:
        for index in range(start, self.root.max_turns + 1):
            if self._turn(index):
                return
        self._stop(None, "max_turns")

    def _ended(self) -> AgentResult:
        result = self.result
        self.emit(FinalAnswerEvent(result.answer, result.stop_reason, result))
        return result

    def take_up(self) -> None:
        """Take up what the interrupted turn's calls asked for (a handoff, say), before :meth:`resume`.

        It is acted on after the held calls are decided, in the order the calls were made.

        Raises:
            ValueError: a call handed over to an agent that cannot be found by name
                (see :meth:`_agent_named`); nothing has run.
        """
        turn = self.result.turns[-1]
        self.asked = [self._restored(saved) for saved in turn.tool_actions or ()]

    def resume(self, emit: Optional[Callable[[Any], None]] = None) -> AgentResult:
        """Decide the held calls of the interrupted last turn, finish it, and play on.

        Args:
            emit: where the events go from here, when not where the run was made with.
        """
        if emit is not None:
            self.emit = emit
        try:
            self._go_on()
        finally:
            self.loop.close()
        return self._ended()

    def _go_on(self) -> None:
        turn = self.result.turns[-1]
        held, self.result.interruptions = self.result.interruptions, []
        for item in held:
            ret = self._decided(item, turn)
            if turn.tool_returns is not None:
                turn.tool_returns[item.position] = ret
            if item.position == 0:
                turn.action_return = ret
        if not self._settle(_TurnEnd(turn)):
            self._play(turn.index + 1)

    def _decided(self, item: Interruption, turn: Turn) -> ActionReturn:
        """The record of a held call once decided: run (approved) or refused."""
        if item.decision == "approved":
            if turn.tool_calls is None:
                ret = self._call(item.tool, item.arguments, None, item.turn, item.position, item)
            else:
                ret = self._native_call(
                    item.tool, item.arguments, item.call_id, item.turn, item.position, item
                )
        else:
            message = item.message or ApprovalHook.denied_message(item.tool)
            ret = ActionReturn(type=item.tool, errmsg=message, state=ActionStatusCode.API_ERROR)
            self.emit(ToolResultEvent(self.agent.name, item.turn, item.tool, ret))
        if ret.thought is None:
            ret.thought = turn.thought
        return ret

    def _turn(self, index: int) -> bool:
        """Play turn ``index``; true when the run ended with it."""
        agent, messages = self.agent, self.result.messages
        sent = len(messages)
        started = time.perf_counter()
        try:
            reply = self._ask(index)
        except GuardrailTripwire as exc:
            self.result.error = exc.reason
            return self._stopped(None, "tripwire")
        except Exception as exc:  # noqa: BLE001 - any model failure ends the run, recorded
            logger().warning("ReAct: the model raised in turn %d", index, exc_info=True)
            self.result.error = f"{type(exc).__name__}: {exc}"
            return self._stopped(None, "model_error")
        answered = time.perf_counter()
        usage = getattr(agent.model, "last_usage", None)
        end = self._native_turn(index, reply) if agent.native_tools else self._text_turn(index, reply)
        turn = end.turn
        turn.agent = agent.name
        turn.messages_sent = sent
        turn.model_seconds = answered - started
        turn.tool_seconds = time.perf_counter() - answered
        turn.usage = dict(usage) if isinstance(usage, Mapping) else None
        key = _repeat_key(turn)
        if key is not None:
            earlier = self.first_seen.setdefault(key, index)
            turn.repeat_of = earlier if earlier != index else None
        self.result.turns.append(turn)
        ended = self._settle(end)
        # After settling: the observation and any handoff are on the turn by then.
        if self.root.on_turn is not None:
            self.root.on_turn(turn)
        return ended

    def _ask(self, index: int) -> Any:
        """The model's reply for turn ``index``, through the agent's model callbacks."""
        agent = self.agent
        sent = list(self.result.messages)
        reply = agent.before_model(sent) if agent.before_model is not None else None
        reply = agent._ask(sent) if reply is None else agent._reply_of(reply)
        if agent.after_model is not None:
            edited = agent.after_model(agent._reply_view(reply))
            if edited is not None:
                reply = agent._reply_of(edited)
        self.emit(ModelTextEvent(agent.name, index, reply if isinstance(reply, str) else reply[0]))
        return reply

    def _settle(self, end: _TurnEnd) -> bool:
        """Act on a played turn: stop, hold for approval, or send the results and go on."""
        if self.asked:
            self.asked.sort(key=_position)
            end.turn.tool_actions = [_saved_actions(*asked) for asked in self.asked]
        if end.stop_reason is not None:
            return self._stopped(end.answer, end.stop_reason)
        if self.tripped is not None:
            self.result.error = self.tripped
            return self._stopped(None, "tripwire")
        if self.held:
            self.result.interruptions, self.held = self.held, []
            self.emit(InterruptionEvent(tuple(self.result.interruptions)))
            return self._stopped(None, "interrupted")
        turn = end.turn
        if turn.outcome == "action" and turn.observation is None:
            self._send_results(turn)
        return self._follow(turn)

    def _send_results(self, turn: Turn) -> None:
        """Tell the model what its calls gave."""
        if turn.tool_calls is None and turn.action_return is not None:
            turn.observation = _observation(turn.action_return)
            self.result.messages.append({"role": "user", "content": f"Observation: {turn.observation}"})
            return
        answers = call_results(read_calls(turn.tool_calls or []), turn.tool_returns or [])
        self.result.messages.extend(answers)
        turn.observation = "\n".join(str(answer["content"]) for answer in answers)

    def _follow(self, turn: Turn) -> bool:
        """Do what the turn's tools asked for (escalate, answer, hand over); true when the run ended."""
        asked, self.asked = self.asked, []
        for _, actions, ret in asked:
            if actions.escalate:
                return self._stopped(_observation(ret), "escalated")
        for _, actions, ret in asked:
            if actions.skip_summarization:
                return self._stopped(_observation(ret), "skip_summarization")
        for _, actions, _ in asked:
            target = actions.handoff
            if target is None and actions.transfer_to_agent is not None:
                target = find_target(self.agent, actions.transfer_to_agent)
            if target is not None:
                self._hand_over(target, turn)
                break
        return False

    def _agent_named(self, name: str) -> ReAct:
        """The agent of the run called ``name``: one a tool returned, or one of the tree.

        Raises:
            ValueError: no such agent: the result is of another agent's run, or a tool
                returned the agent and this process (a loaded result) has not seen it.
        """
        returned = self.result._agents.get(name)
        if returned is not None:
            return cast("ReAct", returned)
        try:
            return root_of(self.root).find_agent(name)
        except ValueError:
            raise ValueError(
                f"ReAct.resume: the run's agent {name!r} is neither in the agent tree of "
                f"{self.root.name!r} nor an agent a tool returned in this process (a loaded "
                f"result finds agents by name only); resume with the agent the run started on, "
                f"or add {name!r} to the sub_agents of {self.root.name!r} or of one of its sub-agents"
            ) from None

    def _restored(self, saved: Mapping[str, Any]) -> tuple[int, ToolActions, ActionReturn]:
        """A call's saved actions (``Turn.tool_actions``) with its record, ready to act on."""
        position = int(saved["position"])
        turn = self.result.turns[-1]
        ret = turn.tool_returns[position] if turn.tool_returns is not None else turn.action_return
        handoff = saved.get("handoff")
        actions = ToolActions(
            saved.get("transfer_to_agent"),
            bool(saved.get("escalate")),
            bool(saved.get("skip_summarization")),
            None if handoff is None else self._agent_named(handoff),
            saved.get("handoff_message"),
        )
        return position, actions, ret if ret is not None else ActionReturn()

    def _hand_over(self, target: ReAct, turn: Turn) -> None:
        """Give the conversation to ``target``: its system prompt, its model and tools."""
        turn.handoff = target.name
        self.emit(HandoffEvent(self.agent.name, target.name, turn.index))
        self.agent = target
        self.result.messages[0] = {"role": "system", "content": target.system_prompt}

    def _stopped(self, answer: Optional[str], stop_reason: str) -> bool:
        self._stop(answer, stop_reason)
        return True

    def _stop(self, answer: Optional[str], stop_reason: str) -> None:
        result = self.result
        result.answer, result.stop_reason, result.last_agent = answer, stop_reason, self.agent.name

    # ------------------------------------------------------------------ turns

    def _refuse(self, message: str) -> tuple[ActionReturn, str]:
        """Send a reply without a usable action to the executor's ``NoAction``."""
        executor = self.agent.executor
        ret = self._settled(executor(executor.no_action.name, message))
        return ret, _observation(ret)

    def _text_turn(self, index: int, reply: Any) -> _TurnEnd:
        step = parse_react(reply)
        self.result.messages.append({"role": "assistant", "content": step.text})
        if step.outcome == "final_answer":
            turn = Turn(index, reply, "final_answer", thought=step.thought)
            return _TurnEnd(turn, step.final_answer, "final_answer")
        if step.outcome == "action" and step.action is not None:
            ret = self._call(step.action, step.action_input or "", None, index, 0)
            if ret.thought is None:
                ret.thought = step.thought
            if ret.valid == ActionValidCode.FINISH:
                turn = Turn(index, reply, "final_answer", step.thought, step.action, step.action_input, ret)
                return _TurnEnd(turn, ret.format_result(), "finish")
            return _TurnEnd(Turn(index, reply, "action", step.thought, step.action, step.action_input, ret))
        names = tool_names(self.agent.tool_info())
        ret, observation = self._refuse(f"{step.error}\n{FORMAT_REMINDER.format(tool_names=names)}")
        self.result.messages.append({"role": "user", "content": f"Observation: {observation}"})
        turn = Turn(index, reply, step.outcome, step.thought, step.action, step.action_input, ret)
        turn.observation = observation
        return _TurnEnd(turn)

    def _native_turn(self, index: int, reply: Any) -> _TurnEnd:
        content, raw_calls = reply
        messages = self.result.messages
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
        records = [self._native_turn_call(call, thought, index, n) for n, call in enumerate(calls)]
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
        )
        finish = next((r for r in records if r is not None and r.valid == ActionValidCode.FINISH), None)
        if finish is None:
            return _TurnEnd(turn)
        self.result.messages.extend(call_results(read_calls(calls), records))
        turn.outcome = "final_answer"
        return _TurnEnd(turn, finish.format_result(), "finish")

    def _native_turn_call(
        self, call: dict[str, Any], thought: Optional[str], index: int, position: int
    ) -> Optional[ActionReturn]:
        """One native tool call of a turn; ``None`` when it names no function."""
        name = call["function"]["name"]
        if name is None:
            return None
        if self.tripped is not None:
            # A guardrail halted the run: the calls after it do not run.
            return ActionReturn(type=name, errmsg="not run: a guardrail halted the run", state=_API_ERROR)
        call_id = call["id"] if isinstance(call["id"], str) else None
        ret = self._native_call(name, call["function"]["arguments"], call_id, index, position)
        if ret.thought is None:
            ret.thought = thought
        return ret

    def _native_call(
        self,
        name: str,
        arguments: str,
        call_id: Optional[str],
        index: int,
        position: int,
        approval: Optional[Interruption] = None,
    ) -> ActionReturn:
        """A native call: the model was given the aliases, so records name those."""
        with native_calls():
            ret = self._call(name, arguments, call_id, index, position, approval)
        self.agent.executor_for(name)._named_as_given([ret])
        return ret

    def _call(
        self,
        name: str,
        arguments: str,
        call_id: Optional[str],
        index: int,
        position: int,
        approval: Optional[Interruption] = None,
    ) -> ActionReturn:
        """Run one call through the agent's executor, and note what it asked for.

        ``approval`` is the person's approval of this very call, when it was held.
        """
        agent = self.agent
        scope = AgentScope(agent.name, self.result.invocation_id, self.context)
        if approval is not None:
            scope.approved, scope.paused_run = True, approval.nested
        self.emit(ToolCallEvent(agent.name, index, name, arguments, call_id))
        try:
            ret = self._settled(
                agent.executor_for(name)(
                    name, arguments, None, call_id, on_progress=self._progress(name), context=scope
                )
            )
        except GuardrailTripwire as exc:
            self.tripped = exc.reason
            ret = ActionReturn(type=name, errmsg=f"halted by a guardrail: {exc.reason}", state=_API_ERROR)
        if ret.state == ActionStatusCode.APPROVAL_REQUIRED:
            held = Interruption(
                agent.name, name, arguments, call_id, index, position, nested=saved_trace(ret)
            )
            self.held.append(held)
        ret = self._checked_actions(position, scope.actions, ret)
        self.emit(ToolResultEvent(agent.name, index, name, ret))
        return ret

    def _checked_actions(self, position: int, actions: ToolActions, ret: ActionReturn) -> ActionReturn:
        """Keep the call's actions for after the turn; a transfer to no known agent fails the call."""
        if not actions:
            return ret
        name = actions.transfer_to_agent
        if actions.handoff is None and name is not None and find_target(self.agent, name) is None:
            return ActionReturn(ret.args, None, ret.type, None, unknown_target(self.agent, name), _API_ERROR)
        if actions.handoff is not None:
            # Kept by name for a resumed run of this result (the latest of a name wins:
            # a tool may return a new agent object each time).
            self.result._agents[actions.handoff.name] = actions.handoff
        self.asked.append((position, actions, ret))
        return ret

    def _settled(self, ret: Any) -> ActionReturn:
        """An executor's record; an async executor's (``AsyncActionExecutor``, Ray's) awaited on the run."""
        if inspect.isawaitable(ret):
            ret = self.loop.wait(ret)
        return cast(ActionReturn, ret)

    def _progress(self, name: str) -> Callable[[Any], None]:
        report = self.root.on_progress
        agent = self.agent.name

        def progress(chunk: Any) -> None:
            self.emit(ToolProgressEvent(agent, name, chunk))
            if report is not None:
                report(name, chunk)

        return progress


_API_ERROR = ActionStatusCode.API_ERROR


def _position(asked: tuple[int, ToolActions, ActionReturn]) -> int:
    return asked[0]


def _saved_actions(position: int, actions: ToolActions, ret: ActionReturn) -> dict[str, Any]:
    """A call's actions as ``Turn.tool_actions`` keeps them (JSON: a returned agent by name)."""
    return {
        "position": position,
        "transfer_to_agent": actions.transfer_to_agent,
        "escalate": actions.escalate,
        "skip_summarization": actions.skip_summarization,
        "handoff": None if actions.handoff is None else actions.handoff.name,
        "handoff_message": actions.handoff_message,
    }
