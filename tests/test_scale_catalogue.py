"""Catalogues of many tools (issue 25): what changes with size, checked by behaviour, never by time."""

from __future__ import annotations

import copy
import json
import pickle
import types
from typing import Any, Callable

import pytest
from _catalogue import count_route_builds, simple_tool

from lagent_like import ActionExecutor, BaseAction, FunctionTool, Hook, tool_api
from lagent_like._private._names_index import NameIndex
from lagent_like._private.text import MAX_LISTED, close_matches, listing

TOO_MANY = "too many to list here (all are in the tool descriptions you were given)"


@pytest.fixture
def route_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The call names whose routes executors resolve from now on, in order."""
    return count_route_builds(monkeypatch)


def catalogue(size: int) -> list[BaseAction]:
    """``size`` simple tools ``Scale000``, ``Scale001``, ..."""
    return [simple_tool(f"Scale{i:03d}") for i in range(size)]


def wide_toolkit(width: int) -> BaseAction:
    """A toolkit ``WideKit`` of ``width`` APIs ``api000``, ``api001``, ..."""

    def api(i: int) -> Callable[..., Any]:
        def method(self: Any, a: int) -> int:
            """Echo a number.

            Args:
                a: a number
            """
            return a

        method.__name__ = method.__qualname__ = f"api{i:03d}"
        return tool_api(method)

    methods = {f"api{i:03d}": api(i) for i in range(width)}
    methods["__doc__"] = "A wide toolkit."
    kit = types.new_class("WideKit", (BaseAction,), {"register": False}, lambda ns: ns.update(methods))
    return kit()  # type: ignore[no-any-return]


def wide_function(width: int) -> FunctionTool:
    """A ``FunctionTool`` ``wide`` of ``width`` optional int parameters ``p000``, ``p001``, ..."""
    params = ", ".join(f"p{i:03d}: int = 0" for i in range(width))
    namespace: dict[str, Any] = {}
    exec(f"def wide({params}) -> int:\n    '''Sum.'''\n    return 0\n", namespace)
    return FunctionTool(namespace["wide"])


# --------------------------------------------------------------------------- one tool, not all


@pytest.mark.parametrize(
    ("added", "expected"),
    [
        pytest.param(lambda: simple_tool("Extra"), ["Extra"], id="simple-tool"),
        pytest.param(
            lambda: wide_toolkit(3), ["WideKit.api000", "WideKit.api001", "WideKit.api002"], id="toolkit"
        ),
    ],
)
def test_add_action_resolves_only_the_new_tools_routes(
    route_builds: list[str], added: Callable[[], BaseAction], expected: list[str]
) -> None:
    executor = ActionExecutor(catalogue(50))
    route_builds.clear()
    executor.add_action(added())
    assert route_builds == expected
    assert executor(expected[0], '{"a": 4}').result == [{"type": "text", "content": "4"}]


def test_del_action_and_disable_resolve_no_route(route_builds: list[str]) -> None:
    executor = ActionExecutor(catalogue(50))
    route_builds.clear()
    executor.del_action("Scale007")
    executor.disable("Scale008")
    executor.enable("Scale008")
    assert route_builds == []
    assert "Scale007" not in executor
    assert executor("Scale008", '{"a": 1}').result == [{"type": "text", "content": "1"}]


def test_replacing_a_tool_of_the_same_name_resolves_only_the_new_one(route_builds: list[str]) -> None:
    executor = ActionExecutor(catalogue(3))
    route_builds.clear()
    executor.add_action(simple_tool("Scale001"))
    assert route_builds == ["Scale001"]


def test_second_executor_over_the_same_tools_resolves_no_route(route_builds: list[str]) -> None:
    tools = catalogue(20)
    ActionExecutor(tools)
    route_builds.clear()
    executor = ActionExecutor(tools)
    assert route_builds == []
    assert executor("Scale003", '{"a": 3}').result == [{"type": "text", "content": "3"}]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda executor: setattr(executor, "timeout", 5.0), id="executor-timeout"),
        pytest.param(lambda executor: executor.register_hook(Hook()), id="hook"),
    ],
)
def test_changed_executor_settings_resolve_every_route_again(
    route_builds: list[str], change: Callable[[ActionExecutor], Any]
) -> None:
    executor = ActionExecutor(catalogue(3))
    route_builds.clear()
    change(executor)
    assert route_builds == ["Scale000", "Scale001", "Scale002"]
    assert executor._routes["Scale001"].direct is False


def illegal_named(name: str) -> BaseAction:
    """A simple tool whose name is not a legal function-calling name."""
    return simple_tool(name)


@pytest.mark.parametrize(
    "added",
    [
        pytest.param(lambda: simple_tool("Extra"), id="legal-name"),
        pytest.param(lambda: illegal_named("my tool"), id="illegal-name"),
        pytest.param(lambda: wide_toolkit(2), id="toolkit-aliases"),
        pytest.param(lambda: simple_tool("my_tool"), id="legal-name-equal-to-an-alias"),
    ],
)
def test_added_tool_gets_the_names_a_rebuild_would_give(added: Callable[[], BaseAction]) -> None:
    tools = [*catalogue(3), illegal_named("my tool!")]
    grown = ActionExecutor(tools)
    new = added()
    grown.add_action(new)
    whole = ActionExecutor([*tools, new])
    assert grown._aliases == whole._aliases
    assert grown._canonical == whole._canonical
    assert list(grown._names) == list(whole._names)
    assert set(grown._routes) == set(whole._routes)


def test_deleted_tool_leaves_the_other_names_as_they_were() -> None:
    executor = ActionExecutor([*catalogue(3), wide_toolkit(2), illegal_named("my tool")])
    aliases = dict(executor._aliases)
    executor.del_action("WideKit")
    assert executor._aliases == {n: a for n, a in aliases.items() if not n.startswith("WideKit.")}
    simple = ["Scale000", "Scale001", "Scale002"]
    assert sorted(executor._routes) == sorted(
        [*simple, *(f"{n}.run" for n in simple), "my tool", "my tool.run", "my_tool"]
    )
    assert executor("WideKit.api000", '{"a": 1}').errmsg.startswith("Unknown tool 'WideKit.api000'.")


# --------------------------------------------------------------------------- unknown names


@pytest.mark.parametrize(
    ("name", "errmsg"),
    [
        pytest.param(
            "Scale017x",
            "Unknown tool 'Scale017x'. Did you mean 'Scale017' or 'Scale010' or 'Scale011'? "
            f"Available tools: 200 in all, {TOO_MANY}.",
            id="typo",
        ),
        pytest.param(
            "scale017",
            "Unknown tool 'scale017'. Did you mean 'Scale017' or 'Scale010' or 'Scale011'? "
            f"Available tools: 200 in all, {TOO_MANY}.",
            id="case-first",
        ),
        pytest.param(
            "zzzz", f"Unknown tool 'zzzz'. Available tools: 200 in all, {TOO_MANY}.", id="nothing-close"
        ),
    ],
)
def test_unknown_tool_in_a_catalogue_names_a_few_close_ones_and_counts_the_rest(
    name: str, errmsg: str
) -> None:
    executor = ActionExecutor(catalogue(200))
    assert executor(name, "{}").errmsg == errmsg


def test_unknown_tool_never_suggests_a_disabled_one() -> None:
    executor = ActionExecutor(catalogue(200))
    executor.disable("Scale017")
    assert executor("Scale017x", "{}").errmsg == (
        "Unknown tool 'Scale017x'. Did you mean 'Scale010' or 'Scale011' or 'Scale012'? "
        f"Available tools: 200 in all, {TOO_MANY}."
    )


def test_unknown_tool_in_a_small_executor_still_lists_every_tool() -> None:
    executor = ActionExecutor(catalogue(MAX_LISTED))
    names = ", ".join(f"Scale{i:03d}" for i in range(MAX_LISTED))
    assert executor("zzzz", "{}").errmsg == f"Unknown tool 'zzzz'. Available tools: {names}."


def test_unknown_api_of_a_large_toolkit_names_a_few_close_ones_and_counts_the_rest() -> None:
    executor = ActionExecutor([wide_toolkit(100)])
    assert executor("WideKit.api01x", "{}").errmsg == (
        "WideKit has no API 'api01x'. Did you mean 'api010' or 'api011' or 'api012'? "
        f"Call one of: 100 in all, {TOO_MANY}"
    )


def test_unknown_parameter_of_a_wide_api_names_one_close_one_and_counts_the_rest() -> None:
    executor = ActionExecutor([wide_function(100)])
    assert executor("wide", json.dumps({"p01x": 1})).errmsg == (
        f"wide: 'p01x' is not a parameter (did you mean 'p010'?); parameters: 100 in all, {TOO_MANY}"
    )


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        pytest.param("tool_1234", ["Tool_1234", "Tool_123"], id="same-spelling-ignoring-case-first"),
        pytest.param("Tool_12345", ["Tool_1234", "Tool_123"], id="typo"),
        pytest.param("x" * 40, [], id="far-longer-than-any-name"),
        pytest.param("qqqq", [], id="nothing-shared"),
    ],
)
def test_name_index_finds_close_names_among_thousands(word: str, expected: list[str]) -> None:
    index = NameIndex(f"Tool_{i}" for i in range(5_000))
    assert index.close(word, limit=2) == expected
    assert close_matches(word, index, limit=2) == expected


def test_listing_names_up_to_the_limit_and_counts_beyond_it() -> None:
    assert listing([f"n{i}" for i in range(MAX_LISTED)]) == ", ".join(f"n{i}" for i in range(MAX_LISTED))
    assert listing([f"n{i}" for i in range(MAX_LISTED + 1)]) == f"{MAX_LISTED + 1} in all, {TOO_MANY}"
    assert listing([]) == "none"


# --------------------------------------------------------------------------- shared descriptions


READ_ONLY = r"read-only; edit a copy made with copy\.deepcopy\(\)"


def test_actions_info_entries_are_new_dicts_over_read_only_parts() -> None:
    executor = ActionExecutor([simple_tool("Shared")])
    entry = executor.get_actions_info()[0]
    entry["description"] = "mine"
    entry["extra"] = 1
    with pytest.raises(TypeError, match=READ_ONLY):
        entry["parameters"][0]["description"] = "changed"
    with pytest.raises(TypeError, match=READ_ONLY):
        entry["required"].append("b")
    assert executor.get_actions_info()[0]["description"] == "Echo a number."
    assert "extra" not in executor.get_actions_info()[0]


def test_actions_info_follows_edits_of_the_tools_own_description() -> None:
    tool = simple_tool("Edited")
    executor = ActionExecutor([tool])
    executor.get_actions_info()
    tool.description["parameters"][0]["description"] = "a new text"
    assert executor.get_actions_info()[0]["parameters"][0]["description"] == "a new text"


@pytest.mark.parametrize(
    "copied",
    [
        pytest.param(copy.deepcopy, id="deepcopy"),
        pytest.param(lambda value: pickle.loads(pickle.dumps(value)), id="pickle"),
        pytest.param(lambda value: json.loads(json.dumps(value)), id="json"),
    ],
)
def test_read_only_parts_copy_as_plain_editable_values(copied: Callable[[Any], Any]) -> None:
    executor = ActionExecutor([simple_tool("Copied")])
    entry = copied(executor.to_openai_tools()[0])
    entry["function"]["parameters"]["properties"]["a"]["description"] = "edited"
    assert type(entry["function"]["parameters"]["required"]) is list
    assert (
        executor.to_openai_tools()[0]["function"]["parameters"]["properties"]["a"]["description"]
        == "a number"
    )
