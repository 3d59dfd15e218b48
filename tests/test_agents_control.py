"""Agent runs under control: the run's context, state rollback, approvals that pause and
resume, guardrail tripwires, model callbacks, and streamed events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _agents import Messages, NativeScript, Script, act, resumed_elsewhere, tool_call

from lagent_like import ActionExecutor, ActionStatusCode, ApprovalHook, Hook, ToolContext, ToolError
from lagent_like.agents import (
    AgentResult,
    FinalAnswerEvent,
    HandoffEvent,
    InterruptionEvent,
    ModelTextEvent,
    ReAct,
    ToolCallEvent,
    ToolProgressEvent,
    ToolResultEvent,
)
from lagent_like.exceptions import GuardrailTripwire, LagentLikeError

# --------------------------------------------------------------------------- the run's context


class Seen:
    """Keeps the contexts a tool saw."""

    def __init__(self) -> None:
        self.contexts: list[ToolContext] = []

    def look(self, tool_context: ToolContext) -> str:
        """Look around."""
        self.contexts.append(tool_context)
        return "looked"


def test_each_call_of_a_run_sees_the_agent_the_run_id_the_call_and_the_run_context() -> None:
    seen = Seen()
    agent = ReAct(
        Script([act("look", {}), act("look", {}), "Final Answer: ok"] * 2), ActionExecutor([seen.look])
    )
    agent.name = "scout"
    first = agent.run("q", context={"user": "ada"})
    second = agent.run("q")
    one, two, three, _ = seen.contexts
    assert (one.agent_name, one.context, three.context) == ("scout", {"user": "ada"}, None)
    assert one.invocation_id == two.invocation_id == first.invocation_id
    assert three.invocation_id == second.invocation_id != first.invocation_id
    assert one.function_call == {"id": None, "name": "look", "arguments": "{}"}


def test_an_executor_call_given_a_context_passes_it_to_the_tool() -> None:
    seen = Seen()
    executor = ActionExecutor([seen.look])
    executor("look", "{}", call_id="c1", context=["mine"])
    (ctx,) = seen.contexts
    assert (ctx.context, ctx.agent_name, ctx.invocation_id) == (["mine"], None, None)
    assert ctx.function_call == {"id": "c1", "name": "look", "arguments": "{}"}


def note(text: str, fail: bool, tool_context: ToolContext) -> str:
    """Note a text.

    Args:
        text: what to note.
        fail: fail after writing.
    """
    tool_context.state["last"] = text
    tool_context.state.pop("old", None)
    if fail:
        raise ToolError("could not note")
    return "noted"


@pytest.mark.parametrize(
    ("fail", "state"),
    [
        pytest.param(False, {"keep": 1, "last": "b"}, id="success-commits"),
        pytest.param(True, {"keep": 1, "old": 0, "last": "a"}, id="failure-rolls-back"),
    ],
)
def test_session_state_written_by_a_failed_call_is_rolled_back(fail: bool, state: dict[str, Any]) -> None:
    executor = ActionExecutor([note])
    executor.session_state("s").update({"keep": 1, "old": 0})
    executor("note", {"text": "a", "fail": False}, session_id="s")
    executor.session_state("s")["old"] = 0
    ret = executor("note", {"text": "b", "fail": fail}, session_id="s")
    assert ret.state == (ActionStatusCode.API_ERROR if fail else ActionStatusCode.SUCCESS)
    assert executor.session_state("s") == state


# --------------------------------------------------------------------------- approvals (seed 002)


class Mail:
    """Sends mail; counts what it sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send_email(self, to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        self.sent.append(to)
        return f"sent to {to}"


def mail_agent(model: Any, mail: Mail, **options: Any) -> ReAct:
    executor = ActionExecutor([mail.send_email])
    executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
    return ReAct(model, executor, name="mailer", **options)


def test_a_call_needing_approval_interrupts_the_run_and_resumes_when_approved() -> None:
    mail = Mail()
    model = Script([act("send_email", {"to": "bo@x.org"}), "Final Answer: mailed"])
    agent = mail_agent(model, mail)
    result = agent.run("mail bo")
    assert (result.stop_reason, result.answer, mail.sent, len(model.calls)) == ("interrupted", None, [], 1)
    (item,) = result.interruptions
    assert (item.agent, item.tool, item.arguments, item.turn) == (
        "mailer",
        "send_email",
        '{"to": "bo@x.org"}',
        1,
    )
    result.approve(item)
    done = agent.resume(result)
    assert (done.stop_reason, done.answer, mail.sent) == ("final_answer", "mailed", ["bo@x.org"])
    assert done.invocation_id == result.invocation_id
    assert model.calls[1][-1] == {"role": "user", "content": "Observation: sent to bo@x.org"}
    assert [t.index for t in done.turns] == [1, 2]
    assert done.interruptions == []


def test_a_rejected_call_is_not_run_and_the_model_is_told_the_message() -> None:
    mail = Mail()
    model = Script([act("send_email", {"to": "bo@x.org"}), "Final Answer: not mailed"])
    agent = mail_agent(model, mail)
    result = agent.run("mail bo")
    result.reject(result.interruptions[0], "the user said no")
    done = agent.resume(result)
    assert (done.answer, mail.sent) == ("not mailed", [])
    assert model.calls[1][-1] == {"role": "user", "content": "Observation: the user said no"}


def test_native_calls_that_need_approval_wait_while_the_others_run() -> None:
    mail = Mail()

    def echo(text: str) -> str:
        """Echo.

        Args:
            text: the text.
        """
        return text

    executor = ActionExecutor([mail.send_email, echo])
    executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
    calls = [tool_call("c1", "echo", {"text": "hi"}), tool_call("c2", "send_email", {"to": "a@b.c"})]
    model = NativeScript([{"role": "assistant", "content": "", "tool_calls": calls}, {"content": "all done"}])
    agent = ReAct(model, executor, native_tools=True)
    result = agent.run("q")
    (item,) = result.interruptions
    assert (item.tool, item.call_id, item.position) == ("send_email", "c2", 1)
    result.approve(item)
    done = agent.resume(result)
    assert (done.answer, mail.sent) == ("all done", ["a@b.c"])
    assert model.calls[1][-2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "hi"},
        {"role": "tool", "tool_call_id": "c2", "content": "sent to a@b.c"},
    ]


@pytest.mark.parametrize(
    ("decide", "message"),
    [
        pytest.param(False, r"decide every held call first .*undecided: \['send_email'\]", id="undecided"),
        pytest.param(None, "the run stopped with 'final_answer', not 'interrupted'", id="not-interrupted"),
    ],
)
def test_resume_refuses_an_undecided_or_finished_run(decide: Any, message: str) -> None:
    agent = mail_agent(Script([act("send_email", {"to": "x"})]), Mail())
    result = agent.run("q") if decide is False else AgentResult(answer="a", stop_reason="final_answer")
    with pytest.raises(ValueError, match=message):
        agent.resume(result)


def test_approving_an_item_of_another_result_is_refused() -> None:
    agent = mail_agent(Script([act("send_email", {"to": "x"})] * 2), Mail())
    first, second = agent.run("q"), agent.run("q")
    with pytest.raises(ValueError, match="is not one of this result's interruptions"):
        second.approve(first.interruptions[0])


#: Run after ``MAILER_PRELUDE`` (its ``send_email`` and ``sent``) on the saved result.
RESUME_SCRIPT = """

    executor = ActionExecutor([send_email])
    executor.register_hook(ApprovalHook(lambda name, args: name == "send_email"))
    agent = ReAct(
        lambda messages: "Final Answer: " + messages[-1]["content"].split(": ", 1)[1], executor, name="mailer"
    )
    result = AgentResult.load(sys.argv[1])
    result.approve(result.interruptions[0])
    done = agent.resume(result)
    print(json.dumps([done.answer, done.stop_reason, sent, done.invocation_id]))
    """


def test_an_interrupted_run_saved_to_a_file_is_approved_and_resumed_in_another_process(
    tmp_path: Path,
) -> None:
    agent = mail_agent(Script([act("send_email", {"to": "bo@x.org"})]), Mail())
    result = agent.run("mail bo")
    assert resumed_elsewhere(result, RESUME_SCRIPT, tmp_path) == [
        "sent to bo@x.org",
        "final_answer",
        ["bo@x.org"],
        result.invocation_id,
    ]


# --------------------------------------------------------------------------- guardrails


class NoSecrets(Hook):
    """Trips on arguments that mention a secret."""

    def before_action(self, name: str, args: dict[str, Any], context: Any) -> Any:
        if "secret" in json.dumps(args):
            raise GuardrailTripwire("arguments mention a secret")
        return None


def test_a_hook_tripwire_halts_the_run_without_running_the_tool() -> None:
    mail = Mail()
    executor = ActionExecutor([mail.send_email])
    executor.register_hook(NoSecrets())
    model = Script([act("send_email", {"to": "secret@x.org"}), "Final Answer: never"])
    result = ReAct(model, executor).run("q")
    assert (result.stop_reason, result.error, result.answer, mail.sent) == (
        "tripwire",
        "arguments mention a secret",
        None,
        [],
    )
    record = result.turns[0].action_return
    assert record is not None and record.errmsg == "halted by a guardrail: arguments mention a secret"
    assert len(model.calls) == 1


def test_a_tripwire_goes_through_the_executor_to_its_caller() -> None:
    executor = ActionExecutor([Mail().send_email])
    executor.register_hook(NoSecrets())
    with pytest.raises(GuardrailTripwire, match="arguments mention a secret") as caught:
        executor("send_email", {"to": "secret"})
    assert isinstance(caught.value, LagentLikeError)


def test_before_model_may_answer_instead_of_the_model_and_after_model_may_edit_a_reply() -> None:
    # Seed 000's idiom: a callback returning a reply skips the model; one editing it changes it.
    model = Script(["Final Answer: the model's answer"])

    def before(messages: Messages) -> Any:
        return "Final Answer: blocked" if "forbidden" in messages[-1]["content"] else None

    def after(reply: str) -> Any:
        return reply.replace("model's", "edited")

    agent = ReAct(model, ActionExecutor([Mail().send_email]), before_model=before, after_model=after)
    assert agent.run("forbidden topic").answer == "blocked"
    assert model.calls == []
    assert agent.run("fine topic").answer == "the edited answer"


def test_a_model_callback_tripwire_halts_the_run() -> None:
    def before(messages: Messages) -> Any:
        raise GuardrailTripwire("off-topic request")

    result = ReAct(Script([]), ActionExecutor([Mail().send_email]), before_model=before).run("q")
    assert (result.stop_reason, result.error, result.turns) == ("tripwire", "off-topic request", [])


# --------------------------------------------------------------------------- events


def spell(word: str) -> Iterator[str]:
    """Spell a word.

    Args:
        word: the word.
    """
    yield from word


def test_stream_yields_the_runs_events_in_order_with_tool_progress() -> None:
    helper = ReAct(Script(["Final Answer: done"]), ActionExecutor([spell]), name="helper")
    model = Script([act("spell", {"word": "ab"}), act("transfer_to_agent", {"agent_name": "helper"})])
    agent = ReAct(model, ActionExecutor([spell]), name="main", sub_agents=[helper])
    events = list(agent.stream("q"))
    kinds = [event.type for event in events]
    assert kinds == [
        "model_text",
        "tool_call",
        "tool_progress",
        "tool_progress",
        "tool_result",
        "model_text",
        "tool_call",
        "tool_result",
        "handoff",
        "model_text",
        "final_answer",
    ]
    assert events[0] == ModelTextEvent("main", 1, model.replies[0])
    assert events[1] == ToolCallEvent("main", 1, "spell", '{"word": "ab"}')
    assert events[2:4] == [ToolProgressEvent("main", "spell", "a"), ToolProgressEvent("main", "spell", "b")]
    assert isinstance(events[4], ToolResultEvent) and events[4].action_return.format_result() == "ab"
    assert events[8] == HandoffEvent("main", "helper", 2)
    final = events[-1]
    assert isinstance(final, FinalAnswerEvent)
    assert (final.answer, final.stop_reason, final.result.last_agent) == ("done", "final_answer", "helper")


def test_stream_ends_with_the_interruption_of_a_paused_run() -> None:
    agent = mail_agent(Script([act("send_email", {"to": "x"})]), Mail())
    *_, pause, final = list(agent.stream("q"))
    assert isinstance(pause, InterruptionEvent) and pause.interruptions[0].tool == "send_email"
    assert isinstance(final, FinalAnswerEvent) and final.stop_reason == "interrupted"


def test_stream_raises_what_the_run_raised_after_the_earlier_events() -> None:
    def on_turn(turn: Any) -> None:
        raise RuntimeError("observer failed")

    agent = ReAct(Script(["Final Answer: a"]), ActionExecutor([spell]), on_turn=on_turn)
    stream = agent.stream("q")
    assert next(stream).type == "model_text"
    with pytest.raises(RuntimeError, match="observer failed"):
        next(stream)


def test_an_agent_tool_whose_run_waits_for_approval_pauses_the_outer_run_and_resumes_both(
    tmp_path: Path,
) -> None:
    # The Agents SDK mirrors the outer approval into the nested run (as_tool + needs_approval).
    mail = Mail()
    inner_model = Script([act("send_email", {"to": "bo@x.org"}), "Final Answer: mailed bo"])
    mailer = mail_agent(inner_model, mail)
    outer_model = Script([act("mailer", {"request": "mail bo"}), "Final Answer: bo is mailed"])
    outer = ReAct(outer_model, ActionExecutor([mailer.as_tool()]), name="boss")
    paused = outer.run("please mail bo")
    (item,) = paused.interruptions
    assert (paused.stop_reason, item.tool, mail.sent) == ("interrupted", "mailer", [])
    assert item.nested is not None
    assert [held["tool"] for held in item.nested["interruptions"]] == ["send_email"]
    path = tmp_path / "paused.json"
    paused.save(path)
    loaded = AgentResult.load(path)
    loaded.approve(loaded.interruptions[0])
    done = outer.resume(loaded)
    assert (done.answer, mail.sent) == ("bo is mailed", ["bo@x.org"])
    assert len(inner_model.calls) == 2  # the nested run went on; it did not start again
    assert outer_model.calls[1][-1] == {"role": "user", "content": "Observation: mailed bo"}


class WithholdSecrets(Hook):
    """Trips on results that mention a secret."""

    def after_action(self, name: str, action_return: Any, context: Any) -> Any:
        if "secret" in action_return.format_result():
            raise GuardrailTripwire("the result mentions a secret")
        return None


def test_an_after_action_tripwire_withholds_the_result_and_halts_before_the_next_native_call() -> None:
    mail = Mail()
    executor = ActionExecutor([mail.send_email])
    executor.register_hook(WithholdSecrets())
    calls = [tool_call("c1", "send_email", {"to": "secret"}), tool_call("c2", "send_email", {"to": "bo"})]
    model = NativeScript([{"role": "assistant", "content": "", "tool_calls": calls}])
    result = ReAct(model, executor, native_tools=True).run("q")
    assert (result.stop_reason, result.error, mail.sent) == (
        "tripwire",
        "the result mentions a secret",
        ["secret"],
    )
    records = result.turns[0].tool_returns
    assert records is not None
    assert [r.errmsg for r in records if r is not None] == [
        "halted by a guardrail: the result mentions a secret",
        "not run: a guardrail halted the run",
    ]
    assert len(model.calls) == 1


def test_native_model_callbacks_see_and_give_message_dicts() -> None:
    seen: list[Any] = []

    def after(reply: dict[str, Any]) -> Any:
        seen.append(reply)
        return {"role": "assistant", "content": reply["content"].upper()}

    def before(messages: Messages) -> Any:
        return {"role": "assistant", "content": "short-circuited"} if len(messages) > 5 else None

    model = NativeScript([{"role": "assistant", "content": "from the model"}])
    agent = ReAct(
        model, ActionExecutor([Mail().send_email]), native_tools=True, before_model=before, after_model=after
    )
    assert agent.run("q").answer == "FROM THE MODEL"
    assert seen == [{"role": "assistant", "content": "from the model", "tool_calls": []}]
    assert agent.run("q", history=[{"role": "user", "content": "x"}] * 4).answer == "SHORT-CIRCUITED"
    assert len(model.calls) == 1


def test_the_async_executor_passes_the_context_and_rolls_back_a_failed_calls_state() -> None:
    import asyncio

    from lagent_like import AsyncActionExecutor

    seen = Seen()
    executor = AsyncActionExecutor([seen.look, note])

    async def main() -> None:
        await executor("look", "{}", call_id="c9", context="mine")
        await executor("note", {"text": "a", "fail": True})

    asyncio.run(main())
    assert (seen.contexts[0].context, seen.contexts[0].function_call) == (
        "mine",
        {"id": "c9", "name": "look", "arguments": "{}"},
    )
    assert executor.session_state("default") == {}


class CountFailures(Hook):
    """Counts failed calls in the session's state."""

    def after_action(self, name: str, action_return: Any, context: Any) -> Any:
        if action_return.state != ActionStatusCode.SUCCESS:
            context.state["failures"] = context.state.get("failures", 0) + 1
        return None


def test_what_hooks_write_to_the_state_stays_when_the_tool_fails() -> None:
    executor = ActionExecutor([note])
    executor.register_hook(CountFailures())
    executor("note", {"text": "a", "fail": True})
    executor("note", {"text": "b", "fail": True})
    assert executor.session_state("default") == {"failures": 2}


def test_astream_yields_the_same_events_on_an_event_loop() -> None:
    import asyncio

    agent = ReAct(Script([act("spell", {"word": "ab"}), "Final Answer: ab"]), ActionExecutor([spell]))

    async def main() -> list[Any]:
        return [event async for event in agent.astream("q")]

    events = asyncio.run(main())
    assert [event.type for event in events] == [
        "model_text",
        "tool_call",
        "tool_progress",
        "tool_progress",
        "tool_result",
        "model_text",
        "final_answer",
    ]
    assert events[-1].answer == "ab"
