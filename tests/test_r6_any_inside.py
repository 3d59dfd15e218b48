"""``Any`` inside a container takes any JSON value, on every Python version.

From Python 3.11 ``typing.Any`` is a class, so ``dict[str, Any]``, ``list[Any]`` or a
dataclass field of type ``Any`` compiled to an ``isinstance(value, Any)`` check, which
raises: every call got "'d' could not be checked: TypeError: typing.Any cannot be
used with isinstance()" and the tool never ran. (On 3.9 and 3.10 ``Any`` is not a
class and these worked.) Each parameter here must take the value as sent.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional, Union

import pytest
import typing_extensions
from typing_extensions import TypedDict

from lagent_like import ActionExecutor, ActionStatusCode, BaseAction, tool_api


class Row(TypedDict):
    key: str
    value: Any


@dataclasses.dataclass
class Box:
    label: str
    content: Any


class Store(BaseAction):
    @tool_api
    def mapping(self, d: dict[str, Any]) -> str:
        """Store a mapping.

        Args:
            d: the mapping.
        """
        return json.dumps(d)

    @tool_api
    def optional_mapping(self, d: Optional[dict[str, Any]] = None) -> str:
        """Store a mapping, maybe.

        Args:
            d: the mapping.
        """
        return json.dumps(d)

    @tool_api
    def items(self, d: list[Any]) -> str:
        """Store items.

        Args:
            d: the items.
        """
        return json.dumps(d)

    @tool_api
    def nested(self, d: dict[str, list[Any]]) -> str:
        """Store lists by name.

        Args:
            d: the lists.
        """
        return json.dumps(d)

    @tool_api
    def pair(self, d: tuple[int, Any]) -> str:
        """Store a pair.

        Args:
            d: the pair.
        """
        return json.dumps(list(d))

    @tool_api
    def either(self, d: Union[int, list[Any]]) -> str:
        """Store a number or items.

        Args:
            d: the number or items.
        """
        return json.dumps(d)

    @tool_api
    def row(self, d: Row) -> str:
        """Store a row.

        Args:
            d: the row.
        """
        return json.dumps(d)

    @tool_api
    def box(self, d: Box) -> str:
        """Store a box.

        Args:
            d: the box.
        """
        return json.dumps(dataclasses.asdict(d))

    @tool_api
    def extension_any(self, d: list[typing_extensions.Any]) -> str:
        """Store items (typing_extensions' Any).

        Args:
            d: the items.
        """
        return json.dumps(d)


MIXED = [1, "x", None, 2.5, True, {"k": [1, {"deep": None}]}, []]


@pytest.mark.parametrize(
    ("api", "value"),
    [
        pytest.param("mapping", {"a": 1, "b": "two", "c": None, "d": {"e": [1, None]}}, id="dict-str-any"),
        pytest.param("optional_mapping", {"a": [1, "x"], "b": None}, id="optional-dict-str-any"),
        pytest.param("items", MIXED, id="list-any"),
        pytest.param("nested", {"first": MIXED, "second": []}, id="dict-of-list-any"),
        pytest.param("pair", [7, {"anything": None}], id="tuple-int-any"),
        pytest.param("either", MIXED, id="union-int-list-any"),
        pytest.param("row", {"key": "k", "value": {"v": [None, 1]}}, id="typeddict-any-field"),
        pytest.param("box", {"label": "l", "content": ["x", 1, None]}, id="dataclass-any-field"),
        pytest.param("extension_any", MIXED, id="typing-extensions-any"),
    ],
)
def test_any_inside_a_container_takes_the_value_as_sent(api: str, value: Any) -> None:
    record = ActionExecutor([Store()])(f"Store.{api}", json.dumps({"d": value}))
    assert record.state == ActionStatusCode.SUCCESS, record.errmsg
    assert json.loads(record.result[0]["content"]) == value


def test_any_inside_a_container_still_checks_the_container() -> None:
    record = ActionExecutor([Store()])("Store.mapping", json.dumps({"d": [1, 2]}))
    assert record.state == ActionStatusCode.ARGS_ERROR
    assert record.errmsg == "Store.mapping: 'd' expected object, got array [1, 2]"
