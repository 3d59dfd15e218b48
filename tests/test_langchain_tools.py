"""LangChain both ways: lagent_like APIs as LangChain tools and LangChain tools in an executor, equal results."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    ToolDefinitionError,
    from_langchain,
    to_langchain_tools,
    tool_api,
)
from lagent_like.langchain_tools import is_langchain_tool

tools = pytest.importorskip(
    "langchain_core.tools",
    reason="needs the 'langchain' extra: pip install '.[langchain]' (or 'lagent-like[langchain]')",
)
messages = pytest.importorskip(
    "langchain_core.messages",
    reason="needs the 'langchain' extra: pip install '.[langchain]' (or 'lagent-like[langchain]')",
)


class LcCalc(BaseAction):
    @tool_api
    def add(self, a: int, b: int = 0) -> int:
        """Add two numbers.

        Args:
            a: the first
            b: the second
        """
        return a + b

    @tool_api
    def div(self, a: float, b: float) -> float:
        """Divide.

        Args:
            a: the dividend
            b: the divisor
        """
        return a / b


CALC = ActionExecutor([LcCalc()])


def test_every_enabled_api_becomes_a_langchain_tool_named_by_its_alias() -> None:
    converted = to_langchain_tools(CALC)
    assert all(isinstance(t, tools.BaseTool) for t in converted)
    assert [(t.name, t.description) for t in converted] == [
        ("LcCalc__add", "Add two numbers."),
        ("LcCalc__div", "Divide."),
    ]
    assert converted[0].args == {
        "a": {"type": "integer", "description": "the first"},
        "b": {"type": "integer", "description": "the second", "default": 0},
    }


@pytest.mark.parametrize(
    ("api", "arguments"),
    [
        pytest.param("LcCalc__add", {"a": 2, "b": 3}, id="success"),
        pytest.param("LcCalc__add", {"a": "2"}, id="coerced"),
        pytest.param("LcCalc__add", {"a": "x"}, id="refused"),
        pytest.param("LcCalc__div", {"a": 1, "b": 0}, id="tool-raises"),
    ],
)
def test_a_lagent_api_as_a_langchain_tool_gives_the_executors_results(
    api: str, arguments: dict[str, Any]
) -> None:
    tool = {t.name: t for t in to_langchain_tools(CALC)}[api]
    ret = CALC(api, dict(arguments))
    # The model calling the LangChain tool knows its alias: a message names that (issue 20, item 9).
    expected = ret.format_result() if ret.state == ActionStatusCode.SUCCESS else ret.errmsg
    expected = expected.replace(api.replace("__", "."), api)
    assert tool.invoke(arguments) == expected
    message = tool.invoke({"type": "tool_call", "id": "call_1", "name": api, "args": arguments})
    assert isinstance(message, messages.ToolMessage)
    assert (message.content, message.tool_call_id) == (expected, "call_1")
    assert message.status == ("success" if ret.state == ActionStatusCode.SUCCESS else "error")


def test_a_langchain_tool_of_an_async_executor_awaits_it() -> None:
    class LcAsync(BaseAction):
        @tool_api
        async def double(self, x: int) -> int:
            """Double.

            Args:
                x: a number
            """
            return 2 * x

    [tool] = to_langchain_tools(AsyncActionExecutor([LcAsync()]))
    assert asyncio.run(tool.ainvoke({"x": 21})) == "42"
    [sync_tool] = to_langchain_tools(CALC)[:1]
    assert asyncio.run(sync_tool.ainvoke({"a": 1})) == "1"


@tools.tool
def lc_multiply(a: int, b: int = 2) -> int:
    """Multiply two numbers."""
    return a * b


@tools.tool
def lc_fail(reason: str) -> str:
    """Fail on purpose."""
    raise tools.ToolException(f"cannot: {reason}")


async def _lc_shout(text: str) -> str:
    return text.upper()


LC_SHOUT = tools.StructuredTool.from_function(coroutine=_lc_shout, name="lc_shout", description="Shout.")


@pytest.mark.parametrize(
    ("name", "command", "state", "text"),
    [
        pytest.param("lc_multiply", '{"a": 3}', ActionStatusCode.SUCCESS, "6", id="default-applies"),
        pytest.param("lc_multiply", "{'a': 3, 'b': 4,}", ActionStatusCode.SUCCESS, "12", id="lenient-json"),
        pytest.param(
            "lc_multiply",
            '{"a": "x"}',
            ActionStatusCode.ARGS_ERROR,
            "lc_multiply: 'a' input should be a valid integer, unable to parse string as an integer "
            "(got string 'x')",
            id="checked-by-the-tools-own-model",
        ),
        pytest.param(
            "lc_fail", '{"reason": "no"}', ActionStatusCode.API_ERROR, "cannot: no", id="tool-exception"
        ),
        pytest.param("lc_shout", '{"text": "hi"}', ActionStatusCode.SUCCESS, "HI", id="async-only-tool"),
    ],
)
def test_an_executor_runs_langchain_tools(name: str, command: str, state: int, text: str) -> None:
    executor = ActionExecutor([lc_multiply, lc_fail, LC_SHOUT])
    ret = executor(name, command)
    assert (ret.state, ret.format_result() or ret.errmsg) == (state, text)


def test_langchain_tools_are_described_as_langchain_describes_them() -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    executor = ActionExecutor([lc_multiply])
    assert executor.to_openai_tools()[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"default": 2, "type": "integer"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert (
        executor.get_actions_info()[0]["description"]
        == convert_to_openai_tool(lc_multiply)["function"]["description"]
    )


def test_equal_results_both_ways_round_trip() -> None:
    back = ActionExecutor(to_langchain_tools(CALC))
    for name, arguments in [("LcCalc__add", '{"a": 1, "b": 2}'), ("LcCalc__div", '{"a": 1, "b": 0}')]:
        there, here = back(name, arguments), CALC(name, arguments)
        assert (there.format_result(), there.errmsg) == (here.format_result(), here.errmsg) or (
            there.errmsg == here.errmsg
        )


def test_only_langchain_tools_are_taken_for_langchain_tools() -> None:
    assert is_langchain_tool(lc_multiply)
    assert not is_langchain_tool(CALC) and not is_langchain_tool(len)
    with pytest.raises(ToolDefinitionError, match="expected a LangChain BaseTool, got int"):
        from_langchain(3)
