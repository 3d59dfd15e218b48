"""Agents composed: an agent as a tool, handoffs to sub-agents, control flow from tools."""

from __future__ import annotations

from typing import Any

import pytest
from _agents import Script, act, escalating, verbatim

from lagent_like import ActionExecutor, ActionStatusCode, DefinitionError, FunctionTool, ToolContext
from lagent_like.agents import ReAct, nested_trace


def shout(text: str) -> str:
    """Shout a text.

    Args:
        text: what to shout.
    """
    return text.upper() + "!"


# --------------------------------------------------------------------------- as_tool (seed 002)


def spanish_agent(model: Script) -> ReAct:
    return ReAct(model, ActionExecutor([shout]), name="spanish_agent", description="Translates to Spanish.")


def test_an_agent_as_a_tool_answers_with_the_nested_answer_and_keeps_the_nested_trace() -> None:
    inner_model = Script([act("shout", {"text": "hola"}), "Final Answer: ¡HOLA!"])
    tool = spanish_agent(inner_model).as_tool(
        name="translate_to_spanish", description="Translate to Spanish."
    )
    outer_model = Script([act("translate_to_spanish", {"request": "say hello"}), "Final Answer: done"])
    result = ReAct(outer_model, ActionExecutor([tool]), name="orchestrator").run("hello in Spanish")
    assert result.answer == "done"
    record = result.turns[0].action_return
    assert record is not None and record.format_result() == "HOLA!"[:0] + "¡HOLA!"
    assert inner_model.calls[0][-1] == {"role": "user", "content": "say hello"}
    nested = nested_trace(record)
    assert nested is not None
    assert (nested.answer, nested.last_agent, len(nested.turns)) == ("¡HOLA!", "spanish_agent", 2)
    assert nested.turns[0].action_return is not None
    assert nested.turns[0].action_return.format_result() == "HOLA!"
    assert outer_model.calls[1][-1]["content"] == "Observation: ¡HOLA!"


def test_an_agent_tool_has_one_request_parameter_and_the_given_or_agent_description() -> None:
    agent = spanish_agent(Script([]))
    named = ActionExecutor([agent.as_tool(name="translate", description="Translate to Spanish.")])
    function = named.to_openai_tools()[0]["function"]
    assert function["name"] == "translate"
    assert function["description"] == "Translate to Spanish."
    assert list(function["parameters"]["properties"]) == ["request"]
    assert function["parameters"]["required"] == ["request"]
    default = ActionExecutor([agent.as_tool()]).to_openai_tools()[0]["function"]
    assert (default["name"], default["description"]) == ("spanish_agent", "Translates to Spanish.")


def test_a_nested_run_without_an_answer_is_an_error_record_that_keeps_the_trace() -> None:
    inner = ReAct(Script(["no format", "still none"]), ActionExecutor([shout]), name="lost", max_turns=2)
    executor = ActionExecutor([inner.as_tool()])
    record = executor("lost", '{"request": "x"}')
    assert record.state == ActionStatusCode.API_ERROR
    assert record.errmsg == "the agent 'lost' ended without an answer (stop reason 'max_turns')"
    nested = nested_trace(record)
    assert nested is not None and nested.stop_reason == "max_turns"


def test_the_nested_run_sees_the_callers_run_context() -> None:
    seen: list[Any] = []

    def whoami(tool_context: ToolContext) -> str:
        """Say who is asking."""
        seen.append((tool_context.agent_name, tool_context.context))
        return "ok"

    inner = ReAct(Script([act("whoami", {}), "Final Answer: ok"]), ActionExecutor([whoami]), name="inner")
    outer = ReAct(
        Script([act("inner", {"request": "who?"}), "Final Answer: ok"]), ActionExecutor([inner.as_tool()])
    )
    outer.run("q", context={"user": "ada"})
    assert seen == [("inner", {"user": "ada"})]


# --------------------------------------------------------------------------- transfer (seed 000)


def billing_and_support(billing_model: Script, support_model: Script) -> tuple[ReAct, ReAct]:
    billing = ReAct(billing_model, ActionExecutor([shout]), name="Billing", description="Handles billing.")
    support = ReAct(support_model, ActionExecutor([shout]), name="Support", description="Handles support.")
    return billing, support


def test_the_coordinator_transfers_to_a_sub_agent_who_answers() -> None:
    billing_model = Script(["Final Answer: your invoice is paid"])
    billing, support = billing_and_support(billing_model, Script([]))
    coordinator_model = Script([act("transfer_to_agent", {"agent_name": "Billing"})])
    coordinator = ReAct(
        coordinator_model, ActionExecutor([shout]), name="HelpDeskCoordinator", sub_agents=[billing, support]
    )
    result = coordinator.run("My payment failed")
    assert (result.answer, result.stop_reason, result.last_agent) == (
        "your invoice is paid",
        "final_answer",
        "Billing",
    )
    assert [(t.agent, t.handoff) for t in result.turns] == [
        ("HelpDeskCoordinator", "Billing"),
        ("Billing", None),
    ]
    assert "transfer_to_agent" in coordinator.system_prompt
    assert "Billing: Handles billing.; Support: Handles support." in coordinator.system_prompt
    sent = billing_model.calls[0]
    assert sent[0]["content"] == billing.system_prompt
    assert sent[1:] == [
        {"role": "user", "content": "My payment failed"},
        {"role": "assistant", "content": coordinator_model.replies[0]},
        {"role": "user", "content": "Observation: Transferred to Billing."},
    ]
    # the sub-agent may hand back to its parent
    assert "HelpDeskCoordinator" in billing.system_prompt


def test_a_transfer_to_an_unknown_agent_tells_the_model_the_names_it_can_use() -> None:
    billing, support = billing_and_support(Script([]), Script([]))
    model = Script([act("transfer_to_agent", {"agent_name": "Sales"}), "Final Answer: sorry"])
    result = ReAct(model, ActionExecutor([shout]), name="desk", sub_agents=[billing, support]).run("q")
    assert (result.answer, result.last_agent) == ("sorry", "desk")
    record = result.turns[0].action_return
    assert record is not None and record.errmsg == (
        "'desk' cannot transfer to 'Sales'; the agents it can transfer to: 'Billing', 'Support'"
    )


def test_a_tool_setting_transfer_to_agent_hands_the_conversation_over() -> None:
    def route(topic: str, tool_context: ToolContext) -> str:
        """Route a topic.

        Args:
            topic: the topic.
        """
        tool_context.actions.transfer_to_agent = "Support"
        return f"routed {topic}"

    billing, support = billing_and_support(Script([]), Script(["Final Answer: rebooted"]))
    model = Script([act("route", {"topic": "wifi"})])
    result = ReAct(model, ActionExecutor([route]), name="desk", sub_agents=[billing, support]).run("q")
    assert (result.answer, result.last_agent, result.turns[0].handoff) == ("rebooted", "Support", "Support")
    assert result.turns[0].observation == "routed wifi"


@pytest.mark.parametrize(
    ("returns_message", "observation"),
    [
        pytest.param(False, "Transferred to Spanish.", id="agent"),
        pytest.param(True, "Switching to Spanish", id="agent-and-message"),
    ],
)
def test_a_tool_returning_an_agent_hands_over_and_the_agent_is_not_text(
    returns_message: bool, observation: str
) -> None:
    # Seed 003 (LiveKit): a function tool returns the next agent, or (agent, message).
    spanish = ReAct(Script(["Final Answer: ¡Hola!"]), ActionExecutor([shout]), name="Spanish")

    def switch_to_spanish() -> Any:
        """Switch the conversation to Spanish."""
        return (spanish, "Switching to Spanish") if returns_message else spanish

    model = Script([act("switch_to_spanish", {})])
    result = ReAct(model, ActionExecutor([switch_to_spanish]), name="English").run("hola?")
    assert (result.answer, result.last_agent) == ("¡Hola!", "Spanish")
    assert result.turns[0].observation == observation
    assert result.turns[0].handoff == "Spanish"


def test_a_tool_returning_an_agent_outside_an_agent_run_is_an_error_record() -> None:
    other = ReAct(Script([]), ActionExecutor([shout]), name="other")

    def hand_over() -> Any:
        """Hand over."""
        return other

    record = ActionExecutor([hand_over])("hand_over", "{}")
    assert record.state == ActionStatusCode.API_ERROR
    assert record.errmsg == (
        "hand_over returned the agent 'other', but only an agent run can hand the conversation over; "
        "call it from an agent (e.g. ReAct) or return a value"
    )


@pytest.mark.parametrize(
    ("tool", "answer", "stop_reason"),
    [
        pytest.param(escalating, "cannot help", "escalated", id="escalate"),
        pytest.param(verbatim, "42 exactly", "skip_summarization", id="skip-summarization"),
    ],
)
def test_tool_actions_end_the_run(tool: Any, answer: str, stop_reason: str) -> None:
    model = Script([act(tool.__name__, {}), "Final Answer: never"])
    result = ReAct(model, ActionExecutor([tool]), name="solo").run("q")
    assert (result.answer, result.stop_reason, result.last_agent) == (answer, stop_reason, "solo")
    assert len(model.calls) == 1


def test_agent_names_in_a_tree_are_unique_and_an_agent_has_one_parent() -> None:
    child = ReAct(Script([]), ActionExecutor([shout]), name="child")
    ReAct(Script([]), ActionExecutor([shout]), name="parent", sub_agents=[child])
    with pytest.raises(DefinitionError, match="'child' is already a sub-agent of 'parent'"):
        ReAct(Script([]), ActionExecutor([shout]), name="other", sub_agents=[child])
    twin = ReAct(Script([]), ActionExecutor([shout]), name="twin")
    with pytest.raises(DefinitionError, match=r"agent names must be unique in one tree; \['twin'\]"):
        ReAct(Script([]), ActionExecutor([shout]), name="twin", sub_agents=[twin])


def test_an_executor_tool_named_transfer_to_agent_is_refused_with_sub_agents() -> None:
    def transfer_to_agent(agent_name: str) -> str:
        """Transfer.

        Args:
            agent_name: who.
        """
        return agent_name

    child = ReAct(Script([]), ActionExecutor([shout]), name="child")
    with pytest.raises(DefinitionError, match="has a tool named 'transfer_to_agent'"):
        ReAct(Script([]), ActionExecutor([FunctionTool(transfer_to_agent)]), name="p", sub_agents=[child])


def test_on_turn_sees_each_turn_with_its_observation_and_handoff_and_the_terminal_view_shows_it() -> None:
    from lagent_like.agents.trace_render import format_turn

    seen: list[tuple[Any, ...]] = []
    billing, support = billing_and_support(Script(["Final Answer: paid"]), Script([]))
    model = Script([act("transfer_to_agent", {"agent_name": "Billing"})])
    desk = ReAct(
        model,
        ActionExecutor([shout]),
        name="desk",
        sub_agents=[billing, support],
        on_turn=lambda turn: seen.append((turn.agent, turn.observation, turn.handoff)),
    )
    result = desk.run("q")
    assert seen == [("desk", "Transferred to Billing.", "Billing"), ("Billing", None, None)]
    assert format_turn(result.turns[0]).splitlines()[-2:] == [
        "Observation [SUCCESS]: Transferred to Billing.",
        "Handed over to Billing",
    ]


def test_seed_000_a_tool_reads_its_context_writes_state_and_transfers_to_a_specialist() -> None:
    # ADK's example tool: state written, a transfer asked for, the agent and run read.
    seen: list[tuple[Any, ...]] = []

    async def my_tool(query: str, tool_context: ToolContext) -> dict[str, str]:
        """Look a query up.

        Args:
            query: The search query string
        """
        tool_context.state["last_query"] = query
        tool_context.actions.transfer_to_agent = "specialist_agent"
        seen.append((tool_context.agent_name, tool_context.invocation_id, tool_context.function_call))
        return {"result": "done"}

    specialist = ReAct(Script(["Final Answer: handled"]), ActionExecutor([shout]), name="specialist_agent")
    executor = ActionExecutor([my_tool])
    model = Script([act("my_tool", {"query": "refund"})])
    result = ReAct(model, executor, name="assistant", sub_agents=[specialist]).run("q")
    assert (result.answer, result.last_agent) == ("handled", "specialist_agent")
    assert seen == [
        (
            "assistant",
            result.invocation_id,
            {"id": None, "name": "my_tool", "arguments": '{"query": "refund"}'},
        )
    ]
    assert executor.session_state("default") == {"last_query": "refund"}
    assert result.turns[0].observation == '{"result": "done"}'
