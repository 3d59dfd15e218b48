"""Agents used wrongly: each mistake raises or answers with an error naming what to change.

Resuming a run twice would run its approved calls twice; a hand-edited decision, a
result of another agent's run, a transfer to an agent that is not there: none of these
may go on as if nothing were wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from _agents import Mailer, Script, act

from lagent_like import ActionExecutor, ActionStatusCode, ApprovalHook, ToolContext
from lagent_like.agents import AgentResult, ReAct


def resumed_once(mailer: Mailer) -> AgentResult:
    paused = mailer.agent.run("mail bo")
    paused.approve(paused.interruptions[0])
    mailer.agent.resume(paused)
    return paused


def hand_edited(mailer: Mailer) -> AgentResult:
    paused = mailer.agent.run("mail bo")
    paused.interruptions[0].decision = "approve"  # as a person might write it in the file
    return paused


def other_agents_run(mailer: Mailer) -> AgentResult:
    paused = Mailer("someone_else").agent.run("mail bo")
    paused.approve(paused.interruptions[0])
    return paused


@pytest.mark.parametrize(
    ("make", "message", "sent"),
    [
        pytest.param(
            resumed_once,
            r"this result was resumed already and its approved calls ran; go on with the result that "
            r"resume\(\) returned",
            ["bo@x.org"],
            id="resumed-twice",
        ),
        pytest.param(
            hand_edited,
            r"a decision is 'approved' or 'rejected' .*; got \[\('send_email', 'approve'\)\]",
            [],
            id="unknown-decision",
        ),
        pytest.param(
            other_agents_run,
            r"the run's agent 'someone_else' is neither in the agent tree of 'mailer'",
            [],
            id="another-agents-run",
        ),
        pytest.param(
            lambda mailer: AgentResult(answer="a", stop_reason="final_answer"),
            r"the run stopped with 'final_answer', not 'interrupted'",
            [],
            id="not-interrupted",
        ),
    ],
)
def test_resume_refuses_a_result_it_cannot_go_on_with_and_runs_nothing(
    make: Callable[[Mailer], AgentResult], message: str, sent: list[str]
) -> None:
    mailer = Mailer()
    result = make(mailer)
    with pytest.raises(ValueError, match=message):
        mailer.agent.resume(result)
    assert mailer.sent == sent


def test_a_loaded_copy_of_a_resumed_result_is_a_new_result_and_may_be_resumed(tmp_path: Path) -> None:
    # The guard is on the object: a saved file is a person's to decide again (a copy).
    mailer = Mailer()
    paused = mailer.agent.run("mail bo")
    paused.save(tmp_path / "paused.json")
    paused.approve(paused.interruptions[0])
    mailer.agent.resume(paused)
    loaded = AgentResult.load(tmp_path / "paused.json")
    loaded.reject(loaded.interruptions[0], "no")
    assert mailer.agent.resume(loaded).answer == "again"
    assert mailer.sent == ["bo@x.org"]


@pytest.mark.parametrize(
    "decide",
    [
        pytest.param(lambda result, item: result.approve(item), id="approve"),
        pytest.param(lambda result, item: result.reject(item, "no"), id="reject"),
    ],
)
def test_deciding_an_item_of_a_loaded_copy_on_the_original_is_refused(
    decide: Callable[[AgentResult, Any], None], tmp_path: Path
) -> None:
    paused = Mailer().agent.run("mail bo")
    paused.save(tmp_path / "paused.json")
    loaded = AgentResult.load(tmp_path / "paused.json")
    with pytest.raises(ValueError, match="is not one of this result's interruptions"):
        decide(paused, loaded.interruptions[0])


def transferring(target: Any) -> Callable[..., str]:
    def route(tool_context: ToolContext) -> str:
        """Route the user."""
        tool_context.actions.transfer_to_agent = target
        return "routed"

    return route


@pytest.mark.parametrize(
    ("target", "sub_agents", "errmsg"),
    [
        pytest.param(
            "Sales",
            ["Billing"],
            "'desk' cannot transfer to 'Sales'; the agents it can transfer to: 'Billing'",
            id="unknown-name",
        ),
        pytest.param(
            "Billing",
            [],
            "'desk' cannot transfer to 'Billing'; the agents it can transfer to: none",
            id="no-sub-agents",
        ),
        pytest.param(
            42,
            ["Billing"],
            "'desk' cannot transfer to 42; the agents it can transfer to: 'Billing'",
            id="not-a-name",
        ),
    ],
)
def test_a_tool_transferring_to_an_agent_the_desk_cannot_reach_fails_its_call_and_the_run_goes_on(
    target: Any, sub_agents: list[str], errmsg: str
) -> None:
    subs = [ReAct(Script([]), ActionExecutor([]), name=name) for name in sub_agents]
    model = Script([act("route", {}), "Final Answer: sorry"])
    result = ReAct(model, ActionExecutor([transferring(target)]), name="desk", sub_agents=subs).run("q")
    record = result.turns[0].action_return
    assert record is not None
    assert (record.state, record.errmsg) == (ActionStatusCode.API_ERROR, errmsg)
    assert (result.answer, result.last_agent, result.turns[0].handoff) == ("sorry", "desk", None)
    assert model.calls[1][-1] == {"role": "user", "content": f"Observation: {errmsg}"}


@pytest.mark.parametrize(
    ("given", "seen"),
    [
        pytest.param(None, "ada", id="the-runs-own"),
        pytest.param("bo", "bo", id="given-again"),
    ],
)
def test_a_resumed_run_keeps_the_runs_context_object_unless_given_another(given: Any, seen: str) -> None:
    users: list[Any] = []

    def send_email(to: str, tool_context: ToolContext) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        users.append(tool_context.context)
        return "sent"

    executor = ActionExecutor([send_email])
    executor.register_hook(ApprovalHook(lambda tool, args: tool == "send_email"))
    agent = ReAct(Script([act("send_email", {"to": "x"}), "Final Answer: ok"]), executor)
    paused = agent.run("q", context="ada")
    paused.approve(paused.interruptions[0])
    agent.resume(paused, context=given)
    assert users == [seen]
