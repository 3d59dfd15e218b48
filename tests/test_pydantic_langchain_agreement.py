"""LangChain tools through ``from_langchain`` agree with the same tools called directly.

The tools are small copies of langchain-community's offline ones (file management:
``write_file``, ``file_search``) and of ``StructuredTool``/``@tool`` tools with nested
pydantic models; the cases are those where checking the arguments with the family table
first disagreed with the tool's own pydantic validation. Run against the real tools
(langchain-community 0.4.2, langchain-core 1.8: the seven file-management tools, the two
JSON-spec tools and three tools like these), 55 calls: 41 agreed before, 54 after; the
one left is ``json_spec_list_keys`` given an integer, which the tool itself answers with
a ``TypeError`` text and the executor refuses by its signature's model.
"""

from __future__ import annotations

import fnmatch
import json
import os
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip(
    "pydantic", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
)
tools = pytest.importorskip(
    "langchain_core.tools",
    reason="needs the 'langchain' extra: pip install '.[langchain]' (or 'lagent-like[langchain]')",
)

from pydantic import BaseModel, Field  # noqa: E402

from lagent_like import ActionExecutor, ActionStatusCode  # noqa: E402


class WriteArgs(BaseModel):
    file_path: str = Field(description="name of file")
    text: str = Field(description="text to write to file")
    append: bool = Field(default=False, description="Whether to append to an existing file.")


class LcWriteFile(tools.BaseTool):
    """langchain-community's ``WriteFileTool``, in small."""

    name: str = "write_file"
    description: str = "Write file to disk"
    args_schema: type[BaseModel] = WriteArgs
    root_dir: str

    def _run(self, file_path: str, text: str, append: bool = False, run_manager: Any = None) -> str:
        with open(os.path.join(self.root_dir, file_path), "a" if append else "w") as f:
            f.write(text)
        return f"File written successfully to {file_path}."


class SearchArgs(BaseModel):
    dir_path: str = Field(default=".", description="Subdirectory to search in.")
    pattern: str = Field(description="Unix shell regex, where * matches everything.")


class LcFileSearch(tools.BaseTool):
    """langchain-community's ``FileSearchTool``, in small."""

    name: str = "file_search"
    description: str = "Recursively search for files in a subdirectory that match the regex pattern"
    args_schema: type[BaseModel] = SearchArgs
    root_dir: str

    def _run(self, pattern: str, dir_path: str = ".", run_manager: Any = None) -> str:
        top = os.path.join(self.root_dir, dir_path)
        found = sorted(
            os.path.relpath(os.path.join(here, name), top)
            for here, _, names in os.walk(top)
            for name in fnmatch.filter(names, pattern)
        )
        return "\n".join(found) if found else f"No files found for pattern {pattern} in directory {dir_path}"


class Addr(BaseModel):
    street: str
    zip: int


class Order(BaseModel):
    item: str = Field(description="what")
    qty: int = 1
    ship_to: Addr
    gift: Optional[Addr] = None


class PlaceArgs(BaseModel):
    order: Order
    express: bool = False


def place(order: Order, express: bool = False) -> str:
    """Place an order."""
    return f"{order.item}x{order.qty}->{order.ship_to.street}/{order.ship_to.zip} express={express}"


@tools.tool
def area(width: float, height: float, unit: str = "m") -> str:
    """Area of a rectangle."""
    return f"{width * height}{unit}2"


@tools.tool
def tag(words: list[str], upper: bool = False) -> str:
    """Join words."""
    return ",".join(w.upper() if upper else w for w in words)


def _build(name: str, root: Path) -> Any:
    (root / "a.txt").write_text("alpha\n")
    (root / "sub").mkdir()
    (root / "sub" / "b.md").write_text("beta")
    made = {
        "write_file": lambda: LcWriteFile(root_dir=str(root)),
        "file_search": lambda: LcFileSearch(root_dir=str(root)),
        "place": lambda: tools.StructuredTool.from_function(place, args_schema=PlaceArgs),
        "area": lambda: area,
        "tag": lambda: tag,
    }
    return made[name]()


ORDER = {"item": "pen", "ship_to": {"street": "a", "zip": 1}}


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        pytest.param("write_file", {"file_path": "n.txt", "text": "hi"}, id="write-ok"),
        pytest.param("write_file", {"file_path": "n.txt", "text": 42}, id="write-integer-text-refused"),
        pytest.param(
            "write_file", {"file_path": "n.txt", "text": "x", "append": "yes"}, id="write-append-yes"
        ),
        pytest.param("write_file", {"file_path": "n.txt"}, id="write-missing-text"),
        pytest.param("file_search", {"pattern": "*.md"}, id="search-ok"),
        pytest.param("file_search", {"pattern": 7}, id="search-integer-pattern-refused"),
        pytest.param("place", {"order": ORDER}, id="place-ok"),
        pytest.param(
            "place",
            {"order": {**ORDER, "qty": "2", "ship_to": {"street": "a", "zip": "07"}}},
            id="place-parses",
        ),
        pytest.param("place", {"order": {**ORDER, "item": 5}}, id="place-nested-integer-item-refused"),
        pytest.param("place", {"order": ORDER, "express": "yes"}, id="place-express-yes"),
        pytest.param("place", {"order": ORDER, "express": 1}, id="place-express-one"),
        pytest.param("place", {"order": json.dumps(ORDER)}, id="place-json-text-refused"),
        pytest.param(
            "place", {"order": {**ORDER, "gift": {"street": True, "zip": 2}}}, id="place-gift-refused"
        ),
        pytest.param("area", {"width": "2", "height": 3}, id="area-parses"),
        pytest.param("area", {"width": 2, "height": 3, "unit": 5}, id="area-integer-unit-refused"),
        pytest.param("area", {"width": True, "height": 3}, id="area-boolean-width"),
        pytest.param("tag", {"words": ["a", 1]}, id="tag-integer-word-refused"),
        pytest.param("tag", {"words": ["a"], "upper": "true"}, id="tag-upper-true"),
    ],
)
def test_a_langchain_tool_answers_through_the_executor_as_it_does_directly(
    name: str, arguments: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "direct").mkdir()
    (tmp_path / "executor").mkdir()
    try:
        direct: Optional[str] = str(_build(name, tmp_path / "direct").invoke(arguments))
    except Exception:  # noqa: BLE001 - any refusal of the direct call
        direct = None
    ret = ActionExecutor([_build(name, tmp_path / "executor")])(name, json.dumps(arguments))
    if direct is None:
        assert ret.state == ActionStatusCode.ARGS_ERROR, ret
    else:
        assert (ret.state, ret.result) == (ActionStatusCode.SUCCESS, [{"type": "text", "content": direct}])


def test_a_nested_refusal_names_every_field_path_of_the_tools_model() -> None:
    tool = tools.StructuredTool.from_function(place, args_schema=PlaceArgs)
    sent = {"order": {"item": 5, "ship_to": {"zip": "x"}}, "express": "maybe"}
    ret = ActionExecutor([tool])("place", json.dumps(sent))
    assert (ret.state, ret.errmsg) == (
        ActionStatusCode.ARGS_ERROR,
        "place: 'order.item' input should be a valid string (got integer 5); "
        "'order.ship_to.street' is required; "
        "'order.ship_to.zip' input should be a valid integer, unable to parse string as an integer "
        "(got string 'x'); "
        "'express' input should be a valid boolean, unable to interpret input (got string 'maybe')",
    )


def test_a_langchain_tools_nested_model_is_described_with_its_keys() -> None:
    tool = tools.StructuredTool.from_function(place, args_schema=PlaceArgs)
    (entry,) = ActionExecutor([tool]).get_actions_info()
    order = entry["parameters"][0]
    assert (order["name"], order["type"]) == ("order", "OBJECT")
    assert order["schema"]["properties"]["ship_to"]["required"] == ["street", "zip"]
