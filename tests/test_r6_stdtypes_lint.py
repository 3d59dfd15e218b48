"""A parameter of a plain class no JSON value can be: definable, but warned of and linted.

Python callers may pass such objects, so the tool still defines; a model, which sends
JSON, never can, so the definition warns (``DefinitionWarning``) and ``lagent-like
lint`` reports ``no-json-value``.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import warnings
from typing import Any, Callable, Optional, Union

import pytest

from lagent_like import ActionExecutor, BaseAction, DefinitionWarning, tool_api
from lagent_like.lint import lint_action


class Handle:
    """A plain class: no JSON value is one."""


class Label(str):
    """A subclass of a JSON class: a JSON string is a ``str``, never a ``Label``."""


@dataclasses.dataclass
class Point:
    x: int


class Colour(enum.Enum):
    RED = "red"


def fix(names: str) -> str:
    return (
        f"parameter 'v': no JSON value is {names}, so a model cannot send one; annotate it with a "
        f"dataclass, TypedDict or pydantic model, or a JSON type"
    )


def kit_of(annotation: Any) -> type[BaseAction]:
    """A toolkit ``Kit`` whose API ``use`` takes one parameter ``v`` of ``annotation``."""

    def use(self: Any, v: Any) -> str:
        """Use the value.

        Args:
            v: the value.
        """
        return repr(v)

    use.__annotations__["v"] = annotation
    return type("Kit", (BaseAction,), {"__doc__": "A kit.", "use": tool_api(use)})


@pytest.mark.parametrize(
    ("annotation", "names"),
    [
        pytest.param(Handle, "a Handle", id="plain-class"),
        pytest.param(list[Handle], "a Handle", id="list-of"),
        pytest.param(Optional[Handle], "a Handle", id="optional"),
        pytest.param(Union[Handle, Label], "a Handle or a Label", id="union"),
        pytest.param(dict[str, Handle], "a Handle", id="dict-values"),
        pytest.param(Callable[[int], int], "a Callable", id="callable"),
        pytest.param(Optional[Callable[[], None]], "a Callable", id="optional-callable"),
        pytest.param(type[int], "a type", id="a-class"),
        # A JSON value fits these: no warning, no finding.
        pytest.param(datetime.datetime, None, id="value-class"),
        pytest.param(Point, None, id="dataclass"),
        pytest.param(Colour, None, id="enum"),
        pytest.param(Optional[list[datetime.date]], None, id="nested-value-class"),
        pytest.param(Any, None, id="any"),
        pytest.param(object, None, id="object"),
    ],
)
def test_a_parameter_no_json_value_fits_is_warned_of_and_linted(
    annotation: Any, names: Optional[str]
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DefinitionWarning)
        kit = kit_of(annotation)
    expected = [] if names is None else [fix(names)]
    assert [str(w.message) for w in caught] == [f"kit_of.<locals>.use: {note}" for note in expected]
    assert [w.filename for w in caught] == [__file__] * len(expected)  # the definition, not the package
    findings = [(f.severity, f.code, f.message) for f in lint_action(kit()) if f.code == "no-json-value"]
    assert findings == [("warning", "no-json-value", note) for note in expected]


def test_a_python_caller_can_still_pass_the_object() -> None:
    with pytest.warns(DefinitionWarning):
        kit = kit_of(Handle)
    handle = Handle()
    executor = ActionExecutor([kit()])
    assert executor("Kit.use", {"v": handle}).result[0]["content"] == repr(handle)
    assert executor("Kit.use", '{"v": {}}').errmsg == "Kit.use: 'v' expected Handle, got object {}"
