"""Validation modes: ``"coerce"`` (default), ``"strict"`` and ``"off"``, and where they are set.

One table of inputs runs in each mode, through the executor, against a toolkit typed by
annotations and against the same parameters defined by a JSON Schema; each row says
what the tool receives (its repr) or the message the model reads.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Literal, NamedTuple, Optional, Union

import pytest

from lagent_like import (
    ActionExecutor,
    ActionReturn,
    ActionStatusCode,
    ActionValidCode,
    AsyncActionExecutor,
    BaseAction,
    ToolDefinitionError,
    ToolSettings,
    tool_api,
    tool_from_schema,
)

SUCCESS = ActionStatusCode.SUCCESS
ARGS_ERROR = ActionStatusCode.ARGS_ERROR


@dataclasses.dataclass
class ModePoint:
    x: int
    y: int = 0


class ModeKit(BaseAction):
    """One API per parameter type; each returns the repr of what it received."""

    @tool_api
    def text(self, s: str) -> str:
        """A string."""
        return repr(s)

    @tool_api
    def count(self, n: int) -> str:
        """An integer."""
        return repr(n)

    @tool_api
    def ratio(self, x: float) -> str:
        """A number."""
        return repr(x)

    @tool_api
    def flag(self, on: bool) -> str:
        """A boolean."""
        return repr(on)

    @tool_api
    def ints(self, xs: list[int]) -> str:
        """Integers."""
        return repr(xs)

    @tool_api
    def point(self, p: ModePoint) -> str:
        """A dataclass."""
        return repr(p)

    @tool_api
    def unit(self, u: Literal["C", "F"]) -> str:
        """A literal."""
        return repr(u)

    @tool_api
    def either(self, v: Union[int, str]) -> str:
        """A union."""
        return repr(v)

    @tool_api
    def maybe(self, n: Optional[int] = None) -> str:
        """An optional integer."""
        return repr(n)

    @tool_api
    def anything(self, v: Any) -> str:
        """Any value."""
        return repr(v)

    @tool_api
    def doc_any(self, v) -> str:  # type: ignore[no-untyped-def]
        """Typed Any by the docstring.

        Args:
            v (Any): anything at all
        """
        return repr(v)

    @tool_api
    def untyped(self, v) -> str:  # type: ignore[no-untyped-def]
        """Not typed.

        Args:
            v: anything
        """
        return repr(v)


class Row(NamedTuple):
    api: str
    value: Any
    coerce: str  # what the tool receives, or 'ERR: <message after the API label>'
    strict: str
    off: str


ROWS = {
    "str": Row("text", "a", "'a'", "'a'", "'a'"),
    "str-from-int": Row(
        "text", 42, "'42'", "ERR: 's' expected string, got integer 42", "42"
    ),
    "str-from-float": Row("text", 2.5, "'2.5'", "ERR: 's' expected string, got number 2.5", "2.5"),
    "str-from-bool": Row(
        "text", True, "ERR: 's' expected string, got boolean true", "ERR: 's' expected string, got boolean true", "True"
    ),
    "int-from-str": Row("count", "3", "3", "ERR: 'n' expected integer, got string '3'", "'3'"),
    "int-from-integral-float": Row("count", 3.0, "3", "3", "3.0"),
    "int-from-fraction": Row(
        "count", 2.5, "ERR: 'n' expected integer, got number 2.5", "ERR: 'n' expected integer, got number 2.5", "2.5"
    ),
    "int-from-word": Row(
        "count", "x", "ERR: 'n' expected integer, got string 'x'", "ERR: 'n' expected integer, got string 'x'", "'x'"
    ),
    "float-from-int": Row("ratio", 3, "3.0", "3.0", "3"),
    "float-from-str": Row("ratio", "2.5", "2.5", "ERR: 'x' expected number, got string '2.5'", "'2.5'"),
    "bool-from-str": Row("flag", "true", "True", "ERR: 'on' expected boolean, got string 'true'", "'true'"),
    "bool-from-int": Row(
        "flag", 1, "ERR: 'on' expected boolean, got integer 1", "ERR: 'on' expected boolean, got integer 1", "1"
    ),
    "list-items-from-str": Row("ints", ["1", 2], "[1, 2]", "ERR: 'xs[0]' expected integer, got string '1'", "['1', 2]"),
    "list-from-json-text": Row("ints", "[1]", "[1]", "ERR: 'xs' expected array, got string '[1]'", "'[1]'"),
    "dataclass": Row("point", {"x": "1"}, "ModePoint(x=1, y=0)", "ERR: 'p.x' expected integer, got string '1'", "{'x': '1'}"),
    "literal-exact": Row("unit", "C", "'C'", "'C'", "'C'"),
    "literal-other": Row(
        "unit", "K", "ERR: 'u' expected one of ['C', 'F'], got string 'K'",
        "ERR: 'u' expected one of ['C', 'F'], got string 'K'", "'K'",
    ),
    "union-keeps-str": Row("either", "007", "'007'", "'007'", "'007'"),
    "union-float-to-str": Row(
        "either", 2.5, "'2.5'", "ERR: 'v' expected integer or string, got number 2.5", "2.5"
    ),
    "optional-null": Row("maybe", None, "None", "None", "None"),
    "any-int": Row("anything", 5, "5", "5", "5"),
    "any-object": Row("anything", {"a": [1]}, "{'a': [1]}", "{'a': [1]}", "{'a': [1]}"),
    "docstring-any-int": Row("doc_any", 5, "5", "5", "5"),
    "docstring-any-list": Row("doc_any", [1], "[1]", "[1]", "[1]"),
    "untyped-int": Row("untyped", 5, "5", "5", "5"),
}  # fmt: skip


def _params(mode: str) -> list[Any]:
    return [pytest.param(row, getattr(row, mode), id=name) for name, row in ROWS.items()]


def _run(executor: ActionExecutor, api: str, value: Any) -> tuple[ActionStatusCode, str]:
    param = {
        "text": "s", "count": "n", "ratio": "x", "flag": "on", "ints": "xs", "point": "p", "unit": "u",
        "either": "v", "maybe": "n", "anything": "v", "doc_any": "v", "untyped": "v",
    }[api]  # fmt: skip
    ret = executor(f"ModeKit.{api}", json.dumps({param: value}))
    if ret.state == SUCCESS:
        return ret.state, ret.result[0]["content"]
    return ret.state, f"ERR: {ret.errmsg.removeprefix(f'ModeKit.{api}: ')}"


def _expect(expected: str) -> tuple[ActionStatusCode, str]:
    return (ARGS_ERROR if expected.startswith("ERR: ") else SUCCESS), expected


@pytest.mark.parametrize(("row", "expected"), _params("coerce"))
def test_coerce_mode_converts_what_converts_without_loss(row: Row, expected: str) -> None:
    assert _run(ActionExecutor([ModeKit()]), row.api, row.value) == _expect(expected)


@pytest.mark.parametrize(("row", "expected"), _params("strict"))
def test_strict_mode_takes_only_the_declared_json_types(row: Row, expected: str) -> None:
    assert _run(ActionExecutor([ModeKit()], validation="strict"), row.api, row.value) == _expect(expected)


@pytest.mark.parametrize(("row", "expected"), _params("off"))
def test_off_mode_passes_every_value_as_sent(row: Row, expected: str) -> None:
    assert _run(ActionExecutor([ModeKit(validation="off")]), row.api, row.value) == _expect(expected)


def test_off_mode_still_checks_names() -> None:
    executor = ActionExecutor([ModeKit(validation="off")])
    assert executor("ModeKit.count", "{}").errmsg == "ModeKit.count: 'n' is required"
    assert executor("ModeKit.count", '{"n": 1, "m": 2}').errmsg == (
        "ModeKit.count: 'm' is not a parameter; parameters: n"
    )


# --- the same modes on a tool defined by a JSON Schema -----------------------------------

SCHEMA_ROWS = [
    pytest.param({"type": "string"}, 42, ("'42'", "ERR: 'a' expected string, got integer 42", "42"), id="string"),
    pytest.param({"type": "integer"}, "3", ("3", "ERR: 'a' expected integer, got string '3'", "'3'"), id="integer"),
    pytest.param({"type": "integer"}, 3.0, ("3", "3", "3.0"), id="integer-from-3.0"),
    pytest.param({"type": "boolean"}, "false", ("False", "ERR: 'a' expected boolean, got string 'false'", "'false'"),
                 id="boolean"),
    pytest.param({"type": "integer", "minimum": 1}, 0, ("ERR: 'a' expected integer >= 1, got integer 0",
                 "ERR: 'a' expected integer >= 1, got integer 0", "0"), id="minimum"),
    pytest.param({}, [1], ("[1]", "[1]", "[1]"), id="no-type"),
]  # fmt: skip


@pytest.mark.parametrize("mode", ["coerce", "strict", "off"])
@pytest.mark.parametrize(("prop", "value", "outcomes"), SCHEMA_ROWS)
def test_schema_tools_honour_the_validation_mode(
    mode: str, prop: dict[str, Any], value: Any, outcomes: tuple[str, str, str]
) -> None:
    schema = {"name": "t", "parameters": {"type": "object", "properties": {"a": prop}, "required": ["a"]}}
    tool = tool_from_schema(schema, lambda a: repr(a))
    ret = ActionExecutor([tool], validation=mode)("t", json.dumps({"a": value}))
    got = ret.result[0]["content"] if ret.state == SUCCESS else f"ERR: {ret.errmsg.removeprefix('t: ')}"
    assert got == outcomes[["coerce", "strict", "off"].index(mode)]


# --- where the mode is set: the most specific explicit setting wins -------------------------


class ModeLevels(BaseAction):
    """APIs with and without their own mode."""

    @tool_api
    def plain(self, n: int) -> str:
        """Follows the tool."""
        return repr(n)

    @tool_api(validation="strict")
    def strict(self, n: int) -> str:
        """Always strict."""
        return repr(n)

    @tool_api(validation="off")
    def off(self, n: int) -> str:
        """Never checked."""
        return repr(n)


class StrictLevels(ModeLevels):
    """The same APIs, strict by the class's runtime settings."""

    __tool_settings__ = ToolSettings(validation="strict")


@pytest.mark.parametrize(
    ("make_tool", "executor_mode", "expected"),
    [
        pytest.param(ModeLevels, None, {"plain": "3", "strict": "ERR", "off": "'3'"}, id="defaults"),
        pytest.param(ModeLevels, "off", {"plain": "'3'", "strict": "ERR", "off": "'3'"}, id="executor-off"),
        pytest.param(ModeLevels, "strict", {"plain": "ERR", "strict": "ERR", "off": "'3'"}, id="executor-strict"),
        pytest.param(StrictLevels, None, {"plain": "ERR", "strict": "ERR", "off": "'3'"}, id="class-attribute"),
        pytest.param(StrictLevels, "coerce", {"plain": "ERR", "strict": "ERR", "off": "'3'"}, id="class-over-executor"),
        pytest.param(
            lambda: ModeLevels(validation="off"), "strict", {"plain": "'3'", "strict": "ERR", "off": "'3'"},
            id="instance-over-executor",
        ),
        pytest.param(
            lambda: StrictLevels(validation="coerce"), "off", {"plain": "3", "strict": "ERR", "off": "'3'"},
            id="instance-over-class",
        ),
    ],
)  # fmt: skip
def test_the_most_specific_explicit_validation_setting_wins(
    make_tool: Any, executor_mode: Optional[str], expected: dict[str, str]
) -> None:
    executor = ActionExecutor([make_tool()], validation=executor_mode)
    name = next(iter(executor.actions))
    got = {}
    for api in ("plain", "strict", "off"):
        ret = executor(f"{name}.{api}", '{"n": "3"}')
        got[api] = ret.result[0]["content"] if ret.state == SUCCESS else "ERR"
    assert got == expected


def test_executor_validation_applies_to_actions_added_later() -> None:
    executor = ActionExecutor([], validation="strict")
    executor.add_action(ModeLevels())
    assert (
        executor("ModeLevels.plain", '{"n": "3"}').errmsg
        == "ModeLevels.plain: 'n' expected integer, got string '3'"
    )


def test_async_executor_takes_a_validation_mode() -> None:
    executor = AsyncActionExecutor([ModeLevels()], validation="off")
    ret = asyncio.run(executor("ModeLevels.plain", '{"n": "x"}'))
    assert (ret.state, ret.result) == (SUCCESS, [{"type": "text", "content": "'x'"}])


def test_a_tool_shared_by_two_executors_reads_in_each_executors_mode() -> None:
    tool = ModeLevels()
    strict = ActionExecutor([tool], validation="strict")
    off = AsyncActionExecutor([tool], validation="off")
    coerce = ActionExecutor([tool])
    refused = ActionReturn(
        args={"inputs": '{"n": "3"}', "name": "plain"},
        type="ModeLevels",
        errmsg="ModeLevels.plain: 'n' expected integer, got string '3'",
        state=ARGS_ERROR,
        valid=ActionValidCode.OPEN,
    )
    as_sent = ActionReturn(
        args={"n": "3"},
        type="ModeLevels",
        result=[{"type": "text", "content": "'3'"}],
        valid=ActionValidCode.OPEN,
    )
    coerced = ActionReturn(
        args={"n": 3},
        type="ModeLevels",
        result=[{"type": "text", "content": "3"}],
        valid=ActionValidCode.OPEN,
    )
    for _ in range(2):  # building one executor changes nothing for the others
        assert strict("ModeLevels.plain", '{"n": "3"}') == refused
        assert asyncio.run(off("ModeLevels.plain", '{"n": "3"}')) == as_sent
        assert coerce("ModeLevels.plain", '{"n": "3"}') == coerced
        assert tool('{"n": "3"}', "plain") == coerced
    strict.add_action(ModeLevels())  # a rebuild of one executor's routes
    assert strict("ModeLevels.plain", '{"n": "3"}') == refused
    assert asyncio.run(off("ModeLevels.plain", '{"n": "3"}')) == as_sent


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda: ActionExecutor([], validation="lenient"), "ActionExecutor: validation must be one of",
                     id="executor"),
        pytest.param(lambda: ModeLevels(validation="loose"), "ModeLevels: validation must be one of", id="tool"),
        pytest.param(lambda: tool_api(validation="STRICT"), "tool_api: validation must be one of", id="api"),
        pytest.param(lambda: ToolSettings(validation="lax"), "ToolSettings: validation must be one of",
                     id="settings"),
    ],
)  # fmt: skip
def test_an_unknown_validation_mode_is_a_definition_error(make: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=f"^{message} \\['coerce', 'strict', 'off'\\]"):
        make()
