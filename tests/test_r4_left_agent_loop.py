"""``ReAct`` over an async executor awaits every call of a run on one event loop.

An async tool may keep a loop-bound resource from one call to the next (an ``aiohttp``
session, an MCP session, an ``asyncio.Lock``); that works only if both calls run on the
same loop. The run's loop is closed when the run ends, its leftover tasks cancelled, so
nothing of it outlives the run.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from typing import Any, Callable

from lagent_like import ApprovalHook, AsyncActionExecutor
from lagent_like.agents import AgentResult, ReAct

Messages = list[dict[str, Any]]


class Script:
    """A text-mode model answering with scripted replies."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.calls = 0

    def __call__(self, messages: Messages) -> str:
        self.calls += 1
        return self.replies[self.calls - 1]


def act(name: str, arguments: dict[str, Any]) -> str:
    return f"Thought: use {name}\nAction: {name}\nAction Input: {json.dumps(arguments)}"


class Counter:
    """An async tool noting each call's running loop; its first call leaves a task behind."""

    def __init__(self) -> None:
        self.loops: list[asyncio.AbstractEventLoop] = []
        self.left: list[asyncio.Future[Any]] = []

    async def count(self, n: int) -> str:
        """Count up to a number.

        Args:
            n: the number.
        """
        self.loops.append(asyncio.get_running_loop())
        if len(self.loops) == 1:
            # A task that never ends by itself: the end of the run must cancel it.
            self.left.append(asyncio.ensure_future(asyncio.Event().wait()))
        return f"counted to {n}"


def agent_over(counter: Counter, executor_type: Callable[..., Any] = AsyncActionExecutor) -> ReAct:
    model = Script([act("count", {"n": 1}), act("count", {"n": 2}), "Final Answer: done"])
    return ReAct(model, executor_type([counter.count]), name="counter")


def ours_alive() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "lagent-like-agent-loop"]


def assert_one_closed_loop_and_nothing_left(counter: Counter, result: AgentResult) -> None:
    observations = [turn.observation for turn in result.turns]
    assert (result.answer, observations) == ("done", ["counted to 1", "counted to 2", None])
    assert len(counter.loops) == 2 and counter.loops[0] is counter.loops[1]
    assert counter.loops[0].is_closed()
    assert [task.cancelled() for task in counter.left] == [True]
    assert ours_alive() == []


def test_two_calls_of_one_run_see_the_same_running_loop_which_is_closed_at_the_end() -> None:
    counter = Counter()
    threads_before = threading.active_count()
    result = agent_over(counter).run("count")
    assert_one_closed_loop_and_nothing_left(counter, result)
    assert threading.active_count() == threads_before


def test_a_run_started_inside_a_running_loop_has_its_own_loop_in_a_thread_stopped_at_the_end() -> None:
    counter = Counter()
    caller_loops: list[asyncio.AbstractEventLoop] = []

    async def main() -> AgentResult:
        caller_loops.append(asyncio.get_running_loop())
        return agent_over(counter).run("count")

    threads_before = threading.active_count()
    result = asyncio.run(main())
    assert_one_closed_loop_and_nothing_left(counter, result)
    assert counter.loops[0] is not caller_loops[0]
    assert threading.active_count() == threads_before


def test_a_streamed_run_awaits_its_calls_on_one_loop_too() -> None:
    counter = Counter()
    events = list(agent_over(counter).stream("count"))
    assert events[-1].type == "final_answer"
    assert_one_closed_loop_and_nothing_left(counter, events[-1].result)


def test_two_runs_of_one_agent_get_a_loop_each() -> None:
    counter = Counter()
    agent = agent_over(counter)
    agent.run("count")
    agent.model.calls = 0
    agent.run("count")
    first, second = counter.loops[0], counter.loops[2]
    assert (first is counter.loops[1], second is counter.loops[3], first is second) == (True, True, False)


def test_a_resumed_run_awaits_the_approved_call_and_the_next_ones_on_one_loop() -> None:
    counter = Counter()
    executor = AsyncActionExecutor([counter.count])
    executor.register_hook(ApprovalHook(lambda name, args: args.get("n") == 1))
    model = Script([act("count", {"n": 1}), act("count", {"n": 2}), "Final Answer: done"])
    agent = ReAct(model, executor, name="counter")
    paused = agent.run("count")
    assert (paused.stop_reason, counter.loops) == ("interrupted", [])
    paused.approve(paused.interruptions[0])
    assert_one_closed_loop_and_nothing_left(counter, agent.resume(paused))
