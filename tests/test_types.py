"""Lagent type names of annotations and docstring type words (SPEC section 2)."""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import sys
import typing
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import future_annotations_tools as future
import pytest
from typing_extensions import Annotated, Literal, TypedDict

from lagent_like import ToolDefinitionError, tool_api


def describe_parameter(annotation: Any) -> dict[str, Any]:
    """The description of the one parameter ``x`` of a tool annotated with ``annotation``."""

    def probe(x) -> None:
        """Probe.

        Args:
            x: the x
        """

    probe.__annotations__ = {"x": annotation}
    return tool_api(probe).api_description["parameters"][0]


class TypesMovie(TypedDict):
    title: str
    year: int


@dataclasses.dataclass
class TypesPoint:
    x: float
    y: float


class TypesColor(enum.Enum):
    RED = "red"
    GREEN = "green"


class TypesLevel(enum.IntEnum):
    LOW = 1
    HIGH = 2


@pytest.mark.parametrize(
    ("annotation", "type_name", "enum_values"),
    [
        pytest.param(str, "STRING", None, id="str"),
        pytest.param(int, "NUMBER", None, id="int"),
        pytest.param(float, "FLOAT", None, id="float"),
        pytest.param(bool, "BOOLEAN", None, id="bool"),
        pytest.param(bytes, "STRING", None, id="bytes"),
        pytest.param(list, "Array", None, id="list"),
        pytest.param(typing.List, "Array", None, id="typing.List-bare"),
        pytest.param(List[int], "Array", None, id="list[int]-typing"),
        pytest.param(List[str], "Array", None, id="List[str]"),
        pytest.param(tuple, "Array", None, id="tuple"),
        pytest.param(Tuple[int, ...], "Array", None, id="Tuple[int, ...]"),
        pytest.param(Tuple[int, str], "Array", None, id="Tuple[int, str]"),
        pytest.param(set, "Array", None, id="set"),
        pytest.param(typing.Set[int], "Array", None, id="Set[int]"),
        pytest.param(frozenset, "Array", None, id="frozenset"),
        pytest.param(Sequence[int], "Array", None, id="Sequence[int]"),
        pytest.param(collections.abc.Sequence, "Array", None, id="abc.Sequence"),
        pytest.param(dict, "OBJECT", None, id="dict"),
        pytest.param(Dict[str, int], "OBJECT", None, id="Dict[str, int]"),
        pytest.param(Mapping, "OBJECT", None, id="Mapping"),
        pytest.param(Mapping[str, int], "OBJECT", None, id="Mapping[str, int]"),
        pytest.param(collections.OrderedDict, "OBJECT", None, id="dict-subclass"),
        pytest.param(Optional[int], "NUMBER", None, id="Optional[int]"),
        pytest.param(Union[int, None], "NUMBER", None, id="Union[int, None]"),
        pytest.param(Optional[List[str]], "Array", None, id="Optional[List[str]]"),
        pytest.param(Union[int, str], "STRING", None, id="Union[int, str]"),
        pytest.param(Literal["C", "F"], "STRING", ["C", "F"], id="Literal-str"),
        pytest.param(Literal[1, 2], "NUMBER", [1, 2], id="Literal-int"),
        pytest.param(Literal[True, False], "BOOLEAN", [True, False], id="Literal-bool"),
        pytest.param(Literal["a", 1], "STRING", ["a", 1], id="Literal-mixed"),
        pytest.param(Optional[Literal["C", "F"]], "STRING", ["C", "F"], id="Optional[Literal]"),
        pytest.param(TypesColor, "STRING", ["red", "green"], id="Enum"),
        pytest.param(TypesLevel, "NUMBER", [1, 2], id="IntEnum"),
        pytest.param(Optional[TypesColor], "STRING", ["red", "green"], id="Optional[Enum]"),
        pytest.param(Any, "STRING", None, id="Any"),
        pytest.param(object, "STRING", None, id="object"),
    ],
)
def test_annotation_maps_to_lagent_type(
    annotation: Any, type_name: str, enum_values: list[Any] | None
) -> None:
    expected: dict[str, Any] = {"name": "x", "type": type_name, "description": "the x"}
    if enum_values is not None:
        expected["enum"] = enum_values
    described = describe_parameter(annotation)
    assert described == expected
    assert list(described) == list(expected)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="X | Y needs Python 3.10")
@pytest.mark.parametrize(
    ("make", "type_name"),
    [
        pytest.param(lambda: int | None, "NUMBER", id="int | None"),
        pytest.param(lambda: list[int] | None, "Array", id="list[int] | None"),
        pytest.param(lambda: int | str, "STRING", id="int | str"),
    ],
)
def test_pipe_union_maps_like_union(make: Any, type_name: str) -> None:
    assert describe_parameter(make()) == {"name": "x", "type": type_name, "description": "the x"}


def test_builtin_generic_list_int_is_array() -> None:
    assert describe_parameter(list[int]) == {"name": "x", "type": "Array", "description": "the x"}


@pytest.mark.parametrize(
    ("annotation", "type_name"),
    [
        pytest.param(Annotated[Optional[int], "x"], "NUMBER", id="Annotated[Optional[int]]"),
        pytest.param(Optional[Annotated[int, "x"]], "NUMBER", id="Optional[Annotated[int]]"),
        pytest.param(Annotated[List[str], "x"], "Array", id="Annotated[List[str]]"),
    ],
)
def test_annotated_takes_the_inner_type_and_its_label(annotation: Any, type_name: str) -> None:
    assert describe_parameter(annotation) == {"name": "x", "type": type_name, "description": "x"}


def test_annotated_literal_keeps_enum_and_label() -> None:
    assert describe_parameter(Annotated[Literal["C", "F"], "unit"]) == {
        "name": "x",
        "type": "STRING",
        "description": "unit",
        "enum": ["C", "F"],
    }


def test_annotated_without_string_metadata_keeps_docstring_description() -> None:
    assert describe_parameter(Annotated[int, 3]) == {"name": "x", "type": "NUMBER", "description": "the x"}


# -- docstring type words for unannotated parameters ----------------------------------


def describe_word(word: str) -> dict[str, Any]:
    """The description of an unannotated ``x`` typed ``word`` in a Google docstring."""

    def probe(x) -> None:
        pass

    probe.__doc__ = f"Probe.\n\nArgs:\n    x ({word}): the x\n"
    return tool_api(probe).api_description["parameters"][0]


@pytest.mark.parametrize(
    ("word", "type_name"),
    [
        pytest.param("str", "STRING", id="str"),
        pytest.param("int", "NUMBER", id="int"),
        pytest.param("float", "FLOAT", id="float"),
        pytest.param("bool", "BOOLEAN", id="bool"),
        pytest.param("list of str", "Array", id="list of str"),
        pytest.param("List[int]", "Array", id="List[int]"),
        pytest.param("tuple", "Array", id="tuple"),
        pytest.param("Optional[int]", "NUMBER", id="Optional[int]"),
        pytest.param("dict", "OBJECT", id="dict"),
        pytest.param("Dict[str, int]", "OBJECT", id="Dict[str, int]"),
        pytest.param("int, optional", "NUMBER", id="int, optional"),
        pytest.param(":class:`float`", "FLOAT", id="role"),
        pytest.param("SomeClass", "STRING", id="unknown-word"),
        pytest.param("pathlib.Path", "STRING", id="unknown-dotted"),
    ],
)
def test_docstring_type_word_maps_to_lagent_type(word: str, type_name: str) -> None:
    assert describe_word(word) == {"name": "x", "type": type_name, "description": "the x"}


def test_unannotated_parameter_without_docstring_type_is_string() -> None:
    def probe(x) -> None:
        """Probe.

        Args:
            x: the x
        """

    assert tool_api(probe).api_description["parameters"] == [
        {"name": "x", "type": "STRING", "description": "the x"}
    ]


# -- from __future__ import annotations -----------------------------------------------


MOVIE_SHAPE = {
    "type": "object",
    "title": "TypesMovie",
    "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
    "required": ["title", "year"],
    "additionalProperties": False,
}
POINT_SHAPE = {
    "type": "object",
    "title": "TypesPoint",
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("annotation", "shape"),
    [
        pytest.param(TypesMovie, MOVIE_SHAPE, id="TypedDict"),
        pytest.param(TypesPoint, POINT_SHAPE, id="dataclass"),
    ],
)
def test_object_annotation_maps_to_object_with_its_keys_after_lagents_keys(
    annotation: Any, shape: dict[str, Any]
) -> None:
    described = describe_parameter(annotation)
    assert described == {"name": "x", "type": "OBJECT", "description": "the x", "schema": shape}
    assert list(described) == ["name", "type", "description", "schema"]


BOX_SHAPE = {
    "type": "object",
    "title": "Box",
    "properties": {"width": {"type": "number"}, "height": {"type": "number"}},
    "required": ["width", "height"],
    "additionalProperties": False,
}
FUTURE_POINT_SHAPE = {
    "type": "object",
    "title": "Point",
    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
    "required": ["x", "y"],
    "additionalProperties": False,
}


def test_future_annotations_function_resolves_string_annotations() -> None:
    assert future.area.api_description == {
        "name": "area",
        "description": "Area of a box.",
        "parameters": [
            {"name": "box", "type": "OBJECT", "description": "the box", "schema": BOX_SHAPE},
            {
                "name": "origin",
                "type": "OBJECT",
                "description": "where it sits",
                "schema": FUTURE_POINT_SHAPE,
            },
            {"name": "scale", "type": "NUMBER", "description": "a factor"},
            {"name": "unit", "type": "STRING", "description": "the unit", "enum": ["cm", "in"]},
            {"name": "shade", "type": "STRING", "description": "the shade", "enum": ["light", "dark"]},
            {"name": "tags", "type": "Array", "description": "labels"},
            {"name": "ratio", "type": "FLOAT", "description": "aspect ratio"},
        ],
        "required": ["box", "origin"],
    }


def test_future_annotations_methods_returning_their_own_class_are_described() -> None:
    assert future.FutureShapes.__tool_description__ == {
        "name": "FutureShapes",
        "description": "Shape tools.",
        "api_list": [
            {
                "name": "grow",
                "description": "Grow a box.",
                "parameters": [
                    {"name": "box", "type": "OBJECT", "description": "the box", "schema": BOX_SHAPE},
                    {"name": "by", "type": "FLOAT", "description": "the factor"},
                ],
                "required": ["box"],
            },
            {
                "name": "corners",
                "description": "Corners of a shape.",
                "parameters": [
                    {
                        "name": "points",
                        "type": "Array",
                        "description": "the corners",
                        "schema": {"type": "array", "items": FUTURE_POINT_SHAPE},
                    }
                ],
                "required": ["points"],
            },
        ],
    }
    shapes = future.FutureShapes()
    assert shapes.grow(future.Box(1.0, 2.0)) is shapes


def test_future_annotations_undecorated_run_returning_its_own_class_is_described() -> None:
    assert future.FutureCounter.__tool_description__ == {
        "name": "FutureCounter",
        "description": "Count from a number.",
        "parameters": [
            {"name": "start", "type": "NUMBER", "description": "where to start"},
            {"name": "step", "type": "NUMBER", "description": "the step"},
        ],
        "required": ["start"],
    }


def test_string_annotations_in_this_module_resolve() -> None:
    # This module also uses ``from __future__ import annotations``.
    @tool_api
    def locate(point: TypesPoint, level: TypesLevel = TypesLevel.LOW) -> Optional[TypesPoint]:
        """Locate."""
        return point

    assert locate.api_description["parameters"] == [
        {"name": "point", "type": "OBJECT", "description": "", "schema": POINT_SHAPE},
        {"name": "level", "type": "NUMBER", "description": "", "enum": [1, 2]},
    ]


def broken(x: NoSuchType, y: int = 0) -> None:  # noqa: F821 - unresolvable on purpose
    """Broken."""


def test_unresolvable_annotation_raises_naming_function_and_annotation() -> None:
    pattern = r"^broken: cannot resolve the annotation 'NoSuchType' of parameter 'x': NameError"
    with pytest.raises(ToolDefinitionError, match=pattern) as info:
        tool_api(broken)
    assert len(info.value.problems) == 1
