"""Provider dialects from one schema: OpenAI strict mode, Gemini, and tool calls of every provider."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

import pytest

from lagent_like import ActionExecutor, AsyncActionExecutor, BaseAction, tool_api
from lagent_like.cli.lint import lint_action


@dataclass
class DialectPoint:
    x: int
    y: int = 0


class DialectRich(BaseAction):
    @tool_api
    def literal(
        self,
        mode: Literal["a", "b"],
        n: int = 3,
        tags: Optional[list[str]] = None,
        p: Optional[DialectPoint] = None,
        u: Union[int, str] = 1,
        f: float = 0.5,
    ) -> str:
        """Use many kinds of parameters.

        Args:
            mode: the mode
            n: a count
            tags: labels
            p: a point
            u: a number or a name
            f: a ratio
        """
        return f"{mode} {n} {tags} {p} {u} {f}"

    @tool_api
    def mapping(self, m: dict[str, int], a: Any = None) -> str:
        """Take a free-form mapping.

        Args:
            m: counts by name
            a: anything
        """
        return json.dumps(m)

    @tool_api
    def nothing(self) -> str:
        """Take no argument."""
        return "done"


RICH = ActionExecutor([DialectRich()])


def _objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema inside ``schema``."""
    found = []
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            found.append(schema)
        for value in schema.values():
            found.extend(_objects(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_objects(value))
    return found


def _keys(schema: Any) -> set[str]:
    keys: set[str] = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key != "properties":
                keys.add(key)
            keys |= _keys(value) if key != "properties" else set().union(*map(_keys, value.values()))
    elif isinstance(schema, list):
        for value in schema:
            keys |= _keys(value)
    return keys


def test_strict_export_follows_openai_strict_rules_on_a_rich_toolkit() -> None:
    tools = {t["function"]["name"]: t["function"] for t in RICH.to_openai_tools(strict=True)}
    assert {name: f["strict"] for name, f in tools.items()} == {
        "DialectRich__literal": True,
        "DialectRich__mapping": False,
        "DialectRich__nothing": True,
    }
    for name in ("DialectRich__literal", "DialectRich__nothing"):
        parameters = tools[name]["parameters"]
        assert parameters["type"] == "object"
        for obj in _objects(parameters):
            assert obj["additionalProperties"] is False, (name, obj)
            assert obj["required"] == list(obj["properties"]), (name, obj)
        assert not _keys(parameters) & {"default", "allOf", "not", "oneOf", "minLength", "uniqueItems"}
    literal = tools["DialectRich__literal"]["parameters"]["properties"]
    assert literal["mode"] == {"type": "string", "enum": ["a", "b"], "description": "the mode"}
    assert literal["n"] == {"type": ["integer", "null"], "description": "a count"}
    assert literal["u"] == {"type": ["integer", "string", "null"], "description": "a number or a name"}
    assert literal["p"]["anyOf"][0]["properties"]["y"] == {"type": ["integer", "null"]}
    # The tool strict mode cannot express is exported as it is, not strict.
    assert tools["DialectRich__mapping"]["parameters"] == RICH.json_schema("DialectRich.mapping")


def test_strict_export_leaves_the_plain_export_alone() -> None:
    plain = RICH.to_openai_tools()
    assert all("strict" not in t["function"] for t in plain)
    assert plain[0]["function"]["parameters"]["properties"]["n"] == {
        "type": "integer",
        "description": "a count",
        "default": 3,
    }


@pytest.mark.parametrize(
    ("arguments", "result"),
    [
        pytest.param(
            {"mode": "a", "n": None, "tags": None, "p": None, "u": None, "f": None},
            "a 3 None None 1 0.5",
            id="top-level-nulls-take-the-defaults",
        ),
        pytest.param(
            {"mode": "b", "n": 7, "tags": ["x"], "p": {"x": 1, "y": None}, "u": "k", "f": 2.0},
            "b 7 ['x'] DialectPoint(x=1, y=0) k 2.0",
            id="nested-null-takes-the-field-default",
        ),
    ],
)
def test_a_null_from_strict_mode_means_the_python_default(arguments: dict[str, Any], result: str) -> None:
    ret = RICH("DialectRich__literal", json.dumps(arguments))
    assert (ret.errmsg, ret.format_result()) == (None, result)


def test_a_null_for_a_required_parameter_is_still_refused() -> None:
    ret = RICH("DialectRich__literal", '{"mode": null}')
    assert ret.errmsg == "DialectRich.literal: 'mode' expected one of ['a', 'b'], got null"


def test_gemini_export_uses_the_subset_gemini_accepts() -> None:
    [tool] = RICH.to_gemini_tools()
    declarations = {d["name"]: d for d in tool["functionDeclarations"]}
    assert "parameters" not in declarations["DialectRich__nothing"]
    literal = declarations["DialectRich__literal"]["parameters"]
    assert literal == {
        "type": "OBJECT",
        "properties": {
            "mode": {"type": "STRING", "enum": ["a", "b"], "description": "the mode"},
            "n": {"type": "INTEGER", "description": "a count"},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "labels", "nullable": True},
            "p": {
                "type": "OBJECT",
                "title": "DialectPoint",
                "properties": {"x": {"type": "INTEGER"}, "y": {"type": "INTEGER"}},
                "propertyOrdering": ["x", "y"],
                "required": ["x"],
                "description": "a point",
                "nullable": True,
            },
            "u": {
                "anyOf": [
                    {"type": "INTEGER", "description": "a number or a name"},
                    {"type": "STRING", "description": "a number or a name"},
                ]
            },
            "f": {"type": "NUMBER", "description": "a ratio"},
        },
        "propertyOrdering": ["mode", "n", "tags", "p", "u", "f"],
        "required": ["mode"],
    }
    for declaration in declarations.values():
        keys = _keys(declaration.get("parameters", {}))
        assert not keys & {"default", "additionalProperties", "$ref", "$defs", "const", "oneOf"}


def test_gemini_export_inlines_references_and_drops_what_it_cannot_say() -> None:
    from lagent_like.function_calling._dialects import to_gemini_schema

    schema = {
        "type": "object",
        "properties": {
            "where": {"$ref": "#/$defs/Place"},
            "level": {"enum": [1, 2, 3], "description": "how loud"},
            "tag": {"const": "x"},
            "ratio": {"type": "number", "exclusiveMinimum": 0},
        },
        "required": ["where"],
        "$defs": {"Place": {"type": "object", "properties": {"city": {"type": ["string", "null"]}}}},
    }
    converted = to_gemini_schema(schema)
    assert converted.schema is not None
    assert converted.schema["properties"] == {
        "where": {
            "type": "OBJECT",
            "properties": {"city": {"type": "STRING", "nullable": True}},
            "propertyOrdering": ["city"],
        },
        "level": {"type": "INTEGER", "description": "how loud (one of 1, 2, 3)"},
        "tag": {"enum": ["x"], "type": "STRING"},
        "ratio": {"type": "NUMBER"},
    }
    assert converted.dropped == ["a non-string enum at level", "'exclusiveMinimum' at ratio"]
    assert converted.refused == []


def test_lint_says_why_each_provider_would_refuse_a_tool() -> None:
    findings = {
        (f.api, f.code): f.message
        for f in lint_action(DialectRich())
        if f.code in ("openai-strict", "gemini")
    }
    assert findings == {
        ("DialectRich.mapping", "openai-strict"): (
            "OpenAI strict mode would refuse this API: the object at m takes arbitrary keys "
            "(additionalProperties), which OpenAI strict mode cannot express; the value at a may be of any "
            "type, which OpenAI strict mode cannot express; to_openai_tools(strict=True) exports it with "
            "strict: false"
        ),
        ("DialectRich.mapping", "gemini"): (
            "Gemini would refuse this API: the object at m takes arbitrary keys (additionalProperties), "
            "which Gemini cannot express; the value at a may be of any type, which Gemini cannot express"
        ),
    }
    assert all(
        f.severity == "warning" for f in lint_action(DialectRich()) if f.code in ("openai-strict", "gemini")
    )


def dialect_hello(name: str, loud: bool = False) -> str:
    """Greet someone.

    Args:
        name: who
        loud: shout
    """
    return f"HELLO {name.upper()}" if loud else f"hello {name}"


HELLO = ActionExecutor([dialect_hello])

ANTHROPIC_CONTENT = [
    {"type": "thinking", "thinking": "greet", "signature": "s"},
    {"type": "text", "text": "Let me greet."},
    {"type": "tool_use", "id": "toolu_1", "name": "dialect_hello", "input": {"name": "Ada"}},
    {"type": "tool_use", "id": "toolu_2", "name": "dialect_hello", "input": {"loud": "maybe"}},
    {"type": "tool_use", "id": "toolu_3", "name": "dialect_helo", "input": {}},
]
ANTHROPIC_RESULTS = [
    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello Ada", "is_error": False},
    {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": "dialect_hello: 'name' is required; 'loud' expected boolean, got string 'maybe'",
        "is_error": True,
    },
    {
        "type": "tool_result",
        "tool_use_id": "toolu_3",
        "content": "Unknown tool 'dialect_helo'. Did you mean 'dialect_hello'? Available tools: dialect_hello.",
        "is_error": True,
    },
]


def test_run_tool_calls_answers_anthropic_tool_use_blocks_with_tool_results() -> None:
    assert HELLO.run_tool_calls(ANTHROPIC_CONTENT) == ANTHROPIC_RESULTS


def test_async_run_tool_calls_answers_anthropic_blocks_too() -> None:
    executor = AsyncActionExecutor([dialect_hello])
    assert asyncio.run(executor.run_tool_calls(ANTHROPIC_CONTENT)) == ANTHROPIC_RESULTS


@pytest.mark.parametrize(
    ("call", "result"),
    [
        pytest.param(
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "dialect_hello",
                "arguments": '{"name": "Bo"}',
            },
            {"type": "function_call_output", "call_id": "c1", "output": "hello Bo"},
            id="responses-function-call",
        ),
        pytest.param(
            {"type": "tool_use", "id": "t9", "input": {}},
            {
                "type": "tool_result",
                "tool_use_id": "t9",
                "content": "tool call 0 has no name; send {'type': 'tool_use', 'id': ..., 'name': ..., 'input': {...}}",
                "is_error": True,
            },
            id="anthropic-without-name",
        ),
        pytest.param(
            {"functionCall": {"id": "g1", "name": "dialect_hello", "args": {"name": "Gi"}}},
            {"functionResponse": {"name": "dialect_hello", "response": {"result": "hello Gi"}, "id": "g1"}},
            id="gemini-function-call",
        ),
        pytest.param(
            {"functionCall": {"name": "dialect_hello", "args": {}}},
            {
                "functionResponse": {
                    "name": "dialect_hello",
                    "response": {"error": "dialect_hello: 'name' is required"},
                }
            },
            id="gemini-failed-call",
        ),
        pytest.param(
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "dialect_hello", "arguments": '{"name": "Cy"}'},
            },
            {"role": "tool", "tool_call_id": "c2", "content": "hello Cy"},
            id="openai-chat",
        ),
    ],
)
def test_run_tool_calls_answers_each_provider_in_its_shape(
    call: dict[str, Any], result: dict[str, Any]
) -> None:
    assert HELLO.run_tool_calls([call]) == [result]


def test_run_tool_calls_skips_gemini_text_parts() -> None:
    parts = [{"text": "Greeting."}, {"functionCall": {"name": "dialect_hello", "args": {"name": "Ed"}}}]
    assert HELLO.run_tool_calls(parts) == [
        {"functionResponse": {"name": "dialect_hello", "response": {"result": "hello Ed"}}}
    ]


def test_run_tool_calls_takes_openai_sdk_objects() -> None:
    chat = pytest.importorskip(
        "openai.types.chat", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    responses = pytest.importorskip(
        "openai.types.responses",
        reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')",
    )
    call = chat.ChatCompletionMessageToolCall.model_validate(
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "dialect_hello", "arguments": '{"name": "Di"}'},
        }
    )
    item = responses.ResponseFunctionToolCall.model_validate(
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "dialect_hello",
            "arguments": '{"loud": true, "name": "e"}',
        }
    )
    assert HELLO.run_tool_calls([call, item]) == [
        {"role": "tool", "tool_call_id": "call_1", "content": "hello Di"},
        {"type": "function_call_output", "call_id": "call_2", "output": "HELLO E"},
    ]


def test_run_tool_calls_takes_an_anthropic_sdk_message_content() -> None:
    types = pytest.importorskip(
        "anthropic.types", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    message = types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": ANTHROPIC_CONTENT,
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    results = HELLO.run_tool_calls(message.content)
    assert results == ANTHROPIC_RESULTS
    # The results are what the SDK takes back as the next user turn.
    from pydantic import TypeAdapter

    for result in results:
        TypeAdapter(types.ToolResultBlockParam).validate_python(result)


def test_exports_validate_against_the_sdks_typed_parameters() -> None:
    pytest.importorskip(
        "openai", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    pytest.importorskip(
        "anthropic", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionToolParam
    from pydantic import TypeAdapter

    openai_tool = TypeAdapter(ChatCompletionToolParam)
    for tool in RICH.to_openai_tools() + RICH.to_openai_tools(strict=True):
        assert openai_tool.validate_python(tool) == tool
    anthropic_tool = TypeAdapter(ToolParam)
    for tool in RICH.to_anthropic_tools():
        anthropic_tool.validate_python(tool)


def test_exports_are_cached_copies() -> None:
    first = RICH.to_gemini_tools()
    first[0]["functionDeclarations"].clear()
    assert len(RICH.to_gemini_tools()[0]["functionDeclarations"]) == 3
    strict = RICH.to_openai_tools(strict=True)
    strict[0]["function"]["strict"] = "changed"  # the top two levels are the caller's
    # Deeper, the schema is shared by every export and read-only (issue 25: no copy per call).
    with pytest.raises(TypeError, match=r"read-only; edit a copy made with copy\.deepcopy\(\)"):
        strict[0]["function"]["parameters"]["properties"].clear()
    assert RICH.to_openai_tools(strict=True)[0]["function"]["strict"] is True
    assert RICH.to_openai_tools(strict=True)[0]["function"]["parameters"]["properties"]


@pytest.mark.parametrize(
    ("native", "message"),
    [
        pytest.param(
            True,
            "Unknown tool 'DialectRich__literl'. Did you mean 'DialectRich__literal' or 'DialectRich__nothing' "
            "or 'DialectRich__mapping'? Available tools: DialectRich__literal, DialectRich__mapping, "
            "DialectRich__nothing.",
            id="native-names-the-aliases",
        ),
        pytest.param(
            False,
            "Unknown tool 'DialectRich__literl'. Did you mean 'DialectRich.literal' or 'DialectRich.nothing' "
            "or 'DialectRich.mapping'? Available tools: DialectRich.literal, DialectRich.mapping, "
            "DialectRich.nothing.",
            id="prompt-names-the-dotted-names",
        ),
    ],
)
def test_unknown_tool_messages_name_what_the_model_saw(native: bool, message: str) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "DialectRich__literl", "arguments": "{}"}}
    if native:
        [result] = RICH.run_tool_calls([call])
        assert result["content"] == message
    else:
        assert RICH("DialectRich__literl", "{}").errmsg == message


def test_async_and_anthropic_calls_are_native_too() -> None:
    executor = AsyncActionExecutor([DialectRich()])
    block = {"type": "tool_use", "id": "t", "name": "DialectRich_nothing", "input": {}}
    [result] = asyncio.run(executor.run_tool_calls([block]))
    assert result["content"] == (
        "Unknown tool 'DialectRich_nothing'. Did you mean 'DialectRich__nothing' or 'DialectRich__mapping' or "
        "'DialectRich__literal'? Available tools: DialectRich__literal, DialectRich__mapping, DialectRich__nothing."
    )
    assert result["is_error"] is True


def test_the_suggestion_cache_does_not_keep_long_unknown_names() -> None:
    from lagent_like._private.text import _close_matches

    _close_matches.cache_clear()
    names = [f"{i:03d}" + "x" * 1_000_000 for i in range(60)]
    for name in names:
        ret = RICH(name, "{}")
        assert ret.errmsg == (
            f"Unknown tool '{name[:116]}.... Available tools: DialectRich.literal, DialectRich.mapping, "
            "DialectRich.nothing."
        )
    assert _close_matches.cache_info().currsize == 0
    # Short names are still remembered: a model repeats its wrong names.
    RICH("DialectRich.literl", "{}")
    RICH("DialectRich.literl", "{}")
    assert _close_matches.cache_info().hits >= 1
