"""``ReAct(..., tool_search=True)``: the model gets ``search_tools`` and only the tools it found."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like.agents import ReAct
from lagent_like.exceptions import DefinitionError

Messages = list[dict[str, Any]]


class Weather(BaseAction, register=False):
    """Weather reports."""

    @tool_api
    def forecast(self, city: str) -> str:
        """Get the weather forecast of a city.

        Args:
            city: the city.
        """
        return f"sunny in {city}"


def send_email(recipient: str, body: str) -> str:
    """Send an email.

    Args:
        recipient: the address.
        body: the text.
    """
    return "sent"


def convert_currency(amount: float, target: str) -> str:
    """Convert an amount of money to another currency.

    Args:
        amount: how much.
        target: the currency code.
    """
    return "9.2"


def _executor() -> ActionExecutor:
    return ActionExecutor([Weather(), send_email, convert_currency])


class TextModel:
    """A scripted text-mode model: its replies in order; records what it was sent."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.seen: list[Messages] = []

    def __call__(self, messages: Messages) -> str:
        self.seen.append(messages)
        return self.replies.pop(0)


def test_text_mode_searches_then_calls_the_found_tool() -> None:
    model = TextModel(
        [
            'Thought: find a tool\nAction: search_tools\nAction Input: {"query": "weather forecast"}',
            'Thought: call it\nAction: Weather.forecast\nAction Input: {"city": "Oslo"}',
            "Thought: done\nFinal Answer: sunny",
        ]
    )
    agent = ReAct(model, _executor(), tool_search=True)
    system = agent.system_prompt
    assert "search_tools" in system
    assert "send_email" not in system and "Weather.forecast" not in system
    result = agent.run("Weather in Oslo?")
    assert result.answer == "sunny"
    observation = result.turns[0].observation
    assert observation.startswith("Found 1 tools, best first; you can call them now:\n\nWeather.forecast: ")
    assert result.turns[1].observation == "sunny in Oslo"
    assert "Weather.forecast" in agent.system_prompt  # found: offered from now on
    assert "send_email" not in agent.system_prompt


def test_a_search_that_finds_nothing_says_so() -> None:
    model = TextModel(
        [
            'Action: search_tools\nAction Input: {"query": "zebra quantum"}',
            "Final Answer: none",
        ]
    )
    result = ReAct(model, _executor(), tool_search=True).run("?")
    assert result.turns[0].observation == "No tool matches 'zebra quantum'. Search again with other words."


def test_native_mode_offers_only_search_tools_then_the_found_ones() -> None:
    offered: list[list[str]] = []

    class NativeModel:
        def __init__(self) -> None:
            self.step = 0

        def chat(self, messages: Messages, tools: Any = None, **params: Any) -> dict[str, Any]:
            offered.append([t["function"]["name"] for t in tools])
            self.step += 1
            if self.step == 1:
                args = json.dumps({"query": "convert money currency"})
                return {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [_call("c1", "search_tools", args)],
                }
            if self.step == 2:
                args = json.dumps({"amount": 10, "target": "EUR"})
                return {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [_call("c2", "convert_currency", args)],
                }
            return {"role": "assistant", "content": "9.2 EUR"}

    result = ReAct(NativeModel(), _executor(), native_tools=True, tool_search=1).run("10 USD in EUR?")
    assert result.answer == "9.2 EUR"
    assert offered == [
        ["search_tools"],
        ["search_tools", "convert_currency"],
        ["search_tools", "convert_currency"],
    ]
    assert result.turns[1].action_return.format_result() == "9.2"


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize(
    ("executor", "tool_search", "message"),
    [
        pytest.param(
            lambda: ActionExecutor([search_tools]),
            True,
            r"ReAct\(tool_search=True\): the executor already has a tool named 'search_tools'; rename it",
            id="name-taken",
        ),
        pytest.param(_executor, 0, r"ReAct\(tool_search=...\): k must be a positive int, got 0", id="k-zero"),
    ],
)
def test_tool_search_refuses_at_definition(executor: Any, tool_search: Any, message: str) -> None:
    with pytest.raises(DefinitionError, match=message):
        ReAct(TextModel([]), executor(), tool_search=tool_search)


def search_tools(query: str) -> str:
    """Search.

    Args:
        query: words.
    """
    return query


def test_forget_hides_the_found_tools_again() -> None:
    agent = ReAct(TextModel([]), _executor(), tool_search=True)
    agent.executor.search("send email")
    assert [e["name"] for e in agent.executor.get_actions_info()] == ["search_tools", "send_email"]
    agent.executor.forget()
    assert [e["name"] for e in agent.executor.get_actions_info()] == ["search_tools"]
