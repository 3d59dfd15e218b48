"""Results and records (issue 20, item 6): no ``'None'`` text, structured Gemini responses, JSON records.

A tool returning ``None`` has nothing to say: an empty result and an empty tool
message, as LiveKit reads it. Gemini function responses carry ``{"result": value}``
as structured data, as Google ADK sends them. A record's ``args`` are the checked
arguments as JSON while the tool receives the objects its annotations ask for;
``to_dict()`` always serializes; a saved trace loads equal to the original.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
from pathlib import Path
from typing import Any, Optional

import pytest
from typing_extensions import TypedDict

from lagent_like import (
    ActionExecutor,
    ActionReturn,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    tool_api,
)
from lagent_like.agents import AgentResult, ReAct
from lagent_like.toolkits._base_action import routes_of

EXECUTORS = [pytest.param(ActionExecutor, id="sync"), pytest.param(AsyncActionExecutor, id="async")]


def _run(executor: Any, name: str, arguments: Any) -> Any:
    ret = executor(name, arguments)
    return asyncio.run(ret) if asyncio.iscoroutine(ret) else ret


# -- None is nothing to say ----------------------------------------------------------


class Quiet(BaseAction, register=False):
    """Tools that do something and say nothing."""

    @tool_api
    def log(self, event: str) -> None:
        """Log an event.

        Args:
            event: what happened
        """

    @tool_api
    async def alog(self, event: str) -> None:
        """Log an event, asynchronously.

        Args:
            event: what happened
        """


def lights_off() -> None:
    """Turn the lights off."""


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize(
    ("tools", "name", "arguments"),
    [
        pytest.param([Quiet()], "Quiet.log", '{"event": "x"}', id="method"),
        pytest.param([Quiet()], "Quiet.alog", '{"event": "x"}', id="async-method"),
        pytest.param([lights_off], "lights_off", "{}", id="plain-function"),
    ],
)
def test_none_is_an_empty_result_never_the_text_none(
    executor_class: type, tools: list[Any], name: str, arguments: str
) -> None:
    ret = _run(executor_class(tools), name, arguments)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.SUCCESS, None)
    assert ret.result == [{"type": "text", "content": ""}]
    assert ret.format_result() == ""


@pytest.mark.parametrize(
    ("call", "answer"),
    [
        pytest.param(
            {"id": "c1", "type": "function", "function": {"name": "lights_off", "arguments": "{}"}},
            {"role": "tool", "tool_call_id": "c1", "content": ""},
            id="openai",
        ),
        pytest.param(
            {"type": "tool_use", "id": "t1", "name": "lights_off", "input": {}},
            {"type": "tool_result", "tool_use_id": "t1", "content": "", "is_error": False},
            id="anthropic",
        ),
        pytest.param(
            {"functionCall": {"name": "lights_off", "args": {}}},
            {"functionResponse": {"name": "lights_off", "response": {"result": ""}}},
            id="gemini",
        ),
    ],
)
def test_none_is_an_empty_tool_message(call: dict[str, Any], answer: dict[str, Any]) -> None:
    assert ActionExecutor([lights_off]).run_tool_calls([call]) == [answer]


def test_react_text_mode_observes_nothing_for_none() -> None:
    replies = iter(["Action: lights_off\nAction Input: {}", "Final Answer: done"])
    result = ReAct(lambda messages: next(replies), ActionExecutor([lights_off])).run("lights off")
    assert result.turns[0].observation == ""
    assert result.messages[3] == {"role": "user", "content": "Observation: "}
    assert result.answer == "done"


class NativeModel:
    """A chat model that calls ``lights_off`` once, then answers."""

    def __init__(self) -> None:
        self.replies = iter(
            [
                {"role": "assistant", "content": "", "tool_calls": [_native_call("c1", "lights_off", "{}")]},
                {"role": "assistant", "content": "done"},
            ]
        )

    def chat(self, messages: list[dict[str, Any]], tools: Any = None, **params: Any) -> dict[str, Any]:
        return next(self.replies)


def _native_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_react_native_mode_sends_an_empty_tool_message_for_none() -> None:
    result = ReAct(NativeModel(), ActionExecutor([lights_off]), native_tools=True).run("lights off")
    assert result.messages[3] == {"role": "tool", "tool_call_id": "c1", "content": ""}
    assert result.answer == "done"


# -- Gemini: structured responses ----------------------------------------------------


def gemini_value(kind: str) -> Any:
    """Return a value of one kind.

    Args:
        kind: which value
    """
    values = {
        "dict": {"city": "Zürich", "t": 3},
        "list": [1, "二"],
        "int": 7,
        "float": 2.5,
        "bool": True,
        "text": "sunny",
        "none": None,
    }
    return values[kind]


@pytest.mark.parametrize(
    ("kind", "response"),
    [
        pytest.param("dict", {"result": {"city": "Zürich", "t": 3}}, id="dict"),
        pytest.param("list", {"result": [1, "二"]}, id="list"),
        pytest.param("int", {"result": 7}, id="int"),
        pytest.param("float", {"result": 2.5}, id="float"),
        pytest.param("bool", {"result": True}, id="bool"),
        pytest.param("text", {"result": "sunny"}, id="text"),
        pytest.param("none", {"result": ""}, id="none"),
        pytest.param("nope", {"error": "KeyError: 'nope'"}, id="failed-call"),
    ],
)
def test_gemini_function_response_carries_the_result_as_structured_data(
    kind: str, response: dict[str, Any]
) -> None:
    part = {"functionCall": {"id": "g1", "name": "gemini_value", "args": {"kind": kind}}}
    answer = ActionExecutor([gemini_value]).run_tool_calls([part])
    assert answer == [{"functionResponse": {"name": "gemini_value", "response": response, "id": "g1"}}]


# -- records hold JSON ---------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Box:
    width: int
    color: Color = Color.RED


class Point(TypedDict):
    x: int
    y: int


class Painter(BaseAction, register=False):
    """Paints with rich argument types; remembers what it received."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[dict[str, Any]] = []

    @tool_api
    def color(self, color: Color) -> str:
        """Paint in a color.

        Args:
            color: the color
        """
        self.received.append({"color": color})
        return "ok"

    @tool_api
    def level(self, level: Level) -> str:
        """Set a level.

        Args:
            level: the level
        """
        self.received.append({"level": level})
        return "ok"

    @tool_api
    def box(self, box: Box) -> str:
        """Paint a box.

        Args:
            box: the box
        """
        self.received.append({"box": box})
        return "ok"

    @tool_api
    def pair(self, pair: tuple[int, int]) -> str:
        """Paint at a pair of coordinates.

        Args:
            pair: the coordinates
        """
        self.received.append({"pair": pair})
        return "ok"

    @tool_api
    def labels(self, labels: dict[int, str]) -> str:
        """Label numbered things.

        Args:
            labels: a label per number
        """
        self.received.append({"labels": labels})
        return "ok"

    @tool_api
    def palette(self, colors: list[Color], accent: Optional[Color] = None) -> str:
        """Paint with several colors.

        Args:
            colors: the colors
            accent: the accent color
        """
        self.received.append({"colors": colors, "accent": accent})
        return "ok"

    @tool_api
    def plain(self, name: str, sizes: list[int], point: Point) -> str:
        """Paint with JSON arguments only.

        Args:
            name: the name
            sizes: the sizes
            point: where
        """
        self.received.append({"name": name, "sizes": sizes, "point": point})
        return "ok"

    @tool_api
    def anything(self, rows: Any, note: object) -> str:
        """Take any JSON value, as sent.

        Args:
            rows: the rows
            note: a note
        """
        return "ok"


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize(
    ("api", "arguments", "received", "recorded"),
    [
        pytest.param("color", {"color": "red"}, {"color": Color.RED}, {"color": "red"}, id="enum"),
        pytest.param("level", {"level": 2}, {"level": Level.HIGH}, {"level": 2}, id="int-enum"),
        pytest.param(
            "box",
            {"box": {"width": 2}},
            {"box": Box(2)},
            {"box": {"width": 2, "color": "red"}},
            id="dataclass",
        ),
        pytest.param("pair", {"pair": [1, 2]}, {"pair": (1, 2)}, {"pair": [1, 2]}, id="tuple"),
        pytest.param(
            "labels", {"labels": {"1": "a"}}, {"labels": {1: "a"}}, {"labels": {"1": "a"}}, id="int-keys"
        ),
        pytest.param(
            "palette",
            {"colors": ["red", "blue"], "accent": "blue"},
            {"colors": [Color.RED, Color.BLUE], "accent": Color.BLUE},
            {"colors": ["red", "blue"], "accent": "blue"},
            id="list-of-enums",
        ),
    ],
)
def test_record_args_are_json_while_the_tool_receives_objects(
    executor_class: type,
    api: str,
    arguments: dict[str, Any],
    received: dict[str, Any],
    recorded: dict[str, Any],
) -> None:
    tool = Painter()
    ret = _run(executor_class([tool]), f"Painter.{api}", json.dumps(arguments))
    assert (ret.state, ret.errmsg) == (ActionStatusCode.SUCCESS, None)
    assert tool.received == [received]
    assert repr(ret.args) == repr(recorded)
    assert ActionReturn.from_dict(json.loads(json.dumps(ret.to_dict()))) == ret


def test_failed_call_records_json_args_too() -> None:
    def fails(color: Color) -> str:
        """Fail for any color.

        Args:
            color: the color
        """
        raise RuntimeError(f"no {color.value}")

    ret = ActionExecutor([fails])("fails", '{"color": "blue"}')
    assert (ret.state, ret.errmsg, ret.args) == (
        ActionStatusCode.API_ERROR,
        "RuntimeError: no blue",
        {"color": "blue"},
    )


@pytest.mark.parametrize(
    ("api", "converts"),
    [
        pytest.param("plain", False, id="json-arguments-cost-nothing"),
        pytest.param("anything", False, id="any-is-the-value-as-sent"),
        pytest.param("color", True, id="enum"),
        pytest.param("box", True, id="dataclass"),
        pytest.param("pair", True, id="tuple"),
        pytest.param("labels", True, id="int-keys"),
        pytest.param("palette", True, id="list-of-enums"),
    ],
)
def test_whether_args_are_converted_is_decided_when_the_route_is_built(api: str, converts: bool) -> None:
    assert (routes_of(Painter())[api].json_args is not None) is converts


def test_to_dict_serializes_whatever_a_tool_put_in_its_own_record() -> None:
    def report(day: str) -> ActionReturn:
        """Report on a day.

        Args:
            day: the day
        """
        return ActionReturn(
            args={"day": day, "color": Color.BLUE, "where": Path("/tmp/x")},
            result=[{"type": "text", "content": "fine", "level": Level.LOW}],
        )

    data = ActionExecutor([report])("report", '{"day": "mon"}').to_dict()
    assert json.loads(json.dumps(data))["args"] == {"day": "mon", "color": "blue", "where": "/tmp/x"}
    assert data["result"] == [{"type": "text", "content": "fine", "level": 1}]


def test_a_saved_trace_loads_equal_to_the_original(tmp_path: Path) -> None:
    replies = iter(
        [
            'Action: Painter.palette\nAction Input: {"colors": ["red"], "accent": "blue"}',
            "Action: lights_off\nAction Input: {}",
            "Final Answer: painted",
        ]
    )
    result = ReAct(lambda messages: next(replies), ActionExecutor([Painter(), lights_off])).run("paint")
    result.save(tmp_path / "trace.json")
    assert AgentResult.load(tmp_path / "trace.json") == result
    assert result.turns[0].action_return is not None
    assert result.turns[0].action_return.args == {"colors": ["red"], "accent": "blue"}


def test_plain_function_returning_an_async_generator_is_drained() -> None:
    async def numbers() -> Any:
        for n in (1, 2):
            yield str(n)

    def counts() -> Any:
        """Count to two."""
        return numbers()

    assert asyncio.run(AsyncActionExecutor([counts])("counts", "{}")).format_result() == "12"
    assert ActionExecutor([counts])("counts", "{}").format_result() == "12"


class Mood(str, enum.Enum):
    HAPPY = "happy"


@dataclasses.dataclass
class Outer:
    inner: Box
    tags: frozenset[str]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(Color.BLUE, "blue", id="enum"),
        pytest.param(Level.HIGH, 2, id="int-enum"),
        pytest.param(Mood.HAPPY, "happy", id="str-enum"),
        pytest.param(
            Outer(Box(1, Color.BLUE), frozenset({"a"})),
            {"inner": {"width": 1, "color": "blue"}, "tags": ["a"]},
            id="nested-dataclass",
        ),
        pytest.param((1, (2, 3)), [1, [2, 3]], id="nested-tuple"),
        pytest.param(
            {2: "a", False: "b", None: "c"},
            {"2": "a", "false": "b", "null": "c"},
            id="keys-as-json-writes-them",
        ),
        pytest.param({Color.RED: 1}, {"red": 1}, id="enum-key"),
        pytest.param(Path("/tmp/x"), "/tmp/x", id="path-as-text"),
        pytest.param(float("2.5"), 2.5, id="float"),
    ],
)
def test_json_value_is_what_a_json_round_trip_keeps(value: Any, expected: Any) -> None:
    from lagent_like._private.json_values import json_value

    converted = json_value(value)
    assert converted == expected
    assert json.loads(json.dumps(converted)) == converted


def test_json_value_dumps_a_pydantic_model_in_json_mode() -> None:
    pydantic = pytest.importorskip(
        "pydantic", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    from lagent_like._private.json_values import json_value

    class Order(pydantic.BaseModel):
        item: str
        color: Color
        sizes: tuple[int, ...]

    assert json_value(Order(item="pen", color=Color.RED, sizes=(1, 2))) == {
        "item": "pen",
        "color": "red",
        "sizes": [1, 2],
    }
