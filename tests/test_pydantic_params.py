"""Pydantic models as parameter types: described by their schema everywhere, checked by their own validator."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Optional

import pytest

from lagent_like.types._families import Refusal

pydantic = pytest.importorskip(
    "pydantic", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
)
from pydantic import BaseModel, ConfigDict, Field  # noqa: E402
from pydantic.dataclasses import dataclass as pydantic_dataclass  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402

from lagent_like import (  # noqa: E402
    ActionExecutor,
    ActionStatusCode,
    ArgumentError,
    BaseAction,
    ToolDefinitionError,
    tool_api,
)
from lagent_like.agents.prompts import render_tool_descriptions  # noqa: E402

SUCCESS, ARGS_ERROR = ActionStatusCode.SUCCESS, ActionStatusCode.ARGS_ERROR


class PdGeo(BaseModel):
    lat: float
    lon: float


class PdAddr(BaseModel):
    """A postal address."""

    street: str = Field(description="street and number")
    zip: int
    geo: Optional[PdGeo] = None


class PdNode(BaseModel):
    value: int
    children: list[PdNode] = []


class PdStrict(BaseModel):
    model_config = ConfigDict(strict=True)

    n: int


class PdKit(BaseAction):
    """Shipping."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[dict[str, Any]] = []

    @tool_api
    def ship(self, addr: PdAddr, copies: Optional[list[PdAddr]] = None, note: Optional[PdGeo] = None) -> str:
        """Ship a parcel.

        Args:
            addr: where to
            copies: where copies go
            note: a point to mark
        """
        self.calls.append({"addr": addr, "copies": copies, "note": note})
        return "shipped"

    @tool_api
    def walk(self, root: PdNode) -> int:
        """Sum a tree.

        Args:
            root: the tree
        """
        return root.value + sum(self.walk(child) for child in root.children)

    @tool_api
    def count(self, box: PdStrict) -> int:
        """Count.

        Args:
            box: a strict box
        """
        return box.n


GEO_SCHEMA = {
    "properties": {"lat": {"title": "Lat", "type": "number"}, "lon": {"title": "Lon", "type": "number"}},
    "required": ["lat", "lon"],
    "title": "PdGeo",
    "type": "object",
}
ADDR_SCHEMA = {
    "description": "A postal address.",
    "properties": {
        "street": {"description": "street and number", "title": "Street", "type": "string"},
        "zip": {"title": "Zip", "type": "integer"},
        "geo": {"anyOf": [{"$ref": "#/$defs/PdGeo"}, {"type": "null"}], "default": None},
    },
    "required": ["street", "zip"],
    "title": "PdAddr",
    "type": "object",
}


def test_a_model_parameter_is_an_object_with_its_keys_in_the_lagent_description() -> None:
    ship = PdKit().description["api_list"][0]
    assert ship["parameters"][0] == {
        "name": "addr",
        "type": "OBJECT",
        "description": "where to",
        "schema": {**ADDR_SCHEMA, "$defs": {"PdGeo": GEO_SCHEMA}},
    }
    assert list(ship["parameters"][0]) == ["name", "type", "description", "schema"]
    assert [(p["name"], p["type"]) for p in ship["parameters"]] == [
        ("addr", "OBJECT"),
        ("copies", "Array"),
        ("note", "OBJECT"),
    ]
    assert ship["parameters"][1]["schema"] == {
        "anyOf": [{"type": "array", "items": ADDR_SCHEMA}, {"type": "null"}],
        "$defs": {"PdGeo": GEO_SCHEMA},
    }
    assert ship["required"] == ["addr"]


def test_a_model_parameter_is_exported_with_its_schema_and_definitions_at_the_top() -> None:
    (tool,) = [
        t for t in ActionExecutor([PdKit()]).to_openai_tools() if t["function"]["name"] == "PdKit__ship"
    ]
    parameters = tool["function"]["parameters"]
    assert parameters["properties"]["addr"] == {**ADDR_SCHEMA, "description": "where to"}
    assert parameters["properties"]["copies"] == {
        "anyOf": [{"type": "array", "items": ADDR_SCHEMA}, {"type": "null"}],
        "description": "where copies go",
        "default": None,
    }
    assert parameters["$defs"] == {"PdGeo": GEO_SCHEMA}
    assert parameters["required"] == ["addr"]


def test_every_export_carries_the_models_fields() -> None:
    executor = ActionExecutor([PdKit()])
    anthropic = {t["name"]: t["input_schema"] for t in executor.to_anthropic_tools()}["PdKit__ship"]
    mcp = {t["name"]: t["inputSchema"] for t in executor.to_mcp_tools()}["PdKit__ship"]
    assert anthropic["properties"]["addr"]["properties"]["zip"] == {"title": "Zip", "type": "integer"}
    assert mcp["properties"]["addr"]["required"] == ["street", "zip"]
    assert anthropic["$defs"] == mcp["$defs"] == {"PdGeo": GEO_SCHEMA}
    strict = {t["function"]["name"]: t["function"] for t in executor.to_openai_tools(strict=True)}
    assert strict["PdKit__ship"]["parameters"]["properties"]["addr"]["additionalProperties"] is False
    gemini = executor.to_gemini_tools()[0]["functionDeclarations"]
    ship = {d["name"]: d["parameters"] for d in gemini}["PdKit__ship"]
    # Gemini takes no $ref: the definition is inlined.
    assert ship["properties"]["addr"]["properties"]["geo"]["required"] == ["lat", "lon"]
    assert ship["properties"]["addr"]["properties"]["geo"]["nullable"] is True


def test_a_recursive_model_is_described_by_reference_and_checked_at_every_depth() -> None:
    executor = ActionExecutor([PdKit()])
    (walk,) = [t for t in executor.to_openai_tools() if t["function"]["name"] == "PdKit__walk"]
    parameters = walk["function"]["parameters"]
    assert parameters["properties"]["root"] == {"$ref": "#/$defs/PdNode", "description": "the tree"}
    assert parameters["$defs"]["PdNode"]["properties"]["children"]["items"] == {"$ref": "#/$defs/PdNode"}
    tree = {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}
    ret = executor("PdKit.walk", json.dumps({"root": tree}))
    assert (ret.state, ret.result) == (SUCCESS, [{"type": "text", "content": "6"}])
    tree["children"][0]["children"][0]["value"] = "x"
    ret = executor("PdKit.walk", json.dumps({"root": tree}))
    assert (ret.state, ret.errmsg) == (
        ARGS_ERROR,
        "PdKit.walk: 'root.children[0].children[0].value' input should be a valid integer, "
        "unable to parse string as an integer (got string 'x')",
    )


def test_the_tool_receives_model_instances() -> None:
    tool = PdKit()
    sent = {
        "addr": {"street": "1 Main St", "zip": 12345, "geo": {"lat": 1.5, "lon": 2}},
        "copies": [{"street": "2 Side St", "zip": 2}],
        "note": None,
    }
    ret = ActionExecutor([tool])("PdKit.ship", json.dumps(sent))
    assert (ret.state, ret.errmsg) == (SUCCESS, None)
    (call,) = tool.calls
    assert call == {
        "addr": PdAddr(street="1 Main St", zip=12345, geo=PdGeo(lat=1.5, lon=2.0)),
        "copies": [PdAddr(street="2 Side St", zip=2)],
        "note": None,
    }
    assert type(call["addr"]) is PdAddr and type(call["addr"].geo) is PdGeo
    # The record holds JSON: each model as its dict (the tool got the instances).
    assert ret.args == {
        "addr": {"street": "1 Main St", "zip": 12345, "geo": {"lat": 1.5, "lon": 2.0}},
        "copies": [{"street": "2 Side St", "zip": 2, "geo": None}],
        "note": None,
    }


@pytest.mark.parametrize(
    ("arguments", "errmsg"),
    [
        pytest.param(
            {"addr": {"zip": "x", "geo": {"lat": "north", "lon": 1}}},
            "PdKit.ship: 'addr.street' is required; "
            "'addr.zip' input should be a valid integer, unable to parse string as an integer (got string 'x'); "
            "'addr.geo.lat' input should be a valid number, unable to parse string as a number (got string 'north')",
            id="every-field-path-of-one-parameter",
        ),
        pytest.param(
            {
                "addr": {"street": "a", "zip": 1},
                "copies": [{"street": "b", "zip": 2}, {"street": 7, "zip": 3}],
            },
            "PdKit.ship: 'copies[1].street' input should be a valid string (got integer 7)",
            id="list-of-models-names-the-item",
        ),
        pytest.param(
            {"addr": 5, "note": {"lat": 1}},
            "PdKit.ship: 'addr' input should be a valid dictionary or instance of PdAddr (got integer 5); "
            "'note.lon' is required",
            id="several-parameters-in-one-message",
        ),
        pytest.param(
            {"addr": {"street": "a", "zip": 1}, "note": "here"},
            "PdKit.ship: 'note' input should be a valid dictionary or instance of PdGeo (got string 'here')",
            id="optional-model-names-the-model",
        ),
    ],
)
def test_refused_model_arguments_are_one_args_error_naming_each_field_path(
    arguments: dict[str, Any], errmsg: str
) -> None:
    tool = PdKit()
    ret = ActionExecutor([tool])("PdKit.ship", json.dumps(arguments))
    assert (ret.state, ret.errmsg) == (ARGS_ERROR, errmsg)
    assert tool.calls == []


@pytest.mark.parametrize(
    ("arguments", "state", "errmsg"),
    [
        # Pydantic's lax mode parses a numeric string for an int, as a direct
        # model_validate does.
        pytest.param({"street": "a", "zip": "07"}, SUCCESS, None, id="pydantic-parses-numeric-strings"),
        # The family table would turn 42 into '42'; pydantic refuses it, and decides.
        pytest.param(
            {"street": 42, "zip": 1},
            ARGS_ERROR,
            "PdKit.ship: 'addr.street' input should be a valid string (got integer 42)",
            id="no-second-table-converts-first",
        ),
        # A JSON text is not an object to pydantic either.
        pytest.param(
            '{"street": "a", "zip": 1}',
            ARGS_ERROR,
            "PdKit.ship: 'addr' input should be a valid dictionary or instance of PdAddr "
            '(got string \'{"street": "a", "zip": 1}\')',
            id="json-text-is-not-an-object",
        ),
    ],
)
def test_the_models_own_validator_decides(
    arguments: Any, state: ActionStatusCode, errmsg: Optional[str]
) -> None:
    ret = ActionExecutor([PdKit()])("PdKit.ship", json.dumps({"addr": arguments}))
    assert (ret.state, ret.errmsg) == (state, errmsg)
    try:
        PdAddr.model_validate(arguments)
        direct = SUCCESS
    except pydantic.ValidationError:
        direct = ARGS_ERROR
    assert direct == state


def test_a_strict_model_stays_strict() -> None:
    executor = ActionExecutor([PdKit()])
    assert executor("PdKit.count", '{"box": {"n": 3}}').result == [{"type": "text", "content": "3"}]
    ret = executor("PdKit.count", '{"box": {"n": "3"}}')
    assert (ret.state, ret.errmsg) == (
        ARGS_ERROR,
        "PdKit.count: 'box.n' input should be a valid integer (got string '3')",
    )


def test_strict_validation_mode_validates_the_model_strictly() -> None:
    ret = ActionExecutor([PdKit()], validation="strict")(
        "PdKit.ship", '{"addr": {"street": "a", "zip": "7"}}'
    )
    assert (ret.state, ret.errmsg) == (
        ARGS_ERROR,
        "PdKit.ship: 'addr.zip' input should be a valid integer (got string '7')",
    )


class PdTypedBox(TypedDict):
    width: float
    label: str


class PdPromptKit(BaseAction):
    """Boxes."""

    @tool_api
    def pack(self, box: PdTypedBox, addr: PdGeo) -> str:
        """Pack a box.

        Args:
            box: the box
            addr: where it goes
        """
        return "packed"


def test_the_react_prompt_shows_the_keys_of_object_parameters() -> None:
    text = render_tool_descriptions(ActionExecutor([PdPromptKit()]).get_actions_info())
    parameters = json.loads(text.split("Parameters: ", 1)[1].split("\n", 1)[0])
    assert parameters == [
        {
            "name": "box",
            "type": "OBJECT",
            "description": "the box",
            "schema": {
                "type": "object",
                "title": "PdTypedBox",
                "properties": {"width": {"type": "number"}, "label": {"type": "string"}},
                "required": ["width", "label"],
                "additionalProperties": False,
            },
        },
        {"name": "addr", "type": "OBJECT", "description": "where it goes", "schema": GEO_SCHEMA},
    ]


def _other_geo() -> type:
    class PdGeo(BaseModel):  # the same name as the module's PdGeo, other fields
        x: int

    class PdWrap(BaseModel):
        geo: PdGeo

    return PdWrap


def test_two_models_defining_one_name_differently_are_refused_at_definition() -> None:
    wrap = _other_geo()

    def route(a, b):  # annotated below: ``wrap`` is not a name mypy can read
        """Route."""
        return ""

    route.__annotations__ = {"a": PdAddr, "b": wrap, "return": str}
    with pytest.raises(
        ToolDefinitionError, match=r"route: two different schemas are named 'PdGeo' in \$defs"
    ):
        tool_api(route)


def test_a_models_validator_raises_one_argument_error_naming_each_field() -> None:
    validators, _ = PdKit().argument_checks("ship")
    with pytest.raises(ArgumentError, match=r"^a valid PdAddr$") as info:
        validators["addr"]({"zip": "x"})
    assert Refusal.of(info.value).describe("addr", info.value.value) == (
        "'addr.street' is required; "
        "'addr.zip' input should be a valid integer, unable to parse string as an integer (got string 'x')"
    )


@pydantic_dataclass
class PdSize:
    width: int
    height: int = 1


def test_a_pydantic_dataclass_is_checked_by_pydantic_too() -> None:
    @tool_api
    def frame(size: PdSize) -> str:
        """Frame.

        Args:
            size: the size
        """
        return repr(size)

    assert frame.api_description["parameters"][0]["schema"] == {
        "properties": {
            "width": {"title": "Width", "type": "integer"},
            "height": {"default": 1, "title": "Height", "type": "integer"},
        },
        "required": ["width"],
        "title": "PdSize",
        "type": "object",
    }
    executor = ActionExecutor([frame])
    ok = executor("frame", '{"size": {"width": "3"}}')
    assert ok.result == [{"type": "text", "content": "PdSize(width=3, height=1)"}]
    ret = executor("frame", '{"size": {"width": "x"}}')
    assert (ret.state, ret.errmsg) == (
        ARGS_ERROR,
        "frame: 'size.width' input should be a valid integer, unable to parse string as an integer "
        "(got string 'x')",
    )


def test_importing_the_package_does_not_import_pydantic() -> None:
    code = "import sys, lagent_like; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
