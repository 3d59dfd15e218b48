"""Parameters typed with container classes (``OrderedDict``, ``Counter``, ``deque``, a ``list`` subclass) work.

Before, a bare ``OrderedDict``, ``Counter``, ``defaultdict`` or ``deque`` parameter (or a
user's ``class Tags(list)``) refused every JSON value (an ``isinstance`` check);
``Counter[str]`` or ``OrderedDict[str, int]`` handed the tool a plain ``dict``; and
``Deque[int]`` was neither described nor checked (``["1"]`` reached the tool as a list of
strings). Each now takes a JSON array or object, checks its items, and builds the class
annotated, as pydantic does.
"""

from __future__ import annotations

import collections
import json
from typing import Any, Counter, DefaultDict, Deque, OrderedDict

import pytest
from _annotated import quiet_executor

from lagent_like import ActionExecutor, ActionStatusCode


class Tags(list[str]):
    """A list of tags."""


class Settings(dict[str, Any]):
    """A mapping of settings."""


def shown(v: Any) -> str:
    """The class and the JSON of what the tool received (a deque as its items)."""
    return f"{type(v).__name__} {json.dumps(v if not isinstance(v, collections.deque) else list(v))}"


def executor_for(annotation: Any) -> ActionExecutor:
    return quiet_executor(annotation, shown)


@pytest.mark.parametrize(
    ("annotation", "sent", "received"),
    [
        pytest.param(
            collections.OrderedDict, {"b": 1, "a": 2}, 'OrderedDict {"b": 1, "a": 2}', id="OrderedDict"
        ),
        pytest.param(OrderedDict[str, int], {"a": "1"}, 'OrderedDict {"a": 1}', id="OrderedDict[str, int]"),
        pytest.param(collections.Counter, {"x": 2}, 'Counter {"x": 2}', id="Counter"),
        pytest.param(Counter[str], {"x": 3}, 'Counter {"x": 3}', id="Counter[str]"),
        pytest.param(DefaultDict[str, int], {"a": 1}, 'defaultdict {"a": 1}', id="DefaultDict[str, int]"),
        pytest.param(collections.deque, [1, "x"], 'deque [1, "x"]', id="deque"),
        pytest.param(Deque[int], ["1", 2], "deque [1, 2]", id="Deque[int]"),
        pytest.param(Tags, ["a"], 'Tags ["a"]', id="list-subclass"),
        pytest.param(Settings, {"k": True}, 'Settings {"k": true}', id="dict-subclass"),
    ],
)
def test_a_container_class_parameter_takes_json_and_builds_its_class(
    annotation: Any, sent: Any, received: str
) -> None:
    record = executor_for(annotation)("take", json.dumps({"v": sent}))
    assert record.state == ActionStatusCode.SUCCESS, record.errmsg
    assert record.result[0]["content"] == received


def test_a_typed_deque_is_described_and_checked() -> None:
    executor = executor_for(Deque[int])
    schema = executor.to_openai_tools()[0]["function"]["parameters"]["properties"]["v"]
    assert schema == {"type": "array", "items": {"type": "integer"}, "description": "the value."}
    record = executor("take", json.dumps({"v": ["x"]}))
    assert record.errmsg == "take: 'v[0]' expected integer, got string 'x'"


def test_a_python_callers_deque_passes_and_is_recorded_as_a_list() -> None:
    record = executor_for(Deque[int])("take", {"v": collections.deque([3])})
    assert record.result[0]["content"] == "deque [3]"
    assert record.args == {"v": [3]}
