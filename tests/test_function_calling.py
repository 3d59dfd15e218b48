"""Function calling: legal alias names, plain functions as tools, OpenAI ``tool_calls``."""

from __future__ import annotations

import math
import re
import types
from typing import Any

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    ActionValidCode,
    BaseAction,
    JsonParser,
    ToolDefinitionError,
    ToolNotFoundError,
    list_tools,
    tool_api,
)
from lagent_like.actions.function_tool import FunctionTool

LEGAL = re.compile(r"[a-zA-Z0-9_-]{1,64}")


class FcCalc(BaseAction):
    """Calculator."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: first
            b: second
        """
        return a + b

    @tool_api
    def div(self, a: int, b: int) -> float:
        """Divide a by b.

        Args:
            a: dividend
            b: divisor
        """
        return a / b


class FcEcho(BaseAction):
    def run(self, text: str) -> str:
        """Repeat the text.

        Args:
            text: what to repeat
        """
        return text


def test_toolkit_api_name_maps_to_a_legal_alias_and_back() -> None:
    executor = ActionExecutor([FcCalc(), FcEcho()])
    assert executor.alias_of("FcCalc.add") == "FcCalc__add"
    assert executor.alias_of("FcCalc.div") == "FcCalc__div"
    assert executor.canonical_name("FcCalc__add") == "FcCalc.add"
    assert executor.canonical_name("FcCalc.add") == "FcCalc.add"


def test_a_legal_name_is_its_own_alias() -> None:
    executor = ActionExecutor([FcEcho()])
    assert executor.alias_of("FcEcho") == "FcEcho"
    assert executor.canonical_name("FcEcho") == "FcEcho"


def test_alias_of_an_unknown_name_raises() -> None:
    executor = ActionExecutor([FcCalc()])
    with pytest.raises(ToolNotFoundError, match=re.escape("no tool named 'FcCalc.ad' in this executor")):
        executor.alias_of("FcCalc.ad")


def test_canonical_name_of_an_unknown_alias_raises() -> None:
    executor = ActionExecutor([FcCalc()])
    with pytest.raises(ToolNotFoundError, match=re.escape("no tool named 'FcCalc__sub' in this executor")):
        executor.canonical_name("FcCalc__sub")


@pytest.mark.parametrize(
    ("name", "command"),
    [
        pytest.param("FcCalc.add", '{"a": 1, "b": 2}', id="canonical-json"),
        pytest.param("FcCalc__add", '{"a": 1, "b": 2}', id="alias-json"),
        pytest.param("FcCalc__add", {"a": 1, "b": 2}, id="alias-dict"),
        pytest.param("FcCalc.add", {"a": "1", "b": 2}, id="canonical-coerced"),
    ],
)
def test_executor_accepts_canonical_names_and_aliases_alike(name: str, command: Any) -> None:
    ret = ActionExecutor([FcCalc()])(name, command)
    assert (ret.state, ret.valid, ret.type) == (ActionStatusCode.SUCCESS, ActionValidCode.OPEN, "FcCalc")
    assert ret.result == [{"type": "text", "content": "3"}]
    assert ret.args == {"a": 1, "b": 2}


def test_alias_of_a_disabled_tool_is_not_run() -> None:
    calc = FcCalc(enable=False)
    ret = ActionExecutor([calc, FcEcho()])("FcCalc__add", '{"a": 1, "b": 2}')
    assert (ret.state, ret.valid) == (ActionStatusCode.API_ERROR, ActionValidCode.INVALID)
    assert ret.result is None


def _named(name: str) -> FunctionTool:
    def who() -> str:
        return name

    return FunctionTool(who, name=name)


AWKWARD_NAMES = [
    "a.b",
    "a__b",
    "a b",
    "a_b",
    "a!b",
    "a/b",
    "tool:run",
    "Tool.api.v2",
    "Tool__api__v2",
    "x" * 64,
    "x" * 65,
    "x" * 70,
    "x" * 70 + "y",
    "y" * 100 + ".api",
    "é",
    "ü",
    "日本語",
    "-",
]


@pytest.mark.parametrize("order", [pytest.param(1, id="forward"), pytest.param(-1, id="reversed")])
def test_awkward_names_get_legal_unique_aliases_that_map_back(order: int) -> None:
    names = AWKWARD_NAMES[::order]
    executor = ActionExecutor([_named(n) for n in names])
    aliases = [executor.alias_of(n) for n in names]
    assert all(LEGAL.fullmatch(a) for a in aliases), aliases
    assert len(set(aliases)) == len(names)
    for name, alias in zip(names, aliases):
        assert executor.canonical_name(alias) == name
        assert executor.canonical_name(name) == name
        assert executor(alias, "{}").result == [{"type": "text", "content": name}]
        assert executor(name, "{}").result == [{"type": "text", "content": name}]


@pytest.mark.parametrize("order", [pytest.param(1, id="forward"), pytest.param(-1, id="reversed")])
def test_legal_names_keep_themselves_and_colliding_aliases_get_a_hash(order: int) -> None:
    executor = ActionExecutor([_named(n) for n in AWKWARD_NAMES[::order]])
    assert executor.alias_of("a__b") == "a__b"
    assert executor.alias_of("a_b") == "a_b"
    assert executor.alias_of("x" * 64) == "x" * 64
    assert executor.alias_of("-") == "-"
    assert re.fullmatch(r"a__b_[0-9a-f]{8}", executor.alias_of("a.b"))
    assert re.fullmatch(r"a_b_[0-9a-f]{8}", executor.alias_of("a b"))
    assert re.fullmatch(r"Tool__api__v2_[0-9a-f]{8}", executor.alias_of("Tool.api.v2"))
    assert re.fullmatch(r"x{55}_[0-9a-f]{8}", executor.alias_of("x" * 65))


def test_readable_aliases_without_collisions() -> None:
    executor = ActionExecutor([_named(n) for n in ["a.b", "a b", "tool:run", "Tool.api.v2"]])
    assert [executor.alias_of(n) for n in ["a.b", "a b", "tool:run", "Tool.api.v2"]] == [
        "a__b",
        "a_b",
        "tool_run",
        "Tool__api__v2",
    ]


def test_exports_use_the_aliases() -> None:
    executor = ActionExecutor([FcCalc(), _named("a.b"), _named("a__b")])
    names = [tool["function"]["name"] for tool in executor.to_openai_tools()]
    assert names == [executor.alias_of(n) for n in ["FcCalc.add", "FcCalc.div", "a.b", "a__b"]]
    assert names[:2] == ["FcCalc__add", "FcCalc__div"]
    assert names[3] == "a__b"
    assert all(LEGAL.fullmatch(n) for n in names)


def test_a_name_ending_in_a_newline_gets_a_legal_alias() -> None:
    executor = ActionExecutor([_named("ok\n")])
    alias = executor.alias_of("ok\n")
    assert LEGAL.fullmatch(alias), repr(alias)
    assert executor.canonical_name(alias) == "ok\n"


def fc_factorial(n: int) -> int:
    """Factorial of n.

    Args:
        n: a non-negative integer
    """
    return math.factorial(n)


class FcMath(BaseAction, register=False):
    """Math functions."""

    __tool_name__ = "math"

    @tool_api
    def sqrt(self, x: float) -> float:
        """Square root.

        Args:
            x: a number
        """
        return math.sqrt(x)


def test_a_dotted_tool_name_resolves_by_exact_name_first() -> None:
    executor = ActionExecutor([FunctionTool(fc_factorial, name="math.factorial")])
    for name in ("math.factorial", "math__factorial"):
        ret = executor(name, '{"n": 5}')
        assert (ret.state, ret.type, ret.result) == (
            ActionStatusCode.SUCCESS,
            "math.factorial",
            [{"type": "text", "content": "120"}],
        )
    assert executor.api_names() == ["math.factorial"]


def test_a_dotted_tool_name_next_to_a_toolkit_of_the_prefix() -> None:
    executor = ActionExecutor([FcMath(), FunctionTool(fc_factorial, name="math.factorial"), FcCalc()])
    assert executor.api_names() == ["math.sqrt", "math.factorial", "FcCalc.add", "FcCalc.div"]
    assert executor("math.factorial", '{"n": 4}').result == [{"type": "text", "content": "24"}]
    assert executor("math.sqrt", '{"x": 16}').result == [{"type": "text", "content": "4.0"}]
    assert executor("math__sqrt", '{"x": 16}').result == [{"type": "text", "content": "4.0"}]
    assert executor("math__factorial", '{"n": 4}').result == [{"type": "text", "content": "24"}]


@pytest.mark.parametrize(
    ("name", "errmsg"),
    [
        pytest.param(
            "FcCalc.nope", "FcCalc has no API 'nope'. Call one of: FcCalc.add, FcCalc.div", id="toolkit-class"
        ),
        pytest.param("math.nope", "math has no API 'nope'. Call one of: math.sqrt", id="toolkit-named-math"),
    ],
)
def test_tool_dot_api_still_resolves_the_tool_at_the_first_dot(name: str, errmsg: str) -> None:
    executor = ActionExecutor([FcMath(), FunctionTool(fc_factorial, name="math.factorial"), FcCalc()])
    ret = executor(name, "{}")
    assert (ret.state, ret.valid, ret.errmsg) == (ActionStatusCode.API_ERROR, ActionValidCode.OPEN, errmsg)


def fc_repeat(text: str, times: int = 2) -> str:
    """Repeat a text.

    Args:
        text: the text
        times: how often
    """
    return text * times


async def fc_halve(x: float) -> float:
    """Halve a number.

    Args:
        x: the number
    """
    return x / 2


def fc_untyped(value):  # type: ignore[no-untyped-def]
    """Describe a value.

    Args:
        value (str): the value
    """
    return f"<{value}>"


def test_plain_functions_become_simple_tools_named_after_the_function() -> None:
    executor = ActionExecutor([FcCalc(), fc_repeat, fc_halve])
    assert executor.action_names() == ["FcCalc", "fc_repeat", "fc_halve"]
    assert executor.api_names() == ["FcCalc.add", "FcCalc.div", "fc_repeat", "fc_halve"]
    assert isinstance(executor.actions["fc_repeat"], FunctionTool)
    assert executor.actions["fc_repeat"].function is fc_repeat
    assert executor.actions["fc_halve"].is_toolkit is False


def test_plain_functions_are_described_from_hints_and_docstring() -> None:
    info = ActionExecutor([fc_repeat, fc_halve, fc_untyped]).get_actions_info()
    assert info == [
        {
            "name": "fc_repeat",
            "description": "Repeat a text.",
            "parameters": [
                {"name": "text", "type": "STRING", "description": "the text"},
                {"name": "times", "type": "NUMBER", "description": "how often"},
            ],
            "required": ["text"],
            "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
        },
        {
            "name": "fc_halve",
            "description": "Halve a number.",
            "parameters": [{"name": "x", "type": "FLOAT", "description": "the number"}],
            "required": ["x"],
            "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
        },
        {
            "name": "fc_untyped",
            "description": "Describe a value.",
            "parameters": [{"name": "value", "type": "STRING", "description": "the value"}],
            "required": ["value"],
            "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
        },
    ]


def test_plain_functions_are_called_sync_and_async_with_checked_arguments() -> None:
    executor = ActionExecutor([fc_repeat, fc_halve])
    ret = executor("fc_repeat", '{"text": "ab", "times": "3"}')
    assert (ret.state, ret.type, ret.args) == (
        ActionStatusCode.SUCCESS,
        "fc_repeat",
        {"text": "ab", "times": 3},
    )
    assert ret.result == [{"type": "text", "content": "ababab"}]
    ret = executor("fc_halve", {"x": 3})
    assert (ret.state, ret.type, ret.args) == (ActionStatusCode.SUCCESS, "fc_halve", {"x": 3.0})
    assert ret.result == [{"type": "text", "content": "1.5"}]
    ret = executor("fc_halve", '{"x": "half"}')
    assert (ret.state, ret.errmsg) == (
        ActionStatusCode.ARGS_ERROR,
        "fc_halve: 'x' expected number, got string 'half'",
    )


def test_the_function_itself_is_not_modified() -> None:
    before = dict(vars(fc_repeat))
    executor = ActionExecutor([fc_repeat, fc_halve])
    executor.add_action(fc_untyped)
    assert executor("fc_untyped", '{"value": "v"}').result == [{"type": "text", "content": "<v>"}]
    for func in (fc_repeat, fc_halve, fc_untyped):
        assert not hasattr(func, "api_description")
    assert vars(fc_repeat) == before == {}
    assert fc_repeat("x", times=3) == "xxx"


def test_function_tools_are_not_registered_as_tool_classes() -> None:
    ActionExecutor([fc_repeat])
    assert "fc_repeat" not in list_tools()
    assert "FunctionTool" not in list_tools()


@tool_api(name="shout")
def fc_loud(text: str) -> str:
    """Shout the text.

    Args:
        text: what to shout
    """
    return text.upper()


def test_a_tool_api_function_keeps_its_own_description_and_name() -> None:
    executor = ActionExecutor([fc_loud])
    assert executor.action_names() == ["shout"]
    assert executor("shout", {"text": "hi"}).result == [{"type": "text", "content": "HI"}]
    assert executor.to_openai_tools() == [
        {
            "type": "function",
            "function": {
                "name": "shout",
                "description": "Shout the text.",
                "parameters": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "what to shout"}},
                    "required": ["text"],
                    "additionalProperties": False,
                },
            },
        }
    ]


def test_function_tool_name_overrides_the_function_name() -> None:
    tool = FunctionTool(fc_repeat, name="repeat_text")
    assert tool.name == "repeat_text"
    assert tool.description["name"] == "repeat_text"
    assert ActionExecutor([tool])("repeat_text", '{"text": "a"}').result == [
        {"type": "text", "content": "aa"}
    ]


def test_things_that_are_neither_actions_nor_functions_are_refused_together() -> None:
    with pytest.raises(ToolDefinitionError) as info:
        ActionExecutor([FcCalc, 3])
    assert str(info.value) == (
        "ActionExecutor: 2 problems:\n"
        "  - actions[0] is the class FcCalc; pass an instance, e.g. FcCalc()\n"
        "  - actions[1] is int 3, expected a BaseAction instance or a function"
    )


def test_a_function_and_an_action_with_the_same_name_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match=re.escape("several actions are named ['fc_repeat']")):
        ActionExecutor([fc_repeat, FunctionTool(fc_halve, name="fc_repeat")])


# --- run_tool_calls ------------------------------------------------------------------


def make_executor() -> ActionExecutor:
    return ActionExecutor([FcCalc(), FcEcho(), fc_repeat, fc_halve])


def test_run_tool_calls_keeps_order_and_ids() -> None:
    calls = [
        {"id": "call_3", "type": "function", "function": {"name": "FcEcho", "arguments": '{"text": "c"}'}},
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "FcCalc__add", "arguments": '{"a": 1, "b": 2}'},
        },
        {"id": "call_2", "type": "function", "function": {"name": "fc_halve", "arguments": '{"x": 5}'}},
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": "FcCalc.div", "arguments": '{"a": 1, "b": 4}'},
        },
    ]
    assert make_executor().run_tool_calls(calls) == [
        {"role": "tool", "tool_call_id": "call_3", "content": "c"},
        {"role": "tool", "tool_call_id": "call_1", "content": "3"},
        {"role": "tool", "tool_call_id": "call_2", "content": "2.5"},
        {"role": "tool", "tool_call_id": "call_0", "content": "0.25"},
    ]


@pytest.mark.parametrize(
    ("arguments", "content"),
    [
        pytest.param('{"text": "ab"}', "abab", id="json-string"),
        pytest.param({"text": "ab"}, "abab", id="dict"),
        pytest.param({"text": "ab", "times": "3"}, "ababab", id="dict-coerced"),
        pytest.param("", "fc_repeat: 'text' is required", id="empty-string"),
        pytest.param("   ", "fc_repeat: 'text' is required", id="blank-string"),
        pytest.param(None, "fc_repeat: 'text' is required", id="null"),
    ],
)
def test_run_tool_calls_arguments_forms(arguments: Any, content: str) -> None:
    calls = [{"id": "c", "type": "function", "function": {"name": "fc_repeat", "arguments": arguments}}]
    assert make_executor().run_tool_calls(calls) == [
        {"role": "tool", "tool_call_id": "c", "content": content}
    ]


def test_run_tool_calls_empty_arguments_for_a_tool_without_parameters() -> None:
    executor = ActionExecutor([_named("ping")])
    calls = [{"id": "p", "type": "function", "function": {"name": "ping", "arguments": ""}}]
    assert executor.run_tool_calls(calls) == [{"role": "tool", "tool_call_id": "p", "content": "ping"}]


def test_run_tool_calls_errors_become_the_error_message() -> None:
    calls = [
        {"id": "bad-args", "type": "function", "function": {"name": "FcCalc.add", "arguments": '{"a": "x"}'}},
        {
            "id": "raises",
            "type": "function",
            "function": {"name": "FcCalc__div", "arguments": '{"a": 1, "b": 0}'},
        },
        {"id": "unknown", "type": "function", "function": {"name": "FcNope", "arguments": "{}"}},
        {"id": "bad-json", "type": "function", "function": {"name": "FcEcho", "arguments": "[1, 2]"}},
        {"id": "no-api", "type": "function", "function": {"name": "FcCalc.mul", "arguments": "{}"}},
    ]
    assert make_executor().run_tool_calls(calls) == [
        {
            "role": "tool",
            "tool_call_id": "bad-args",
            # Native calls were given the aliases: every message names those.
            "content": "FcCalc__add: 'a' expected integer, got string 'x'; 'b' is required",
        },
        {"role": "tool", "tool_call_id": "raises", "content": "ZeroDivisionError: division by zero"},
        {
            "role": "tool",
            "tool_call_id": "unknown",
            # Native calls were given the aliases: the message names those.
            "content": "Unknown tool 'FcNope'. Available tools: FcCalc__add, FcCalc__div, FcEcho, fc_repeat, "
            "fc_halve.",
        },
        {
            "role": "tool",
            "tool_call_id": "bad-json",
            "content": 'FcEcho: expected a JSON object such as {"text": <STRING>}, got list [1, 2]',
        },
        {
            "role": "tool",
            "tool_call_id": "no-api",
            "content": "FcCalc has no API 'mul'. Call one of: FcCalc__add, FcCalc__div",
        },
    ]


def test_run_tool_calls_without_a_function_name_answer_with_an_error() -> None:
    calls: list[Any] = [
        {"id": "a", "type": "function", "function": {"arguments": "{}"}},
        {"id": "b", "type": "function"},
        {"id": "c", "type": "function", "function": {"name": 42, "arguments": "{}"}},
        types.SimpleNamespace(id="d", type="function"),
        {"id": "e", "type": "function", "function": {"name": "FcEcho", "arguments": '{"text": "ok"}'}},
    ]
    messages = make_executor().run_tool_calls(calls)
    assert [m["tool_call_id"] for m in messages] == ["a", "b", "c", "d", "e"]
    assert [m["content"] for m in messages] == [
        f"tool call {i} has no function name; send {{'function': {{'name': ..., 'arguments': ...}}}}"
        for i in range(4)
    ] + ["ok"]


def test_run_tool_calls_reads_objects_with_attributes() -> None:
    calls = [
        types.SimpleNamespace(
            id="obj_1",
            type="function",
            function=types.SimpleNamespace(name="FcCalc__add", arguments='{"a": 2, "b": 3}'),
        ),
        types.SimpleNamespace(
            id="obj_2",
            type="function",
            function=types.SimpleNamespace(name="fc_repeat", arguments={"text": "z"}),
        ),
        {
            "id": "dict_3",
            "type": "function",
            "function": types.SimpleNamespace(name="FcEcho", arguments='{"text": "m"}'),
        },
    ]
    assert make_executor().run_tool_calls(calls) == [
        {"role": "tool", "tool_call_id": "obj_1", "content": "5"},
        {"role": "tool", "tool_call_id": "obj_2", "content": "zz"},
        {"role": "tool", "tool_call_id": "dict_3", "content": "m"},
    ]


def test_run_tool_calls_of_an_empty_list() -> None:
    assert make_executor().run_tool_calls([]) == []


def test_run_tool_calls_round_trip_from_the_openai_export() -> None:
    executor = make_executor()
    names = [tool["function"]["name"] for tool in executor.to_openai_tools()]
    assert names == ["FcCalc__add", "FcCalc__div", "FcEcho", "fc_repeat", "fc_halve"]
    arguments = [
        '{"a": 1, "b": 1}',
        '{"a": 9, "b": 3}',
        '{"text": "t"}',
        '{"text": "r", "times": 1}',
        '{"x": 1}',
    ]
    calls = [
        {"id": f"id{i}", "type": "function", "function": {"name": n, "arguments": a}}
        for i, (n, a) in enumerate(zip(names, arguments))
    ]
    assert [m["content"] for m in executor.run_tool_calls(calls)] == ["2", "3.0", "t", "r", "0.5"]
