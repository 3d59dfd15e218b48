"""Standard-library value classes as parameters: what the exports and Lagent's description say.

The old code exported a ``datetime`` (``date``, ``UUID``, ``Path``...) parameter with no
type at all (any value), though every value was refused; now each is described by its
JSON form, as pydantic describes it.
"""

from __future__ import annotations

import datetime
import decimal
import pathlib
import uuid
from typing import Any, Optional

import pytest
from _annotated import tool_of

from lagent_like import ActionExecutor
from lagent_like.lint import lint_action

#: Each class, its exported fragment, its Gemini fragment (Gemini keeps only 'date-time');
#: ``bytes`` was exported as a string already.
CLASSES = [
    pytest.param(datetime.datetime, {"type": "string", "format": "date-time"},
                 {"type": "STRING", "format": "date-time"}, id="datetime"),
    pytest.param(datetime.date, {"type": "string", "format": "date"}, {"type": "STRING"}, id="date"),
    pytest.param(datetime.time, {"type": "string", "format": "time"}, {"type": "STRING"}, id="time"),
    pytest.param(datetime.timedelta, {"type": "string", "format": "duration"}, {"type": "STRING"}, id="timedelta"),
    pytest.param(decimal.Decimal, {"type": ["number", "string"]},
                 {"anyOf": [{"type": "NUMBER", "description": "the value."},
                            {"type": "STRING", "description": "the value."}]}, id="decimal"),
    pytest.param(uuid.UUID, {"type": "string", "format": "uuid"}, {"type": "STRING"}, id="uuid"),
    pytest.param(pathlib.Path, {"type": "string", "format": "path"}, {"type": "STRING"}, id="path"),
]  # fmt: skip


def gemini_property(fragment: dict[str, Any]) -> dict[str, Any]:
    return fragment if "anyOf" in fragment else {**fragment, "description": "the value."}


@pytest.mark.parametrize(("annotation", "fragment", "gemini"), CLASSES)
def test_exports_describe_a_value_class_by_its_json_form(
    annotation: Any, fragment: dict[str, Any], gemini: dict[str, Any]
) -> None:
    executor = ActionExecutor([tool_of(annotation)])
    expected = {**fragment, "description": "the value."}
    assert executor.to_openai_tools()[0]["function"]["parameters"]["properties"]["v"] == expected
    assert executor.to_anthropic_tools()[0]["input_schema"]["properties"]["v"] == expected
    assert executor.to_mcp_tools()[0]["inputSchema"]["properties"]["v"] == expected
    declaration = executor.to_gemini_tools()[0]["functionDeclarations"][0]
    assert declaration["parameters"]["properties"]["v"] == gemini_property(gemini)
    # Lagent's own tool_api reads str(annotation) for a type word: STRING for each of them.
    parameter = executor.get_actions_info()[0]["parameters"][0]
    assert parameter == {"name": "v", "type": "STRING", "description": "the value."}


@pytest.mark.parametrize(
    ("annotation", "fragment"),
    [
        pytest.param(datetime.datetime, {"type": "string", "format": "date-time"}, id="datetime"),
        pytest.param(datetime.timedelta, {"type": "string", "format": "duration"}, id="timedelta"),
        pytest.param(uuid.UUID, {"type": "string", "format": "uuid"}, id="uuid"),
        pytest.param(decimal.Decimal, {"type": ["number", "string"]}, id="decimal"),
        pytest.param(pathlib.Path, {"type": "string"}, id="path-format-left-out"),
    ],
)
def test_openai_strict_mode_takes_value_classes(annotation: Any, fragment: dict[str, Any]) -> None:
    function = ActionExecutor([tool_of(annotation)]).to_openai_tools(strict=True)[0]["function"]
    assert function["strict"] is True
    assert function["parameters"]["properties"]["v"] == {**fragment, "description": "the value."}


@pytest.mark.parametrize(
    ("annotation", "fragment"),
    [
        pytest.param(
            list[datetime.datetime], {"type": "array", "items": {"type": "string", "format": "date-time"}},
            id="list",
        ),
        pytest.param(
            Optional[datetime.date], {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
            id="optional",
        ),
        pytest.param(
            dict[str, uuid.UUID],
            {"type": "object", "additionalProperties": {"type": "string", "format": "uuid"}}, id="dict",
        ),
        pytest.param(Optional[decimal.Decimal], {"type": ["number", "string", "null"]}, id="optional-decimal"),
    ],
)  # fmt: skip
def test_value_classes_are_described_inside_other_types(annotation: Any, fragment: dict[str, Any]) -> None:
    properties = ActionExecutor([tool_of(annotation)]).to_openai_tools()[0]["function"]["parameters"][
        "properties"
    ]
    assert properties["v"] == {**fragment, "description": "the value."}


def gemini_drops(word: str) -> tuple[str, str]:
    return (
        "gemini",
        f"Gemini does not accept format {word!r} at v; to_gemini_tools() leaves them out and the executor "
        f"still checks them",
    )


@pytest.mark.parametrize(
    ("annotation", "findings"),
    [
        pytest.param(datetime.datetime, [], id="datetime"),
        pytest.param(datetime.date, [gemini_drops("date")], id="date"),
        pytest.param(datetime.time, [gemini_drops("time")], id="time"),
        pytest.param(datetime.timedelta, [gemini_drops("duration")], id="timedelta"),
        pytest.param(decimal.Decimal, [], id="decimal"),
        pytest.param(uuid.UUID, [gemini_drops("uuid")], id="uuid"),
        pytest.param(
            pathlib.Path,
            [
                (
                    "openai-strict",
                    "OpenAI strict mode does not accept format 'path' at v; the strict export leaves them out "
                    "and the executor still checks them",
                ),
                gemini_drops("path"),
            ],
            id="path",
        ),
    ],
)
def test_lint_no_longer_says_a_value_class_may_be_of_any_type(
    annotation: Any, findings: list[tuple[str, str]]
) -> None:
    # The old code: "the value at v may be of any type, which OpenAI strict mode cannot express".
    found = [(f.code, f.message) for f in lint_action(tool_of(annotation)) if f.code != "size"]
    assert found == findings
