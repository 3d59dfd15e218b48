"""What a tool returns reaches the model as JSON a peer would write, and never fails a call that ran.

A returned dict whose keys JSON cannot hold (a tuple, an ``Enum`` member) failed the
call with ``TypeError: keys must be str, ...`` although the tool had run; values the
JSON encoder does not know were written with ``str`` (a set as ``{1}``, an ``Enum``
member as ``Color.RED``, a pydantic model as ``x=1 when=datetime...``). They are now
written as the package's one JSON view of values writes them, and a pydantic model is
JSON like a dataclass (as the MCP SDK serves it).
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from typing import Any

import pytest

from lagent_like import ActionExecutor, ActionStatusCode, FunctionTool


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Tagged:
    color: Color
    tags: frozenset[str]


class Opaque:
    def __str__(self) -> str:
        return "<opaque>"


def rendered(value: Any) -> Any:
    def give() -> Any:
        """Give the value."""
        return value

    record = ActionExecutor([FunctionTool(give, name="give")])("give", "{}")
    assert record.state == ActionStatusCode.SUCCESS, record.errmsg
    return record.result[0]["content"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param({(1, 2): "a"}, '{"[1, 2]": "a"}', id="tuple-key"),
        pytest.param({Color.RED: 1}, '{"red": 1}', id="enum-key"),
        pytest.param(
            {"color": Color.RED, "tags": {"b"}}, '{"color": "red", "tags": ["b"]}', id="enum-and-set-values"
        ),
        pytest.param(
            [Tagged(Color.RED, frozenset({"x"}))], '[{"color": "red", "tags": ["x"]}]', id="nested-dataclass"
        ),
        pytest.param(Tagged(Color.RED, frozenset()), '{"color": "red", "tags": []}', id="dataclass"),
        pytest.param(
            {"when": datetime.date(2024, 1, 2), "o": Opaque()},
            '{"when": "2024-01-02", "o": "<opaque>"}',
            id="str-of-others",
        ),
        pytest.param({"text": "ünï ✓"}, '{"text": "ünï ✓"}', id="non-ascii-kept"),
        pytest.param(Color.RED, "Color.RED", id="top-level-enum-is-str-as-in-lagent"),
    ],
)
def test_a_result_is_written_as_json_with_each_value_in_its_json_form(value: Any, text: str) -> None:
    assert rendered(value) == text


def test_a_pydantic_model_result_is_json_like_a_dataclass() -> None:
    pydantic = pytest.importorskip("pydantic", reason="needs pydantic: pip install pydantic")

    class Slot(pydantic.BaseModel):
        start: datetime.datetime
        color: Color = Color.RED

    model = Slot(start=datetime.datetime(2024, 1, 2, 3, 4, 5))
    assert rendered(model) == '{"start": "2024-01-02T03:04:05", "color": "red"}'
    assert rendered({"slots": [model]}) == '{"slots": [{"start": "2024-01-02T03:04:05", "color": "red"}]}'


def test_a_served_tool_returning_a_pydantic_model_sends_it_as_structured_content() -> None:
    pydantic = pytest.importorskip("pydantic", reason="needs pydantic: pip install pydantic")
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    from lagent_like.mcp.server import _to_result

    class Slot(pydantic.BaseModel):
        start: datetime.datetime
        seats: int

    def book() -> Slot:
        """Book a slot."""
        return Slot(start=datetime.datetime(2024, 1, 2, 9), seats=2)

    record = ActionExecutor([FunctionTool(book, name="book")])("book", "{}")
    result = _to_result(record, structured=True)
    assert result.is_error is False
    assert result.structured_content == {"start": "2024-01-02T09:00:00", "seats": 2}
