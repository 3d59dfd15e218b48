"""A tool in a Ray replica sees the agent's scope, and what it asks for comes back.

An agent run passes its scope (agent name, run id, the run's context object) with each
call; a tool in a replica gets the same ``ToolContext`` fields as in the caller's
process, its ``actions`` and its state delta travel back, and a context object that
cannot be pickled is an error record naming it. One local Ray serves the module.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from lagent_like import ActionStatusCode, BaseAction, Hook, ToolContext, ToolError, tool_api
from lagent_like.context import AgentScope

#: The module's Ray cluster never runs beside another worker's (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("ray_lock_module")


@dataclass
class User:
    """A run's own context object: plain data pickles."""

    name: str


class Desk(BaseAction):
    """Reads its context and asks the agent for things."""

    @tool_api
    def look(self, note: str, context: ToolContext) -> dict[str, Any]:
        """Report what the call's context says, and keep the note in the session.

        Args:
            note: kept in the session state
        """
        before = dict(context.state)
        context.state["note"] = note
        run_context = context.context
        return {
            "before": before,
            "agent": context.agent_name,
            "run": context.invocation_id,
            "call": context.function_call,
            "user": run_context.name if isinstance(run_context, User) else repr(run_context),
            "approved": context.approved,
        }

    @tool_api
    def steer(self, how: str, context: ToolContext) -> str:
        """Ask the agent to hand over, escalate or skip its summary.

        Args:
            how: 'transfer', 'escalate' or 'skip'
        """
        if how == "transfer":
            context.actions.transfer_to_agent = "Billing"
        elif how == "escalate":
            context.actions.escalate = True
        else:
            context.actions.skip_summarization = True
        return how

    @tool_api
    def forget(self, key: str, context: ToolContext) -> str:
        """Delete a key of the session state.

        Args:
            key: the key
        """
        del context.state[key]
        return "forgotten"

    @tool_api
    def fail(self, context: ToolContext) -> str:
        """Write the state, then fail."""
        context.state["note"] = "written by a failed call"
        raise ToolError("no")


class Spy(Hook):
    """Keeps what the caller's process sees of each call's context."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []

    def after_action(self, name: str, ret: Any, context: Any) -> None:
        self.seen.append((context.agent_name, context.state.get("note")))


class Turncoat(BaseAction):
    """Returns an agent made in its replica."""

    def run(self) -> Any:
        """Hand the user to another agent."""
        from lagent_like import ActionExecutor
        from lagent_like.agents import ReAct

        return ReAct(lambda messages: "Final Answer: hi", ActionExecutor([]), name="Other")


@pytest.fixture(scope="module")
def ray_module() -> Iterator[Any]:
    ray = pytest.importorskip(
        "ray", reason="needs the 'ray' extra: pip install '.[ray]' (or 'lagent-like[ray]')"
    )
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def executor(ray_module: Any) -> Iterator[Any]:
    from lagent_like.ray.executor import RayActionExecutor

    with RayActionExecutor([Desk(), Turncoat()]) as ray_executor:
        yield ray_executor


def test_a_tool_in_a_replica_sees_the_agent_the_run_the_call_and_the_run_context(executor: Any) -> None:
    spy = Spy()
    handle = executor.register_hook(spy)
    scope = AgentScope("desk", "run-1", User("ada"), approved=True)
    ret = asyncio.run(executor("Desk.look", '{"note": "hi"}', "s1", "call-7", context=scope))
    handle.remove()
    assert json.loads(ret.result[0]["content"]) == {
        "before": {},
        "agent": "desk",
        "run": "run-1",
        "call": {"id": "call-7", "name": "Desk.look", "arguments": '{"note": "hi"}'},
        "user": "ada",
        "approved": True,
    }
    # The state delta came back: the hooks and the caller see the note.
    assert executor.session_state("s1") == {"note": "hi"}
    assert spy.seen == [("desk", "hi")]


def test_a_key_a_tool_in_a_replica_deletes_is_deleted_here_too(executor: Any) -> None:
    async def look_then_forget() -> dict[str, Any]:
        await executor("Desk.look", {"note": "hi"}, "s4")
        looked = dict(executor.session_state("s4"))
        await executor("Desk.forget", {"key": "note"}, "s4")
        return looked

    assert asyncio.run(look_then_forget()) == {"note": "hi"}
    assert executor.session_state("s4") == {}


@pytest.mark.parametrize(
    ("how", "asked"),
    [
        pytest.param("transfer", ("Billing", False, False), id="transfer"),
        pytest.param("escalate", (None, True, False), id="escalate"),
        pytest.param("skip", (None, False, True), id="skip-summarization"),
    ],
)
def test_what_a_tool_in_a_replica_asks_of_the_agent_comes_back(
    executor: Any, how: str, asked: tuple[Any, ...]
) -> None:
    scope = AgentScope("desk", "run-2")
    ret = asyncio.run(executor("Desk.steer", {"how": how}, context=scope))
    actions = scope.actions
    assert ret.state == ActionStatusCode.SUCCESS
    assert (actions.transfer_to_agent, actions.escalate, actions.skip_summarization) == asked


def test_a_failed_call_in_a_replica_keeps_no_state_there_or_here(executor: Any) -> None:
    async def fail_then_look() -> tuple[Any, dict[str, Any], Any]:
        failed = await executor("Desk.fail", {}, "s2")
        here = dict(executor.session_state("s2"))
        looked = await executor("Desk.look", {"note": "later"}, "s2")
        return failed, here, looked

    failed, here, looked = asyncio.run(fail_then_look())
    assert (failed.state, failed.errmsg, here) == (ActionStatusCode.API_ERROR, "no", {})
    assert json.loads(looked.result[0]["content"])["before"] == {}


def test_a_run_context_that_cannot_be_pickled_is_an_error_record_naming_it(executor: Any) -> None:
    scope = AgentScope("desk", "run-3", threading.Lock())
    ret = asyncio.run(executor("Desk.look", {"note": "x"}, "s3", context=scope))
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg is not None
    assert ret.errmsg.startswith("the run's context object (lock) cannot be pickled (TypeError: ")
    assert ret.errmsg.endswith(
        "so it cannot be sent to the Ray worker running Desk.look: pass a context object that pickles "
        "(plain data, dataclasses), or run this tool in a local executor"
    )
    assert executor.session_state("s3") == {}


def billing_desk(executor: Any, desk_replies: list[str]) -> tuple[Any, Any]:
    from lagent_like import ActionExecutor
    from lagent_like.agents import ReAct

    def scripted(replies: list[str]) -> Any:
        answers = iter(replies)
        return lambda messages: next(answers)

    billing = ReAct(scripted(["Final Answer: paid"]), ActionExecutor([]), name="Billing")
    return ReAct(scripted(desk_replies), executor, name="desk", sub_agents=[billing]), billing


def act(name: str, arguments: dict[str, Any]) -> str:
    return f"Thought: use {name}\nAction: {name}\nAction Input: {json.dumps(arguments)}"


def test_an_agent_over_a_ray_executor_gives_its_tools_the_scope_and_follows_their_handoff(
    executor: Any,
) -> None:
    desk, _ = billing_desk(
        executor, [act("Desk.look", {"note": "n"}), act("Desk.steer", {"how": "transfer"})]
    )
    result = desk.run("refund", context=User("ada"))
    looked = result.turns[0].action_return
    assert looked is not None
    seen = json.loads(looked.result[0]["content"])
    assert (seen["agent"], seen["run"], seen["user"]) == ("desk", result.invocation_id, "ada")
    assert (result.answer, result.last_agent, result.turns[1].handoff) == ("paid", "Billing", "Billing")


def test_an_agent_over_an_async_executor_awaits_each_call() -> None:
    from lagent_like import AsyncActionExecutor

    async def route(tool_context: ToolContext) -> str:
        """Route the user to billing."""
        tool_context.actions.transfer_to_agent = "Billing"
        return f"routed by {tool_context.agent_name}"

    desk, _ = billing_desk(AsyncActionExecutor([route]), [act("route", {})])
    result = desk.run("refund")
    assert (result.answer, result.last_agent, result.turns[0].observation) == (
        "paid",
        "Billing",
        "routed by desk",
    )


def test_a_tool_in_a_replica_returning_an_agent_is_an_error_record_naming_the_way(executor: Any) -> None:
    ret = asyncio.run(executor("Turncoat", {}, context=AgentScope("desk", "run-4")))
    assert (ret.state, ret.errmsg) == (
        ActionStatusCode.API_ERROR,
        "Turncoat returned the agent 'Other' from its Ray worker, but an agent cannot cross processes "
        "(the caller would get a copy); set tool_context.actions.transfer_to_agent to 'Other' instead, "
        "with that agent a sub-agent of the running one",
    )
