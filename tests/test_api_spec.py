"""``ApiSpec`` is what describing produces; descriptions, schemas, checks and readers read it."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any, Literal, Optional

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    ApiSpec,
    BaseAction,
    FunctionTool,
    JsonParser,
    Param,
    ToolDefinitionError,
    TupleParser,
    tool_api,
)
from lagent_like.spec._describe import NO_DEFAULT
from lagent_like.toolkits._base_action import api_specs
from lagent_like.toolkits._schema_tool import schema_spec
from lagent_like.toolkits._tool_api import api_spec_of


@tool_api
def spec_find(query: str, limit: int = 5, mode: Literal["fast", "full"] = "fast") -> str:
    """Find documents.

    Args:
        query: what to look for
        limit: the most results
        mode: how thoroughly
    """
    return f"{query} {limit} {mode}"


def test_tool_api_produces_a_frozen_spec_with_one_param_per_described_parameter() -> None:
    spec = api_spec_of(spec_find)
    assert spec is not None
    assert (spec.name, spec.summary, spec.func, spec.is_async) == (
        "spec_find",
        "Find documents.",
        spec_find,
        False,
    )
    assert [(p.name, p.type, p.description, p.required, p.default) for p in spec.params] == [
        ("query", "STRING", "what to look for", True, NO_DEFAULT),
        ("limit", "NUMBER", "the most results", False, 5),
        ("mode", "STRING", "how thoroughly", False, "fast"),
    ]
    assert spec.params[2].enum == ("fast", "full")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]


def test_the_lagent_description_and_the_json_schema_are_views_of_the_spec() -> None:
    spec = api_spec_of(spec_find)
    assert spec is not None
    assert spec.description is spec_find.api_description  # type: ignore[attr-defined]
    assert spec.description == {
        "name": "spec_find",
        "description": "Find documents.",
        "parameters": [
            {"name": "query", "type": "STRING", "description": "what to look for"},
            {"name": "limit", "type": "NUMBER", "description": "the most results"},
            {"name": "mode", "type": "STRING", "description": "how thoroughly", "enum": ["fast", "full"]},
        ],
        "required": ["query"],
    }
    assert spec.json_schema() == FunctionTool(spec_find).json_schema()
    assert spec.json_schema()["properties"]["mode"] == {
        "type": "string",
        "description": "how thoroughly",
        "enum": ["fast", "full"],
        "default": "fast",
    }


@pytest.mark.parametrize("parser", [JsonParser, TupleParser], ids=["json", "tuple"])
def test_a_parser_reads_the_specs_and_changes_nothing(parser: type[Any]) -> None:
    tool = FunctionTool(spec_find, parser=parser)
    spec = api_specs(tool)["run"]
    before = (dict(spec.description), dict(tool.description))
    parser(tool)
    assert (dict(spec.description), dict(tool.description)) == before
    assert "parameter_description" not in spec.description
    assert tool.description["parameter_description"] == parser.PARAMETER_DESCRIPTION


def echo_handler(**arguments: Any) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(arguments.items()))


def test_a_toolkit_is_built_from_specs_without_methods() -> None:
    lookup = schema_spec(
        {
            "name": "lookup",
            "description": "Look a key up.",
            "parameters": {
                "type": "object",
                "properties": {"key": {"type": "string", "description": "the key"}, "n": {"type": "integer"}},
                "required": ["key"],
            },
        },
        echo_handler,
    )
    count = ApiSpec(
        "count",
        "Count words.",
        (Param("text", "STRING", "the text", annotation=str, declared=str),),
        func=lambda text: len(text.split()),
    )
    kit = BaseAction({"name": "SpecKit", "description": "Keys and words."}, apis=[lookup, count])
    assert kit.description == {
        "name": "SpecKit",
        "description": "Keys and words.",
        "api_list": [
            {
                "name": "lookup",
                "description": "Look a key up.",
                "parameters": [
                    {"name": "key", "type": "STRING", "description": "the key"},
                    {"name": "n", "type": "NUMBER", "description": ""},
                ],
                "required": ["key"],
                "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
            },
            {
                "name": "count",
                "description": "Count words.",
                "parameters": [{"name": "text", "type": "STRING", "description": "the text"}],
                "required": ["text"],
                "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
            },
        ],
    }
    executor = ActionExecutor(kit)
    assert executor("SpecKit.lookup", '{"key": "a", "n": "2"}').format_result() == "key=a, n=2"
    assert executor("SpecKit.count", '{"text": "one two three"}').format_result() == "3"
    refused = executor("SpecKit.lookup", '{"n": 1}')
    assert (refused.state, refused.errmsg) == (
        ActionStatusCode.ARGS_ERROR,
        "SpecKit.lookup: 'key' is required",
    )
    assert kit.json_schema("lookup")["properties"]["n"] == {"type": "integer"}


def test_a_toolkit_from_specs_needs_a_name() -> None:
    with pytest.raises(ToolDefinitionError, match="a toolkit made from specs needs description="):
        BaseAction(apis=[api_spec_of(spec_find)])  # type: ignore[list-item]


class SpecCounter(BaseAction):
    """Counts calls."""

    def __init__(self, start: int = 0) -> None:
        super().__init__(timeout=3.0)
        self.count = start
        self._api_description = "its own field"

    @tool_api
    def bump(self, by: int = 1, note: Optional[str] = None) -> int:
        """Add to the count.

        Args:
            by: how much
            note: why
        """
        self.count += by
        return self.count


def test_actions_pickle_with_their_own_state_and_rebuild_their_routes() -> None:
    tool = SpecCounter(start=10)
    tool.enable = False
    copy = pickle.loads(pickle.dumps(tool))
    assert (copy.count, copy._api_description, copy.enable) == (10, "its own field", False)
    assert copy.__tool_settings__ == tool.__tool_settings__
    assert copy.description == tool.description
    copy.enable = True
    assert copy('{"by": 5}', "bump").format_result() == "15"
    assert tool.count == 10


def test_function_tools_pickle() -> None:
    copy = pickle.loads(pickle.dumps(FunctionTool(spec_find, name="find")))
    assert copy.name == "find"
    assert copy('{"query": "x"}').format_result() == "x 5 fast"


def test_a_described_spec_has_every_field_as_its_constructor_would_set_it() -> None:
    # build_api_spec fills the frozen dataclasses' __dict__ directly (speed): all fields, no more.
    spec = api_spec_of(spec_find)
    assert spec is not None
    assert set(vars(spec)) >= {f.name for f in dataclasses.fields(ApiSpec)}
    assert {f.name for f in dataclasses.fields(ApiSpec)} == set(vars(dataclasses.replace(spec)))
    for param in spec.params:
        assert vars(param) == vars(dataclasses.replace(param))
    first = spec.params[0]
    assert vars(first) == vars(Param("query", "STRING", "what to look for", True, NO_DEFAULT, str, str))
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.name = "other"  # type: ignore[misc]
