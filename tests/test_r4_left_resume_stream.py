"""``ReAct.resume_stream`` yields the resumed part of a run as events, as ``stream`` does a new run.

A run stopped for approval is decided by a person; going on with it, a user interface
wants the same live events as for the first part: the approved calls and their results,
the refusals, the turns after, and the final answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest

from lagent_like import ActionExecutor, ApprovalHook
from lagent_like.agents import AgentResult, ReAct

Messages = list[dict[str, Any]]


class NativeScript:
    """A native-mode model: ``chat`` answers with scripted message dicts."""

    def __init__(self, replies: Sequence[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.calls = 0

    def chat(self, messages: Messages, tools: Any = None, **params: Any) -> dict[str, Any]:
        self.calls += 1
        return self.replies[self.calls - 1]


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


class Mail:
    """A mailer whose every mail waits for approval."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        executor = ActionExecutor([self.send_email])
        executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
        model = NativeScript(
            [
                {
                    "content": "mailing both",
                    "tool_calls": [
                        tool_call("c1", "send_email", {"to": "ann@x.org"}),
                        tool_call("c2", "send_email", {"to": "bo@x.org"}),
                    ],
                },
                {"content": "mailed ann only"},
            ]
        )
        self.agent = ReAct(model, executor, native_tools=True, name="mailer")

    def send_email(self, to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        self.sent.append(to)
        return f"sent to {to}"

    def decided(self) -> AgentResult:
        paused = self.agent.run("mail ann and bo")
        ann, bo = paused.interruptions
        paused.approve(ann)
        paused.reject(bo, "bo is on leave")
        return paused


def described(event: Any) -> tuple[Any, ...]:
    """An event as comparable values: its type and what it says."""
    if event.type == "tool_call":
        return (event.type, event.agent, event.turn, event.name, event.arguments, event.call_id)
    if event.type == "tool_result":
        ret = event.action_return
        return (event.type, event.turn, event.name, ret.state.name, ret.errmsg, ret.format_result())
    if event.type == "model_text":
        return (event.type, event.turn, event.text)
    if event.type == "final_answer":
        return (event.type, event.answer, event.stop_reason)
    return (event.type,)


RESUMED_EVENTS = [
    ("tool_call", "mailer", 1, "send_email", '{"to": "ann@x.org"}', "c1"),
    ("tool_result", 1, "send_email", "SUCCESS", None, "sent to ann@x.org"),
    ("tool_result", 1, "send_email", "API_ERROR", "bo is on leave", ""),
    ("model_text", 2, "mailed ann only"),
    ("final_answer", "mailed ann only", "final_answer"),
]


def test_resume_stream_yields_the_approved_call_the_refusal_the_next_turn_and_the_answer() -> None:
    mail = Mail()
    events = list(mail.agent.resume_stream(mail.decided()))
    assert [described(event) for event in events] == RESUMED_EVENTS
    assert mail.sent == ["ann@x.org"]
    done = events[-1].result
    assert (done.answer, done.stop_reason, [turn.index for turn in done.turns]) == (
        "mailed ann only",
        "final_answer",
        [1, 2],
    )


def test_aresume_stream_yields_the_same_events_to_an_event_loop() -> None:
    mail = Mail()
    paused = mail.decided()

    async def collect() -> list[Any]:
        return [event async for event in mail.agent.aresume_stream(paused)]

    assert [described(event) for event in asyncio.run(collect())] == RESUMED_EVENTS
    assert mail.sent == ["ann@x.org"]


def test_a_streamed_run_stopped_for_approval_then_resume_streamed_plays_every_turn_once() -> None:
    mail = Mail()
    first = list(mail.agent.stream("mail ann and bo"))
    assert [event.type for event in first] == [
        "model_text",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "interruption",
        "final_answer",
    ]
    paused = first[-1].result
    paused.approve(paused.interruptions[0])
    paused.reject(paused.interruptions[1], "bo is on leave")
    assert [described(event) for event in mail.agent.resume_stream(paused)] == RESUMED_EVENTS
    assert mail.sent == ["ann@x.org"]


@pytest.mark.parametrize(
    "method",
    [
        pytest.param("resume_stream", id="sync"),
        pytest.param("aresume_stream", id="async"),
    ],
)
def test_resume_stream_refuses_a_result_resumed_already_when_called_and_runs_nothing(method: str) -> None:
    mail = Mail()
    paused = mail.decided()
    mail.agent.resume(paused)
    with pytest.raises(ValueError, match=r"this result was resumed already and its approved calls ran"):
        getattr(mail.agent, method)(paused)
    assert mail.sent == ["ann@x.org"]


def test_resume_stream_marks_the_result_resumed_so_that_resume_refuses_it() -> None:
    mail = Mail()
    paused = mail.decided()
    list(mail.agent.resume_stream(paused))
    with pytest.raises(ValueError, match=r"this result was resumed already"):
        mail.agent.resume(paused)
    assert (paused.resumed, mail.sent) == (True, ["ann@x.org"])
