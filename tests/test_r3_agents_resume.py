"""Approvals and handoffs in one turn: resume goes on exactly where the run stopped.

A turn may make several calls: one hands the conversation over (``transfer_to_agent``,
a tool returning an agent), another waits for a person's approval. Resuming the run
runs (or refuses) the held call and then applies what the turn's calls asked for, in
the order the calls were made, in this process or in another one after ``save()``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
from _agents import (
    NativeScript,
    Script,
    act,
    calls_reply,
    escalating,
    resumed_elsewhere,
    tool_call,
    verbatim,
)

from lagent_like import ActionExecutor, ApprovalHook
from lagent_like.agents import AgentResult, ReAct


class Desk:
    """A help desk: a coordinator with two specialists, a mailer needing approval."""

    def __init__(self, model: Any, *, native: bool, billing: Any = None, support: Any = None) -> None:
        self.sent: list[str] = []
        specialist = {"native_tools": True} if native else {}
        self.billing = ReAct(
            billing or NativeScript([{"content": "billing here"}]) if native else billing or Script([]),
            ActionExecutor([self.send_email]),
            name="Billing",
            description="Handles billing.",
            **specialist,
        )
        self.support = ReAct(
            support or NativeScript([{"content": "support here"}]) if native else support or Script([]),
            ActionExecutor([self.send_email]),
            name="Support",
            description="Handles support.",
            **specialist,
        )
        support_agent = self.support

        def to_support() -> Any:
            """Hand the user to support."""
            return support_agent

        executor = ActionExecutor([self.send_email, to_support])
        executor.register_hook(ApprovalHook(lambda name, args: name in ("send_email", "to_support")))
        self.agent = ReAct(
            model, executor, name="desk", sub_agents=[self.billing, self.support], native_tools=native
        )

    def send_email(self, to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        self.sent.append(to)
        return f"sent to {to}"


@pytest.mark.parametrize(
    ("decide", "sent", "observation"),
    [
        pytest.param("approve", ["bo@x.org"], "sent to bo@x.org", id="approved"),
        pytest.param("reject", [], "not now", id="rejected"),
    ],
)
def test_native_turn_with_a_transfer_and_a_held_call_hands_over_after_the_decision(
    decide: str, sent: list[str], observation: str
) -> None:
    model = NativeScript(
        [
            calls_reply(
                tool_call("c1", "transfer_to_agent", {"agent_name": "Billing"}),
                tool_call("c2", "send_email", {"to": "bo@x.org"}),
            )
        ]
    )
    desk = Desk(model, native=True)
    paused = desk.agent.run("refund me")
    assert (paused.stop_reason, paused.last_agent, desk.sent) == ("interrupted", "desk", [])
    (item,) = paused.interruptions
    if decide == "approve":
        paused.approve(item)
    else:
        paused.reject(item, "not now")
    done = desk.agent.resume(paused)
    assert (done.answer, done.stop_reason, done.last_agent, desk.sent) == (
        "billing here",
        "final_answer",
        "Billing",
        sent,
    )
    assert [(t.agent, t.handoff) for t in done.turns] == [("desk", "Billing"), ("Billing", None)]
    billing_model = desk.billing.model
    assert billing_model.calls[0][0] == {"role": "system", "content": desk.billing.system_prompt}
    assert billing_model.calls[0][-2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "Transferred to Billing."},
        {"role": "tool", "tool_call_id": "c2", "content": observation},
    ]
    assert len(model.calls) == 1


def test_a_held_call_returning_an_agent_hands_over_once_approved_text_mode() -> None:
    model = Script([act("to_support", {})])
    desk = Desk(model, native=False, support=Script(["Final Answer: support here"]))
    paused = desk.agent.run("my wifi")
    assert paused.interruptions[0].tool == "to_support"
    paused.approve(paused.interruptions[0])
    done = desk.agent.resume(paused)
    assert (done.answer, done.last_agent, done.turns[0].handoff) == ("support here", "Support", "Support")
    assert done.turns[0].observation == "Transferred to Support."


@pytest.mark.parametrize(
    ("approve", "answer", "agent"),
    [
        pytest.param(True, "support here", "Support", id="approved-held-call-first"),
        pytest.param(False, "billing here", "Billing", id="rejected-held-call-hands-over-nothing"),
    ],
)
def test_the_first_handoff_in_call_order_wins_when_the_held_call_came_first(
    approve: bool, answer: str, agent: str
) -> None:
    # The held call (position 0) hands over to Support, the call after it to Billing:
    # as in a turn without approvals, the first call's handoff is the one applied; a
    # rejected call did not run, so it hands over to no one.
    model = NativeScript(
        [
            calls_reply(
                tool_call("c1", "to_support", {}),
                tool_call("c2", "transfer_to_agent", {"agent_name": "Billing"}),
            )
        ]
    )
    desk = Desk(model, native=True)
    paused = desk.agent.run("q")
    if approve:
        paused.approve(paused.interruptions[0])
    else:
        paused.reject(paused.interruptions[0])
    done = desk.agent.resume(paused)
    assert (done.answer, done.last_agent, done.turns[0].handoff) == (answer, agent, agent)


def test_the_interrupted_turn_keeps_what_its_calls_asked_for_in_the_trace() -> None:
    model = NativeScript(
        [
            calls_reply(
                tool_call("c1", "transfer_to_agent", {"agent_name": "Billing"}),
                tool_call("c2", "send_email", {"to": "bo@x.org"}),
            )
        ]
    )
    paused = Desk(model, native=True).agent.run("q")
    assert paused.turns[0].tool_actions == [
        {
            "position": 0,
            "transfer_to_agent": "Billing",
            "escalate": False,
            "skip_summarization": False,
            "handoff": None,
            "handoff_message": None,
        }
    ]
    assert AgentResult.from_dict(json.loads(json.dumps(paused.to_dict()))).turns[0] == paused.turns[0]


@pytest.mark.parametrize(
    ("tool", "answer", "stop_reason"),
    [
        pytest.param(escalating, "cannot help", "escalated", id="escalate"),
        pytest.param(verbatim, "42 exactly", "skip_summarization", id="skip-summarization"),
    ],
)
def test_a_run_ending_action_beside_a_held_call_ends_the_run_once_resumed(
    tool: Callable[..., str], answer: str, stop_reason: str
) -> None:
    mailed: list[str] = []

    def send_email(to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        mailed.append(to)
        return "sent"

    executor = ActionExecutor([tool, send_email])
    executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
    model = NativeScript(
        [calls_reply(tool_call("c1", tool.__name__, {}), tool_call("c2", "send_email", {"to": "a"}))]
    )
    agent = ReAct(model, executor, name="solo", native_tools=True)
    paused = agent.run("q")
    paused.approve(paused.interruptions[0])
    done = agent.resume(paused)
    assert (done.answer, done.stop_reason, mailed, len(model.calls)) == (answer, stop_reason, ["a"], 1)


#: Run after ``MAILER_PRELUDE`` (its ``send_email`` and ``sent``) on the saved result.
RESUME_SCRIPT = """

    class Billing:
        def chat(self, messages, tools=None, **params):
            return {"content": "billing saw " + messages[-1]["content"]}

    def never(messages, tools=None, **params):
        raise AssertionError("the coordinator is not asked again")

    class Desk:
        chat = staticmethod(never)

    billing = ReAct(Billing(), ActionExecutor([send_email]), name="Billing", native_tools=True)
    executor = ActionExecutor([send_email])
    executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
    desk = ReAct(Desk(), executor, name="desk", sub_agents=[billing], native_tools=True)
    result = AgentResult.load(sys.argv[1])
    result.approve(result.interruptions[0])
    done = desk.resume(result)
    print(json.dumps([done.answer, done.last_agent, sent, [t.handoff for t in done.turns]]))
    """


def test_a_handoff_beside_a_held_call_survives_save_and_resume_in_another_process(tmp_path: Path) -> None:
    model = NativeScript(
        [
            calls_reply(
                tool_call("c1", "transfer_to_agent", {"agent_name": "Billing"}),
                tool_call("c2", "send_email", {"to": "bo@x.org"}),
            )
        ]
    )
    paused = Desk(model, native=True).agent.run("q")
    assert resumed_elsewhere(paused, RESUME_SCRIPT, tmp_path) == [
        "billing saw sent to bo@x.org",
        "Billing",
        ["bo@x.org"],
        ["Billing", None],
    ]


def returned_agent_desk(spanish_model: Any) -> tuple[ReAct, Optional[ReAct]]:
    spanish = ReAct(spanish_model, ActionExecutor([]), name="Spanish", native_tools=True)

    def to_spanish() -> Any:
        """Switch to Spanish."""
        return spanish

    def send_email(to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        return "sent"

    executor = ActionExecutor([to_spanish, send_email])
    executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
    model = NativeScript(
        [calls_reply(tool_call("c1", "to_spanish", {}), tool_call("c2", "send_email", {"to": "a"}))]
    )
    return ReAct(model, executor, name="English", native_tools=True), spanish


def test_an_agent_returned_beside_a_held_call_takes_over_on_resume_in_this_process() -> None:
    english, _ = returned_agent_desk(NativeScript([{"content": "¡Hola!"}]))
    paused = english.run("hola?")
    paused.approve(paused.interruptions[0])
    done = english.resume(paused)
    assert (done.answer, done.last_agent) == ("¡Hola!", "Spanish")


def test_an_agent_returned_beside_a_held_call_cannot_be_found_after_load_and_resume_says_so(
    tmp_path: Path,
) -> None:
    english, _ = returned_agent_desk(NativeScript([]))
    path = tmp_path / "paused.json"
    english.run("hola?").save(path)
    loaded = AgentResult.load(path)
    loaded.approve(loaded.interruptions[0])
    with pytest.raises(
        ValueError,
        match=r"the run's agent 'Spanish' is neither in the agent tree of 'English' nor an agent a tool "
        r"returned in this process .*or add 'Spanish' to the sub_agents of 'English'",
    ):
        english.resume(loaded)
