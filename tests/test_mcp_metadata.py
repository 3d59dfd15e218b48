"""MCP in full: titles, annotations, output schemas and structured content, kept end to end.

Tools declare ``title``/``annotations`` with ``@tool_api`` and get an ``outputSchema``
from an object return annotation; the server serves them with structured content,
and ``MCPToolkit`` keeps all of it when it serves another server's tools again.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio
import mcp_tools
from mcp import Client

from lagent_like import ActionExecutor, ActionStatusCode, BaseAction, ToolDefinitionError, tool_api
from lagent_like.mcp import MCPToolkit, build_mcp_server

TESTS = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
LIMIT = 30
EMPTY_INPUT = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}

SHAPES_TOOLS = [
    {
        "name": "McpShapes__area",
        "title": "Rectangle area",
        "description": "The area of a rectangle.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "width": {"type": "number", "description": "the width in metres"},
                "height": {"type": "number", "description": "the height in metres"},
            },
            "required": ["width", "height"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True, "idempotentHint": True},
        "outputSchema": {
            "type": "object",
            "title": "Area",
            "properties": {"value": {"type": "number"}, "unit": {"type": "string"}},
            "required": ["value", "unit"],
            "additionalProperties": False,
        },
    },
    {
        "name": "McpShapes__box",
        "description": "A square box.",
        "inputSchema": {
            "type": "object",
            "properties": {"side": {"type": "number", "description": "the side in metres"}},
            "required": ["side"],
            "additionalProperties": False,
        },
        "annotations": {"destructiveHint": False, "openWorldHint": False},
        "outputSchema": {
            "type": "object",
            "title": "Box",
            "properties": {"width": {"type": "number"}, "height": {"type": "number"}},
            "required": ["width", "height"],
            "additionalProperties": False,
        },
    },
    {
        "name": "McpShapes__label",
        "description": "A plain label.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "the label"}},
            "required": ["text"],
            "additionalProperties": False,
        },
    },
]


def test_tools_export_title_annotations_and_output_schema() -> None:
    assert ActionExecutor([mcp_tools.McpShapes()]).to_mcp_tools() == SHAPES_TOOLS


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("McpShapes__area", {"width": 2, "height": 3}),
    ("McpShapes__box", {"side": 1.5}),
    ("McpShapes__label", {"text": "hi"}),
]
#: (is_error, text, structured content) of each of CALLS.
ANSWERS = [
    (False, '{"value": 6.0, "unit": "m2"}', {"value": 6.0, "unit": "m2"}),
    (False, '{"width": 1.5, "height": 1.5}', {"width": 1.5, "height": 1.5}),
    (False, "hi", None),
]


def _serve_and_call(
    executor: ActionExecutor, prefix: str = ""
) -> tuple[list[dict[str, Any]], list[tuple[bool, str, Any]]]:
    """What the SDK's client lists and gets (it checks results against the output schemas)."""

    async def session() -> tuple[list[dict[str, Any]], list[tuple[bool, str, Any]]]:
        with anyio.fail_after(LIMIT):
            async with Client(build_mcp_server(executor), mode="legacy") as client:
                listed = [
                    t.model_dump(by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools
                ]
                answers = []
                for name, arguments in CALLS:
                    result = await client.call_tool(prefix + name, arguments)
                    text = "\n".join(getattr(block, "text", "") for block in result.content)
                    answers.append((bool(result.is_error), text, result.structured_content))
        return listed, answers

    return anyio.run(session)


def test_server_serves_metadata_and_structured_content() -> None:
    listed, answers = _serve_and_call(ActionExecutor([mcp_tools.McpShapes()]))
    assert (listed, answers) == (SHAPES_TOOLS, ANSWERS)


def test_toolkit_keeps_metadata_and_structured_content_when_serving_again() -> None:
    command = ["-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", "McpShapes"]
    with MCPToolkit(sys.executable, command, env=ENV, name="Remote", timeout=LIMIT) as toolkit:
        area = ActionExecutor([toolkit])("Remote.McpShapes__area", '{"width": 2, "height": 3}')
        extras = toolkit.mcp_extras("McpShapes__area")
        listed, answers = _serve_and_call(ActionExecutor([toolkit]), "Remote__")
    assert (area.state, area.format_result()) == (ActionStatusCode.SUCCESS, '{"value": 6.0, "unit": "m2"}')
    assert extras == {k: SHAPES_TOOLS[0][k] for k in ("title", "annotations", "outputSchema")}
    renamed = [{**tool, "name": f"Remote__{tool['name']}"} for tool in SHAPES_TOOLS]
    assert listed == renamed
    assert answers == ANSWERS


def test_toolkit_keeps_an_sdk_server_s_metadata(tmp_path: Path) -> None:
    server = [str(TESTS / "mcp_sdk_server.py"), str(tmp_path / "generation")]
    with MCPToolkit(sys.executable, server, name="Odd", include=["count"], timeout=LIMIT) as toolkit:
        exported = ActionExecutor([toolkit]).to_mcp_tools()
    assert exported == [
        {
            "name": "Odd__count",
            "title": "Word counter",
            "description": "Count the words of a text.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"words": {"type": "integer"}},
                "required": ["words"],
            },
            "annotations": {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
        }
    ]


class Promise(BaseAction):
    """A tool whose result breaks its own promise."""

    @tool_api
    def odd(self, parser_text: str) -> dict:  # type: ignore[type-arg]
        """Claim an object, return text.

        Args:
            parser_text: anything
        """
        return parser_text  # type: ignore[return-value]


def test_server_refuses_a_result_that_is_not_the_promised_object() -> None:
    async def call() -> Any:
        with anyio.fail_after(LIMIT):
            async with Client(build_mcp_server(ActionExecutor([Promise()]))) as client:
                return await client.call_tool("Promise__odd", {"parser_text": "plain"})

    result = anyio.run(call)
    assert (result.is_error, result.content[0].text, result.structured_content) == (
        True,
        "Promise declares an object result (its outputSchema), but its result is not a JSON object: 'plain'",
        None,
    )


@dataclasses.dataclass
class Reading:
    """A reading."""

    sensor: str
    value: float


class Sensor(BaseAction):
    """A sensor."""

    def run(self) -> Reading:
        """Read the sensor."""
        return Reading("t1", 21.5)


def test_a_dataclass_result_is_json_text() -> None:
    ret = ActionExecutor([Sensor()])("Sensor", "{}")
    assert ret.format_result() == '{"sensor": "t1", "value": 21.5}'


@pytest.mark.parametrize(
    ("options", "problems"),
    [
        pytest.param({"title": ""}, ["title must be a non-empty string, got ''"], id="empty-title"),
        pytest.param(
            {"annotations": {"readonly": True, "destructiveHint": "yes"}},
            [
                "annotations: 'readonly' is not an MCP hint; use readOnlyHint, destructiveHint, "
                "idempotentHint, openWorldHint",
                "annotations: 'destructiveHint' must be True or False, got 'yes'",
            ],
            id="bad-hints",
        ),
        pytest.param(
            {"annotations": ["readOnlyHint"]},
            ["annotations must be a mapping of MCP hints to booleans, got ['readOnlyHint']"],
            id="not-a-mapping",
        ),
    ],
)
def test_tool_api_refuses_bad_mcp_options(options: dict[str, Any], problems: list[str]) -> None:
    with pytest.raises(ToolDefinitionError) as caught:

        @tool_api(**options)  # type: ignore[untyped-decorator]
        def lookup(key: str) -> str:
            """Look up a key.

            Args:
                key: the key
            """
            return key

    assert (caught.value.owner, caught.value.problems) == (
        "test_tool_api_refuses_bad_mcp_options.<locals>.lookup",
        problems,
    )
    assert re.match(r"test_tool_api_refuses", str(caught.value))


def test_structured_content_is_whole_when_the_text_is_capped() -> None:
    executor = ActionExecutor([mcp_tools.McpShapes()], max_output_chars=10)

    async def call() -> Any:
        with anyio.fail_after(LIMIT):
            async with Client(build_mcp_server(executor)) as client:
                return await client.call_tool("McpShapes__area", {"width": 2, "height": 3})

    result = anyio.run(call)
    assert (result.is_error, result.structured_content) == (False, {"value": 6.0, "unit": "m2"})
    assert (
        getattr(result.content[0], "text", "")
        == '{"val\n... [18 characters cut; the full output is kept] ...\n"m2"}'
    )
