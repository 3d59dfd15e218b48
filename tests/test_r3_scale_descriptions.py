"""Issue 25, third round: descriptions and exports are copied once, and still follow every edit."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any, Callable

import pytest

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like._private._watched import WatchedDict, WatchedList
from lagent_like.toolkits import _tool_state


class Echo(BaseAction, register=False):
    """A tool."""

    def run(self, a: int, b: int = 0) -> int:
        """Echo a number.

        Args:
            a: a number
            b: another
        """
        return a + b


class Shelf(BaseAction, register=False):
    """A shelf of items."""

    @tool_api
    def count(self, item: str) -> int:
        """Count an item.

        Args:
            item: what to count
        """
        return len(item)


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the tools whose read-only description is made from now on."""
    made: list[str] = []
    freeze = _tool_state.frozen

    def counted(value: Any) -> Any:
        made.append(value.get("name"))
        return freeze(value)

    monkeypatch.setattr(_tool_state, "frozen", counted)
    return made


def test_unchanged_descriptions_are_copied_once_and_never_compared(copies: list[str]) -> None:
    executor = ActionExecutor([Echo(), Shelf()])
    first = executor.get_actions_info()
    second = executor.get_actions_info()
    assert copies == ["Echo", "Shelf"]
    assert first == second
    assert first[0]["parameters"] is second[0]["parameters"]


def text(entry: dict[str, Any]) -> Any:
    """The tool's description text."""
    return entry["description"]


def first_parameter(entry: dict[str, Any]) -> Any:
    """The description of the first parameter."""
    return entry["parameters"][0]["description"]


def required(entry: dict[str, Any]) -> Any:
    """The required parameters."""
    return entry["required"]


def order(entry: dict[str, Any]) -> Any:
    """The parameters' names, in order."""
    return [p["name"] for p in entry["parameters"]]


def hint(entry: dict[str, Any]) -> Any:
    """The parser's hint, ``None`` when removed."""
    return entry.get("parameter_description")


EDITS = [
    pytest.param(lambda d: d.__setitem__("description", "New."), text, "New.", id="setitem"),
    pytest.param(
        lambda d: d["parameters"][0].__setitem__("description", "New."), first_parameter, "New.", id="nested"
    ),
    pytest.param(lambda d: d["required"].append("b"), required, ["a", "b"], id="append"),
    pytest.param(lambda d: d["required"].extend(["b"]), required, ["a", "b"], id="extend"),
    pytest.param(lambda d: d["required"].insert(0, "b"), required, ["b", "a"], id="insert"),
    pytest.param(lambda d: d["required"].pop(), required, [], id="list-pop"),
    pytest.param(lambda d: d["required"].remove("a"), required, [], id="remove"),
    pytest.param(lambda d: d["required"].clear(), required, [], id="list-clear"),
    pytest.param(lambda d: d["parameters"].reverse(), order, ["b", "a"], id="reverse"),
    pytest.param(
        lambda d: d["parameters"].sort(key=lambda p: p["name"], reverse=True), order, ["b", "a"], id="sort"
    ),
    pytest.param(lambda d: d["required"].__iadd__(["b"]), required, ["a", "b"], id="iadd"),
    pytest.param(lambda d: d["required"].__imul__(2), required, ["a", "a"], id="imul"),
    pytest.param(lambda d: d["required"].__setitem__(slice(0, 1), ["b"]), required, ["b"], id="slice"),
    pytest.param(lambda d: d["required"].__delitem__(0), required, [], id="list-delitem"),
    pytest.param(lambda d: d.update(description="New."), text, "New.", id="update"),
    pytest.param(lambda d: d.__ior__({"description": "New."}), text, "New.", id="ior"),
    pytest.param(lambda d: d.pop("parameter_description"), hint, None, id="dict-pop"),
    pytest.param(lambda d: d.__delitem__("parameter_description"), hint, None, id="dict-delitem"),
    pytest.param(lambda d: d.popitem(), hint, None, id="popitem"),
    pytest.param(lambda d: d.setdefault("extra", "x"), lambda e: e.get("extra"), "x", id="setdefault"),
]


@pytest.mark.parametrize(("edit", "read", "expected"), EDITS)
def test_every_edit_of_the_tools_own_description_is_seen(
    edit: Callable[[dict[str, Any]], Any], read: Callable[[dict[str, Any]], Any], expected: Any
) -> None:
    tool = Echo()
    executor = ActionExecutor([tool])
    before = read(executor.get_actions_info()[0])
    edit(tool.description)
    assert before != expected
    assert read(executor.get_actions_info()[0]) == expected


def test_a_plain_dict_stored_in_a_description_is_followed_by_comparing() -> None:
    tool = Echo()
    executor = ActionExecutor([tool])
    executor.get_actions_info()
    parameter = {"name": "a", "type": "NUMBER", "description": "plain"}
    tool.description["parameters"][0] = parameter
    assert executor.get_actions_info()[0]["parameters"][0]["description"] == "plain"
    parameter["description"] = "edited later"
    assert executor.get_actions_info()[0]["parameters"][0]["description"] == "edited later"
    assert tool.description["parameters"][0] is parameter


def test_a_plain_dict_stored_in_a_description_is_followed_by_exports() -> None:
    tool = Shelf()
    executor = ActionExecutor([tool])
    executor.to_openai_tools()
    api = {**tool.description["api_list"][0], "description": "plain"}
    tool.description["api_list"] = [api]
    assert executor.to_openai_tools()[0]["function"]["description"] == "plain"
    api["description"] = "edited later"
    assert executor.to_openai_tools()[0]["function"]["description"] == "edited later"


@pytest.mark.parametrize(
    ("tool", "edit", "export", "expected"),
    [
        pytest.param(
            Echo(),
            lambda d: d.__setitem__("description", "New."),
            lambda e: e.to_openai_tools()[0]["function"]["description"],
            "New.",
            id="openai-simple",
        ),
        pytest.param(
            Shelf(),
            lambda d: d["api_list"][0].__setitem__("description", "New."),
            lambda e: e.to_openai_tools()[0]["function"]["description"],
            "New.",
            id="openai-toolkit-api",
        ),
        pytest.param(
            Echo(),
            lambda d: d.__setitem__("description", "New."),
            lambda e: e.to_anthropic_tools()[0]["description"],
            "New.",
            id="anthropic",
        ),
        pytest.param(
            Shelf(),
            lambda d: d["api_list"][0].__setitem__("description", "New."),
            lambda e: e.to_mcp_tools()[0]["description"],
            "New.",
            id="mcp",
        ),
        pytest.param(
            Echo(),
            lambda d: d.__setitem__("description", "New."),
            lambda e: e.to_gemini_tools()[0]["functionDeclarations"][0]["description"],
            "New.",
            id="gemini",
        ),
    ],
)
def test_an_edit_of_the_description_is_seen_by_a_cached_export(
    tool: BaseAction, edit: Callable[[dict[str, Any]], Any], export: Callable[[Any], Any], expected: str
) -> None:
    executor = ActionExecutor([tool])
    export(executor)
    edit(tool.description)
    assert export(executor) == expected


def test_a_second_executor_exports_each_api_from_rows_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = [Echo(), Shelf()]
    ActionExecutor(tools).to_openai_tools()
    made: list[str] = []
    monkeypatch.setattr(_tool_state, "_shared_schema", lambda spec: made.append(spec.name))
    exported = ActionExecutor(tools).to_openai_tools()
    assert made == []
    assert [t["function"]["name"] for t in exported] == ["Echo", "Shelf__count"]


def test_openai_export_entries_are_new_dicts_over_shared_schemas() -> None:
    executor = ActionExecutor([Echo()])
    first = executor.to_openai_tools()
    first[0]["function"]["description"] = "mine"
    first[0]["extra"] = 1
    second = executor.to_openai_tools()
    assert second == [
        {
            "type": "function",
            "function": {
                "name": "Echo",
                "description": "Echo a number.",
                "parameters": first[0]["function"]["parameters"],
            },
        }
    ]
    assert second[0]["function"]["parameters"] is first[0]["function"]["parameters"]


@pytest.mark.parametrize(
    "copier",
    [
        pytest.param(copy.deepcopy, id="deepcopy"),
        pytest.param(lambda d: pickle.loads(pickle.dumps(d)), id="pickle"),
        pytest.param(lambda d: json.loads(json.dumps(d)), id="json"),
    ],
)
def test_a_description_copies_deeply_as_plain_dicts_and_lists(copier: Callable[[Any], Any]) -> None:
    description = Echo().description
    assert isinstance(description, WatchedDict) and isinstance(description["parameters"], WatchedList)
    copied = copier(description)
    assert type(copied) is dict
    assert type(copied["parameters"]) is list
    assert type(copied["parameters"][0]) is dict
    assert copied == description


def test_a_shallow_copy_of_a_description_is_a_plain_dict_sharing_the_parts() -> None:
    description = Echo().description
    copied = copy.copy(description)
    assert type(copied) is dict
    assert copied["parameters"] is description["parameters"]


class Hidden(BaseAction, register=False):
    """A tool whose class decides ``enable`` itself."""

    @property
    def enable(self) -> bool:
        """Never offered."""
        return False

    def run(self, a: int) -> int:
        """Echo a number.

        Args:
            a: a number
        """
        return a


class OwnSchema(BaseAction, register=False):
    """A tool whose class writes its own JSON Schema."""

    def json_schema(self, name: str = "run") -> dict[str, Any]:
        """A schema of its own."""
        return {"type": "object", "properties": {"own": {"type": "string"}}}

    def run(self, own: str) -> str:
        """Echo a text.

        Args:
            own: a text
        """
        return own


def test_a_class_of_its_own_enable_is_asked_by_descriptions_and_exports() -> None:
    executor = ActionExecutor([Echo(), Hidden()])
    assert [entry["name"] for entry in executor.get_actions_info()] == ["Echo"]
    assert [tool["function"]["name"] for tool in executor.to_openai_tools()] == ["Echo"]
    assert [tool["name"] for tool in executor.to_anthropic_tools()] == ["Echo"]


def test_a_class_of_its_own_json_schema_is_asked_by_every_export() -> None:
    tools = [OwnSchema()]
    ActionExecutor(tools).to_openai_tools()
    (exported,) = ActionExecutor(tools).to_openai_tools()
    assert exported["function"]["parameters"] == {"type": "object", "properties": {"own": {"type": "string"}}}


def test_describing_and_exporting_read_no_tools_state_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from lagent_like.executors import _base

    executor = ActionExecutor([Echo(), Shelf()])
    reads: list[object] = []
    state_of = _base.state_of
    monkeypatch.setattr(_base, "state_of", lambda action: reads.append(action) or state_of(action))
    executor.get_actions_info()
    executor.to_openai_tools()
    executor.to_anthropic_tools()
    assert reads == []


def test_an_action_put_into_actions_directly_is_described() -> None:
    executor = ActionExecutor([Echo()])
    executor.get_actions_info()
    executor.actions["Shelf"] = Shelf()
    assert [entry["name"] for entry in executor.get_actions_info()] == ["Echo", "Shelf.count"]
