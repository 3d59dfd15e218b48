"""Catalogue builds and unknown names of issue 25's fourth round, checked by behaviour (counters), never by time."""

from __future__ import annotations

import difflib
import random
import warnings
from typing import Any, Callable

import pytest
from _catalogue import tool_class

from lagent_like import ActionExecutor, BaseAction, ToolSettings, tool_api
from lagent_like._private import _names_index
from lagent_like._private._names_index import _QUICK_BUDGET, NameIndex
from lagent_like.exceptions import DefinitionWarning
from lagent_like.executors import _base, _one_pass
from lagent_like.toolkits import _tool_state
from lagent_like.toolkits._tool_state import state_of

TOO_MANY = "too many to list here (all are in the tool descriptions you were given)"


def catalogue(size: int, prefix: str = "Cat") -> list[BaseAction]:
    """``size`` simple tools ``Cat00000``..."""
    return [tool_class(f"{prefix}{i:05d}")() for i in range(size)]


class Shelf(BaseAction, register=False):
    """Stock of a shelf."""

    @tool_api
    def count(self, item: str) -> int:
        """Count an item.

        Args:
            item: what to count
        """
        return len(item)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many builds went in one pass, or resolved routes."""
    counts = {"one pass": 0, "resolved": 0}

    def counting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            found = function(*args)
            counts[name] += found is not None and found is not False
            return found

        return counted

    monkeypatch.setattr(_base, "one_pass", counting("one pass", _one_pass.one_pass))
    monkeypatch.setattr(_base.ExecutorBase, "_route", counting("resolved", _base.ExecutorBase._route))
    return counts


# --------------------------------------------------------------------------- building


def test_a_second_executor_over_the_same_tools_is_built_in_one_pass(builds: dict[str, int]) -> None:
    tools = catalogue(40)
    first = ActionExecutor(tools)
    second = ActionExecutor(list(tools))
    assert (builds["one pass"], builds["resolved"]) == (1, 40)  # the second reused the kept routes
    assert second._routes == first._routes and second._routes is not first._routes
    assert second._names is not first._names and second.actions is not first.actions
    assert second("Cat00003", '{"a": 5}').result == [{"type": "text", "content": "5"}]


class EqualTool(BaseAction, register=False):
    """A tool whose instances all compare equal (a user's ``__eq__``)."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EqualTool)

    __hash__ = BaseAction.__hash__

    def run(self) -> str:
        """Say which instance answered."""
        return self.label


def test_an_executor_calls_its_own_tools_though_another_holds_equal_ones() -> None:
    ActionExecutor([EqualTool("first")])
    second = ActionExecutor([EqualTool("second")])
    assert second("EqualTool", "{}").result == [{"type": "text", "content": "second"}]


def test_executors_over_the_same_tools_change_apart() -> None:
    tools = catalogue(40)
    first = ActionExecutor(tools)
    second = ActionExecutor(list(tools))
    second.del_action("Cat00001")
    second.add_action(tool_class("Extra")())
    assert "Cat00001" in first._routes and "Extra" not in first._routes
    assert "Cat00001" not in second._routes and "Extra" in second._routes
    third = ActionExecutor(list(tools))
    assert "Cat00001" in third._routes and "Extra" not in third._routes


def test_a_catalogue_in_another_order_is_built_in_one_pass_in_that_order(builds: dict[str, int]) -> None:
    tools = catalogue(40)
    ActionExecutor(tools)
    turned = ActionExecutor(tools[::-1])
    assert (builds["one pass"], builds["resolved"]) == (1, 40)
    assert list(turned.actions) == [tool.name for tool in tools[::-1]]
    assert list(turned._names) == list(turned.actions)
    assert turned._canonical["Cat00007.run"] == "Cat00007"
    assert turned("Cat00007.run", '{"a": 2}').result == [{"type": "text", "content": "2"}]


def test_settings_set_on_a_tool_after_a_build_reach_the_next_executor(builds: dict[str, int]) -> None:
    tools = catalogue(40)
    ActionExecutor(tools)
    tools[3].__tool_settings__ = ToolSettings(timeout=1.5)  # written into the instance, unseen
    again = ActionExecutor(list(tools))
    assert builds["one pass"] == 0  # a tool with settings of its own takes the general build
    assert again._names["Cat00003"].timeout == 1.5 and again._names["Cat00004"].timeout is None


@pytest.mark.parametrize(
    ("change", "timeout"),
    [
        pytest.param(lambda cls: setattr(cls, "__tool_settings__", ToolSettings(timeout=2.5)), 2.5, id="set"),
        pytest.param(lambda cls: delattr(cls, "__tool_settings__"), None, id="deleted"),
    ],
)
def test_settings_changed_on_a_tool_class_after_a_build_reach_the_next_executor(
    change: Callable[[type], None], timeout: Any
) -> None:
    cls = tool_class("Classy")
    cls.__tool_settings__ = ToolSettings(timeout=9.0)
    tools = [cls(), *catalogue(40)]
    assert ActionExecutor(tools)._names["Classy"].timeout == 9.0
    change(cls)
    assert ActionExecutor(list(tools))._names["Classy"].timeout == timeout


@pytest.mark.parametrize(
    "described", [pytest.param(False, id="as-is"), pytest.param(True, id="described-since")]
)
def test_a_tool_removed_from_a_recent_executors_actions_directly_is_not_routed_by_the_next(
    described: bool,
) -> None:
    tools = catalogue(40)
    first = ActionExecutor(tools)
    del first.actions["Cat00039"]  # no table change: the tables no longer match the actions
    if described:
        first.get_actions_info()  # reads the actions again
    second = ActionExecutor(tools[:-1])
    assert "Cat00039" not in second._routes
    assert second("Cat00039", "{}").errmsg.startswith("Unknown tool 'Cat00039'.")


def test_an_attribute_named_like_a_setting_warns_at_every_build() -> None:
    tools = catalogue(40)
    tools[0].timeout = 5.0  # read by nothing: the executor says so each time it is given the tool
    for _ in range(2):
        with pytest.warns(DefinitionWarning, match="timeout = 5.0"):
            ActionExecutor(list(tools))


def test_a_catalogue_with_a_toolkit_and_functions_is_built_as_before(builds: dict[str, int]) -> None:
    def units() -> int:
        """Count the units."""
        return 3

    tools: list[Any] = [*catalogue(40), Shelf()]
    ActionExecutor(tools)
    executor = ActionExecutor([*tools, units])
    assert builds["one pass"] == 0  # a function is wrapped: the general build
    assert executor("Shelf.count", '{"item": "abc"}').result == [{"type": "text", "content": "3"}]
    assert executor("units", "{}").result == [{"type": "text", "content": "3"}]


def test_a_lagent_config_in_a_list_is_built() -> None:
    executor = ActionExecutor([*catalogue(3), {"type": tool_class("FromConfig")}])
    assert "FromConfig" in executor.actions


def test_two_tools_of_one_name_are_refused_by_any_build() -> None:
    tools = catalogue(40)
    ActionExecutor(tools)
    with pytest.raises(Exception, match=r"several actions are named \['Cat00002'\]"):
        ActionExecutor([*tools, tool_class("Cat00002")()])


def test_executors_are_watched_once_each_not_once_per_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    registry: dict[int, Any] = {}
    monkeypatch.setattr(_tool_state, "_EXECUTORS", registry)
    tools = catalogue(200)
    executors = [ActionExecutor(list(tools)) for _ in range(3)]
    assert sorted(registry) == sorted(map(id, executors))
    assert not hasattr(state_of(tools[0]), "executors")


# --------------------------------------------------------------------------- unknown names


@pytest.fixture
def counted_positions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many postings each shortlist of a name index counted, from now on."""
    counted: list[int] = []
    most_shared = NameIndex._most_shared

    def counting(self: NameIndex, chosen: list[list[int]]) -> list[int]:
        counted.append(sum(map(len, chosen)))
        return most_shared(self, chosen)

    monkeypatch.setattr(NameIndex, "_most_shared", counting)
    return counted


def test_an_unknown_name_among_ten_thousand_counts_a_few_postings_first(counted_positions: list[int]) -> None:
    executor = ActionExecutor(catalogue(10_000, prefix="Tol"))
    assert executor("Tol01234z1234", "{}").errmsg == (
        "Unknown tool 'Tol01234z1234'. Did you mean 'Tol01234' or 'Tol01230' or 'Tol01231'? "
        f"Available tools: 10,000 in all, {TOO_MANY}."
    )
    assert counted_positions == [40]  # two postings of 20: close names found, no second look
    assert max(counted_positions) <= _QUICK_BUDGET


def test_a_first_look_that_finds_too_few_close_names_looks_further(counted_positions: list[int]) -> None:
    index = NameIndex(f"Tool_{i}" for i in range(5_000))
    assert index.close("Tool_4999_extra", limit=3) == ["Tool_4999", "Tool_499", "Tool_4990"]
    assert counted_positions == [20, 131]  # the rarest first, then up to the whole budget


def test_close_names_do_not_depend_on_the_order_a_set_iterates_in(monkeypatch: pytest.MonkeyPatch) -> None:
    index = NameIndex(f"Tool_{i}" for i in range(5_000))
    expected = index.close("tool_1234", limit=2)
    monkeypatch.setattr(_names_index, "_trigrams", lambda lowered: _reversed_set(_trigrams_of(lowered)))
    assert NameIndex(index.names).close("tool_1234", limit=2) == expected == ["Tool_1234", "Tool_123"]


_trigrams_of = _names_index._trigrams


class _ReversedSet(set):  # type: ignore[type-arg]
    """A set iterating in the reverse of a plain set's order."""

    def __iter__(self) -> Any:
        return iter(sorted(super().__iter__(), reverse=True))


def _reversed_set(grams: set[str]) -> set[str]:
    return _ReversedSet(grams)


def test_difflib_is_not_imported_for_names_close_by_trigrams(monkeypatch: pytest.MonkeyPatch) -> None:
    index = NameIndex(f"Tool_{i}" for i in range(5_000))
    asked: list[str] = []
    monkeypatch.setattr(_names_index, "_similar", _spy_similar(asked))
    assert index.close("Tool_12345", limit=2) == ["Tool_1234", "Tool_123"]
    assert asked == []


def _spy_similar(asked: list[str]) -> Callable[..., list[str]]:
    similar = _names_index._similar

    def spied(word: str, ranked: list[tuple[str, float]], limit: int) -> list[str]:
        asked.extend(name for name, similarity in ranked[:limit] if similarity < _names_index._SIMILAR)
        return similar(word, ranked, limit)

    return spied


def test_a_warning_free_build_of_a_plain_catalogue() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ActionExecutor(catalogue(40))


@pytest.mark.parametrize(
    "alphabet", [pytest.param("ab", id="two-letters"), pytest.param("abcd0123_", id="names")]
)
def test_the_close_name_check_answers_as_difflibs_ratio(alphabet: str) -> None:
    draw = random.Random(25)
    for _ in range(3_000):
        name = "".join(draw.choice(alphabet) for _ in range(draw.randint(1, 16)))
        word = "".join(draw.choice(alphabet) for _ in range(draw.randint(0, 16)))
        expected = difflib.SequenceMatcher(None, name, word).ratio() >= 0.6
        assert _names_index._close_by_difflib(name, word) is expected, (name, word)


def test_a_long_word_is_left_to_difflib_which_treats_frequent_characters_as_junk() -> None:
    name, word = "ab" * 60, "a" * 150 + "b" * 60
    expected = difflib.SequenceMatcher(None, name, word).ratio() >= 0.6
    assert _names_index._close_by_difflib(name, word) is expected


# --------------------------------------------------------------------------- exports


def test_a_first_export_of_several_blocks_of_tools_equals_the_next_ones() -> None:
    tools = catalogue(600, prefix="Exp")
    executor = ActionExecutor(tools)
    executor.disable("Exp00300")  # in the second block
    first = executor.to_openai_tools()
    assert [entry["function"]["name"] for entry in first] == [t.name for t in tools if t.name != "Exp00300"]
    assert executor.to_openai_tools() == first
    assert executor._exports["openai"][0][1] == tuple(t.name != "Exp00300" for t in tools)
