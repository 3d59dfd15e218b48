"""Annotated constraints pydantic reads (``Field(ge=1)``, ``annotated_types.Gt(0)``): exported and checked."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Optional

import pytest

pydantic = pytest.importorskip(
    "pydantic", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
)
import annotated_types as at  # noqa: E402
from pydantic import AfterValidator, Field, StringConstraints, TypeAdapter  # noqa: E402
from typing_extensions import Annotated  # noqa: E402

from lagent_like import (  # noqa: E402
    ActionExecutor,
    ActionStatusCode,
    BaseAction,
    ToolDefinitionError,
    tool_api,
)

SUCCESS, ARGS_ERROR = ActionStatusCode.SUCCESS, ActionStatusCode.ARGS_ERROR

Word = Annotated[str, Field(pattern="^[a-z]+$")]
Count = Annotated[int, Field(ge=1, le=10, description="how many")]
Positive = Annotated[int, at.Gt(0)]
Tags = Annotated[list[str], Field(min_length=1)]
Short = Annotated[str, StringConstraints(max_length=3)]
Ratio = Annotated[float, at.Interval(ge=0, lt=1)]


def _even(number: int) -> int:
    if number % 2:
        raise ValueError("must be even")
    return number


Even = Annotated[int, AfterValidator(_even)]
PositiveItems = list[Annotated[int, at.Gt(0)]]


class Constrained(BaseAction):
    """Tools whose one parameter carries constraints in Annotated."""

    def __init__(self) -> None:
        super().__init__()
        self.got: list[Any] = []

    def _take(self, value: Any) -> str:
        self.got.append(value)
        return "ok"

    @tool_api
    def word(self, value: Word) -> str:
        """Take a word.

        Args:
            value: a lowercase word
        """
        return self._take(value)

    @tool_api
    def count(self, value: Count) -> str:
        """Take a count."""
        return self._take(value)

    @tool_api
    def positive(self, value: Positive) -> str:
        """Take a positive number."""
        return self._take(value)

    @tool_api
    def tags(self, value: Tags) -> str:
        """Take tags."""
        return self._take(value)

    @tool_api
    def short(self, value: Short) -> str:
        """Take a short string."""
        return self._take(value)

    @tool_api
    def ratio(self, value: Ratio) -> str:
        """Take a ratio."""
        return self._take(value)

    @tool_api
    def even(self, value: Even) -> str:
        """Take an even number."""
        return self._take(value)

    @tool_api
    def items(self, value: PositiveItems) -> str:
        """Take positive items."""
        return self._take(value)

    @tool_api
    def maybe(self, value: Optional[Positive] = None) -> str:
        """Take a positive number or nothing."""
        return self._take(value)


ANNOTATIONS = {
    "word": Word,
    "count": Count,
    "positive": Positive,
    "tags": Tags,
    "short": Short,
    "ratio": Ratio,
    "even": Even,
    "items": PositiveItems,
    "maybe": Optional[Positive],
}


@pytest.mark.parametrize(
    ("api", "value", "errmsg"),
    [
        pytest.param("word", "abc", None, id="pattern-matches"),
        pytest.param(
            "word",
            "aBc",
            "'value' string should match pattern '^[a-z]+$' (got string 'aBc')",
            id="pattern-refuses",
        ),
        pytest.param("count", 1, None, id="ge-bound-itself"),
        pytest.param("count", 10, None, id="le-bound-itself"),
        pytest.param(
            "count",
            0,
            "'value' input should be greater than or equal to 1 (got integer 0)",
            id="ge-refuses-below",
        ),
        pytest.param(
            "count",
            11,
            "'value' input should be less than or equal to 10 (got integer 11)",
            id="le-refuses-above",
        ),
        pytest.param("count", "3", None, id="pydantic-lax-parses-a-numeric-string"),
        pytest.param("positive", 1, None, id="gt-accepts"),
        pytest.param(
            "positive", 0, "'value' input should be greater than 0 (got integer 0)", id="gt-refuses-bound"
        ),
        pytest.param("tags", ["a"], None, id="min-length-accepts"),
        pytest.param(
            "tags",
            [],
            "'value' list should have at least 1 item after validation, not 0 (got array [])",
            id="min-length-refuses-empty",
        ),
        pytest.param("short", "abc", None, id="string-constraints-accept"),
        pytest.param(
            "short",
            "abcd",
            "'value' string should have at most 3 characters (got string 'abcd')",
            id="string-constraints-refuse",
        ),
        pytest.param("ratio", 0, None, id="interval-accepts-an-integer-as-float"),
        pytest.param(
            "ratio",
            1.0,
            "'value' input should be less than 1 (got number 1.0)",
            id="interval-refuses-open-end",
        ),
        pytest.param("even", 4, None, id="after-validator-accepts"),
        pytest.param(
            "even", 3, "'value' value error, must be even (got integer 3)", id="after-validator-refuses"
        ),
        pytest.param("items", [1, 2], None, id="constrained-items-accept"),
        pytest.param(
            "items", [1, 0], "'value[1]' input should be greater than 0 (got integer 0)", id="item-path-named"
        ),
        pytest.param("maybe", None, None, id="optional-takes-null"),
        pytest.param("maybe", 2, None, id="optional-accepts"),
        pytest.param(
            "maybe",
            0,
            "'value' input should be greater than 0 (got integer 0)",
            id="optional-keeps-the-constraint",
        ),
    ],
)
def test_constraints_in_annotated_are_checked_as_pydantic_checks_them(
    api: str, value: Any, errmsg: Optional[str]
) -> None:
    tool = Constrained()
    ret = ActionExecutor([tool])(f"Constrained.{api}", json.dumps({"value": value}))
    adapter: TypeAdapter[Any] = TypeAdapter(ANNOTATIONS[api])
    if errmsg is None:
        assert (ret.state, ret.errmsg) == (SUCCESS, None)
        direct = adapter.validate_python(value)
        assert tool.got == [direct]
        assert type(tool.got[0]) is type(direct)
    else:
        assert (ret.state, ret.errmsg) == (ARGS_ERROR, f"Constrained.{api}: {errmsg}")
        assert tool.got == []
        with pytest.raises(pydantic.ValidationError):
            adapter.validate_python(value)


@pytest.mark.parametrize(
    ("api", "schema"),
    [
        pytest.param(
            "word",
            {"pattern": "^[a-z]+$", "type": "string", "description": "a lowercase word"},
            id="pattern-and-docstring-description",
        ),
        pytest.param(
            "count",
            {"description": "how many", "maximum": 10, "minimum": 1, "type": "integer"},
            id="bounds-and-field-description",
        ),
        pytest.param("positive", {"exclusiveMinimum": 0, "type": "integer"}, id="annotated-types-gt"),
        pytest.param("tags", {"items": {"type": "string"}, "minItems": 1, "type": "array"}, id="min-items"),
        pytest.param("short", {"maxLength": 3, "type": "string"}, id="string-constraints"),
        pytest.param("ratio", {"exclusiveMaximum": 1, "minimum": 0, "type": "number"}, id="interval"),
        pytest.param("even", {"type": "integer"}, id="validator-has-no-schema-keyword"),
        pytest.param(
            "items",
            {"type": "array", "items": {"exclusiveMinimum": 0, "type": "integer"}},
            id="constrained-items",
        ),
        pytest.param(
            "maybe",
            {"anyOf": [{"exclusiveMinimum": 0, "type": "integer"}, {"type": "null"}], "default": None},
            id="optional-constrained",
        ),
    ],
)
def test_constraints_in_annotated_are_exported_as_pydantic_describes_them(
    api: str, schema: dict[str, Any]
) -> None:
    executor = ActionExecutor([Constrained()])
    name = f"Constrained__{api}"
    openai = {t["function"]["name"]: t["function"]["parameters"] for t in executor.to_openai_tools()}[name]
    anthropic = {t["name"]: t["input_schema"] for t in executor.to_anthropic_tools()}[name]
    mcp = {t["name"]: t["inputSchema"] for t in executor.to_mcp_tools()}[name]
    assert openai["properties"]["value"] == schema
    assert anthropic["properties"]["value"] == mcp["properties"]["value"] == schema
    pydantic_schema = TypeAdapter(ANNOTATIONS[api]).json_schema()
    # Pydantic's schema, with the parameter's description and default.
    assert {**pydantic_schema, **{k: schema[k] for k in ("description", "default") if k in schema}} == schema


def test_the_gemini_export_keeps_the_constraints_gemini_takes() -> None:
    gemini = ActionExecutor([Constrained()]).to_gemini_tools()[0]["functionDeclarations"]
    value = {d["name"]: d["parameters"]["properties"]["value"] for d in gemini}
    assert value["Constrained__count"] == {
        "description": "how many",
        "maximum": 10,
        "minimum": 1,
        "type": "INTEGER",
    }
    assert value["Constrained__word"]["pattern"] == "^[a-z]+$"
    assert value["Constrained__tags"]["minItems"] == 1


def test_the_lagent_description_takes_the_field_description_and_the_type_word() -> None:
    apis = {api["name"]: api for api in Constrained().description["api_list"]}
    assert apis["count"]["parameters"] == [{"name": "value", "type": "NUMBER", "description": "how many"}]
    # The docstring's description comes first, as for any parameter.
    assert apis["word"]["parameters"] == [
        {"name": "value", "type": "STRING", "description": "a lowercase word"}
    ]
    assert apis["tags"]["parameters"] == [{"name": "value", "type": "Array", "description": ""}]


class Labelled(BaseAction):
    """Strings and unknown objects in Annotated keep their meaning."""

    @tool_api
    def add(
        self,
        a: Annotated[int, "augend", Field(ge=0, description="not shown: the label says it")],
        b: Annotated[int, object()],
    ) -> int:
        """Add."""
        return a + b


def test_a_string_label_stays_the_description_next_to_constraints() -> None:
    (add,) = Labelled().description["api_list"]
    assert add["parameters"] == [
        {"name": "a", "type": "NUMBER", "description": "augend"},
        {"name": "b", "type": "NUMBER", "description": ""},
    ]
    (tool,) = ActionExecutor([Labelled()]).to_openai_tools()
    assert tool["function"]["parameters"]["properties"] == {
        "a": {"description": "augend", "minimum": 0, "type": "integer"},
        "b": {"type": "integer"},
    }


@pytest.mark.parametrize(
    ("arguments", "errmsg"),
    [
        pytest.param({"a": 1, "b": 2}, None, id="both-valid"),
        pytest.param(
            {"a": -1, "b": 2},
            "Labelled.add: 'a' input should be greater than or equal to 0 (got integer -1)",
            id="constraint-next-to-a-label-is-checked",
        ),
        pytest.param({"a": 1, "b": -7}, None, id="unknown-metadata-stays-ignored"),
    ],
)
def test_unknown_metadata_is_ignored_and_constraints_are_not(
    arguments: dict[str, Any], errmsg: Optional[str]
) -> None:
    ret = ActionExecutor([Labelled()])("Labelled.add", json.dumps(arguments))
    assert (ret.state, ret.errmsg) == ((SUCCESS, None) if errmsg is None else (ARGS_ERROR, errmsg))


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        pytest.param(
            Annotated[int, Field(default=3)],
            r"parameter 'n' has a default in Field\(\.\.\.\); give it in the signature instead",
            id="field-default",
        ),
        pytest.param(
            Annotated[list[int], Field(default_factory=list)],
            r"parameter 'n' has a default in Field\(\.\.\.\)",
            id="field-default-factory",
        ),
        pytest.param(
            Annotated[int, Field(alias="count")],
            r"parameter 'n' has an alias in Field\(\.\.\.\); a model writes the parameter's own name",
            id="field-alias",
        ),
        pytest.param(
            Annotated[int, Field(validation_alias="count")],
            r"parameter 'n' has an alias in Field",
            id="field-validation-alias",
        ),
    ],
)
def test_field_defaults_and_aliases_are_refused_at_definition(annotation: Any, message: str) -> None:
    def take(n: int) -> int:
        """Take n."""
        return n

    take.__annotations__["n"] = annotation
    with pytest.raises(ToolDefinitionError, match=message):
        tool_api(take)


class Paged(BaseAction):
    """Pages."""

    @tool_api
    def page(self, size: Annotated[int, Field(ge=1, le=100)] = 20) -> int:
        """Read a page."""
        return size


def test_the_signature_default_of_a_constrained_parameter_is_kept() -> None:
    executor = ActionExecutor([Paged()])
    (tool,) = executor.to_openai_tools()
    assert tool["function"]["parameters"]["properties"]["size"] == {
        "default": 20,
        "maximum": 100,
        "minimum": 1,
        "type": "integer",
    }
    assert executor("Paged.page", "{}").result == [{"type": "text", "content": "20"}]
    ret = executor("Paged.page", '{"size": 500}')
    assert (ret.state, ret.errmsg) == (
        ARGS_ERROR,
        "Paged.page: 'size' input should be less than or equal to 100 (got integer 500)",
    )


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_importing_the_package_imports_neither_pydantic_nor_annotated_types() -> None:
    code = "import sys, lagent_like; print('pydantic' in sys.modules, 'annotated_types' in sys.modules)"
    assert _run(code) == "False False"


#: A tool constrained with annotated_types only; ``{block}`` runs before it is defined.
ANNOTATED_TYPES_ONLY = """
import json, sys
from typing import Annotated
import annotated_types as at
from lagent_like import ActionExecutor, ToolDefinitionError, tool_api
{block}
def take(n: Annotated[int, at.Gt(0)]) -> int:
    return n
try:
    tool = tool_api(take)
except ToolDefinitionError as exc:
    print(exc)
else:
    print('pydantic' in sys.modules, ActionExecutor([tool])("take", json.dumps({{"n": 0}})).errmsg)
"""


@pytest.mark.parametrize(
    ("block", "printed"),
    [
        pytest.param(
            "",
            "True take: 'n' input should be greater than 0 (got integer 0)",
            id="pydantic-imported-to-check",
        ),
        pytest.param(
            "sys.modules['pydantic'] = None  # as if not installed",
            "parameter 'n' has constraints in Annotated that only pydantic checks; install pydantic",
            id="refused-without-pydantic",
        ),
    ],
)
def test_annotated_types_constraints_need_pydantic(block: str, printed: str) -> None:
    assert printed in _run(ANNOTATED_TYPES_ONLY.format(block=block))


def test_a_field_as_the_default_is_refused_at_definition() -> None:
    def take(n: int = Field(ge=1)) -> int:
        """Take n."""
        return n

    with pytest.raises(
        ToolDefinitionError,
        match=r"parameter 'n' has Field\(\.\.\.\) as its default, which the tool would receive; "
        r"write n: Annotated\[type, Field\(\.\.\.\)\] = default \(or no default\) instead",
    ):
        tool_api(take)


@pytest.mark.parametrize(
    ("mode", "arguments", "errmsg"),
    [
        pytest.param("coerce", '{"value": "3"}', None, id="coerce-pydantic-lax"),
        pytest.param(
            "strict",
            '{"value": "3"}',
            "Constrained.count: 'value' input should be a valid integer (got string '3')",
            id="strict-pydantic-strict",
        ),
        pytest.param(
            "strict",
            '{"value": 0}',
            "Constrained.count: 'value' input should be greater than or equal to 1 (got integer 0)",
            id="strict-keeps-the-constraint",
        ),
        pytest.param("off", '{"value": 0}', None, id="off-checks-nothing"),
    ],
)
def test_the_validation_mode_applies_to_constraints(mode: str, arguments: str, errmsg: Optional[str]) -> None:
    ret = ActionExecutor([Constrained()], validation=mode)("Constrained.count", arguments)
    assert (ret.state, ret.errmsg) == ((SUCCESS, None) if errmsg is None else (ARGS_ERROR, errmsg))
