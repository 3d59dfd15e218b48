"""Catalogue speed-ups of issue 25's second round, checked by behaviour (counters), never by time."""

from __future__ import annotations

import gc
from typing import Any, Callable

import pytest
from _catalogue import count_route_builds, simple_tool

from lagent_like import ActionExecutor, BaseAction, FunctionTool, ToolSettings, tool_api
from lagent_like.executors._base import ExecutorBase
from lagent_like.toolkits import _tool_state
from lagent_like.toolkits._tool_state import NO_SETTINGS, PRUNE_EXECUTORS


@pytest.fixture
def route_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The call names whose routes executors resolve from now on, in order."""
    return count_route_builds(monkeypatch)


def units() -> int:
    """Count the units.

    Returns:
        int: how many there are
    """
    return 3


class Shelf(BaseAction, register=False):
    """Stock of a shelf."""

    @tool_api
    def count(self, item: str) -> int:
        """Count an item.

        Args:
            item: what to count
        """
        return len(item)

    @tool_api
    def label(self, item: str) -> str:
        """Name an item.

        Args:
            item: what to name
        """
        return item


@pytest.fixture
def refreshes(monkeypatch: pytest.MonkeyPatch) -> list[ExecutorBase]:
    """The executors refreshed from now on, in order."""
    seen: list[ExecutorBase] = []
    refresh = ExecutorBase.refresh

    def counted(self: ExecutorBase) -> None:
        seen.append(self)
        refresh(self)

    monkeypatch.setattr(ExecutorBase, "refresh", counted)
    return seen


# --------------------------------------------------------------------------- building


def test_tools_without_settings_share_the_one_default_settings() -> None:
    assert BaseAction.__tool_settings__ is NO_SETTINGS
    assert simple_tool("Plain").__tool_settings__ is NO_SETTINGS


@pytest.mark.parametrize(
    ("settings", "timeout"),
    [
        pytest.param(ToolSettings(), None, id="equal-to-the-default"),
        pytest.param(ToolSettings(timeout=5.0), 5.0, id="own-timeout"),
    ],
)
def test_second_executor_over_tools_with_own_settings_resolves_no_route(
    route_builds: list[str], settings: ToolSettings, timeout: Any
) -> None:
    tool = simple_tool("Own")
    tool.__tool_settings__ = settings
    ActionExecutor([tool])
    route_builds.clear()
    executor = ActionExecutor([tool])
    assert route_builds == []
    assert executor.actions["Own"] is tool
    assert executor._names["Own"].timeout == timeout


def test_simple_tool_answers_its_long_name_and_a_toolkit_does_not() -> None:
    executor = ActionExecutor([simple_tool("Echo"), Shelf()])
    assert executor("Echo.run", '{"a": 2}').result == [{"type": "text", "content": "2"}]
    assert executor.canonical_name("Echo.run") == "Echo"
    assert "Shelf.run" not in executor._routes
    assert "Echo.run" in executor._routes


def test_duplicate_names_are_reported_once_each_after_the_other_problems() -> None:
    from lagent_like.exceptions import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match=r"actions\[1\] is int 3.*\n.*\['Twin'\]") as info:
        ActionExecutor([simple_tool("Twin"), 3, simple_tool("Twin"), simple_tool("Twin")])
    assert str(info.value).count("Twin") == 1


# --------------------------------------------------------------------------- watchers


def test_setting_changed_through_a_tool_refreshes_each_live_executor_once(
    refreshes: list[ExecutorBase],
) -> None:
    tool = FunctionTool(units)
    first, second = ActionExecutor([tool]), ActionExecutor([tool])
    first.refresh()  # a rebuild watches the tool again: still one entry per executor
    refreshes.clear()
    tool.timeout = 5.0
    assert sorted(map(id, refreshes)) == sorted([id(first), id(second)])
    assert first._names["units"].timeout == second._names["units"].timeout == 5.0


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> dict[int, Any]:
    """A registry of live executors of this test's own (others' executors left out)."""
    executors: dict[int, Any] = {}
    monkeypatch.setattr(_tool_state, "_EXECUTORS", executors)
    monkeypatch.setattr(_tool_state, "_PRUNE_AT", [PRUNE_EXECUTORS])
    return executors


def test_collected_executors_are_not_refreshed_and_their_entries_are_dropped(
    refreshes: list[ExecutorBase], registry: dict[int, Any]
) -> None:
    tool = FunctionTool(units)
    kept = ActionExecutor([tool])
    for _ in range(5):
        for _ in range(PRUNE_EXECUTORS):
            ActionExecutor([tool])
        gc.collect()
    last = ActionExecutor([tool])
    assert len(registry) <= 2 * PRUNE_EXECUTORS  # of 5 * 64 made: the collected ones dropped
    refreshes.clear()
    tool.timeout = 2.0
    assert sorted(map(id, refreshes)) == sorted([id(kept), id(last)])


def test_many_live_executors_are_all_refreshed_and_scanned_rarely(
    refreshes: list[ExecutorBase], registry: dict[int, Any]
) -> None:
    tool = FunctionTool(units)
    live = [ActionExecutor([tool]) for _ in range(PRUNE_EXECUTORS + 10)]
    assert len(registry) == PRUNE_EXECUTORS + 10
    assert _tool_state._PRUNE_AT == [
        2 * PRUNE_EXECUTORS
    ]  # scanned once at the limit, then not until twice as many
    refreshes.clear()
    tool.timeout = 3.0
    assert sorted(map(id, refreshes)) == sorted(map(id, live))


def test_added_tool_is_watched_by_the_executor(refreshes: list[ExecutorBase]) -> None:
    executor = ActionExecutor([simple_tool("Base")])
    tool = FunctionTool(units)
    executor.add_action(tool)
    refreshes.clear()
    tool.timeout = 1.0
    assert refreshes == [executor]
    assert executor._names["units"].timeout == 1.0


# --------------------------------------------------------------------------- describing and exporting


class Described(BaseAction, register=False):
    """A tool that writes its own schema."""

    def run(self, a: int) -> int:
        """Echo a number.

        Args:
            a: a number
        """
        return a

    def json_schema(self, name: str = "run") -> dict[str, Any]:
        """A schema of its own."""
        return {"type": "object", "properties": {"own": {"type": "string"}}}


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        pytest.param(
            lambda: [Shelf()],
            [("Shelf__count", "Count an item."), ("Shelf__label", "Name an item.")],
            id="toolkit",
        ),
        pytest.param(lambda: [simple_tool("Echo")], [("Echo", "Echo a number.")], id="simple-tool"),
    ],
)
def test_export_gives_each_api_its_own_description_text(
    tools: Callable[[], list[BaseAction]], expected: list[tuple[str, str]]
) -> None:
    exported = ActionExecutor(tools()).to_openai_tools()
    assert [(t["function"]["name"], t["function"]["description"]) for t in exported] == expected


def test_export_uses_a_tools_own_json_schema() -> None:
    (exported,) = ActionExecutor([Described()]).to_openai_tools()
    assert exported["function"]["parameters"] == {"type": "object", "properties": {"own": {"type": "string"}}}


def test_export_and_info_leave_out_a_disabled_tool_and_bring_it_back() -> None:
    executor = ActionExecutor([simple_tool("On"), simple_tool("Off")])
    executor.disable("Off")
    assert [t["function"]["name"] for t in executor.to_openai_tools()] == ["On"]
    assert [entry["name"] for entry in executor.get_actions_info()] == ["On"]
    executor.enable("Off")
    assert [t["function"]["name"] for t in executor.to_openai_tools()] == ["On", "Off"]
    assert [entry["name"] for entry in executor.get_actions_info()] == ["On", "Off"]


def test_actions_info_of_a_tool_with_its_own_enable_asks_it() -> None:
    class Sometimes(BaseAction, register=False):
        """A tool whose class decides."""

        __tool_name__ = "Sometimes"
        on = False

        @property
        def enable(self) -> bool:
            """Whether the class says so."""
            return type(self).on

        @enable.setter
        def enable(self, value: bool) -> None:
            """Ignored: the class decides."""

        def run(self, a: int) -> int:
            """Echo a number.

            Args:
                a: a number
            """
            return a

    executor = ActionExecutor([Sometimes(), simple_tool("Always")])
    assert [entry["name"] for entry in executor.get_actions_info()] == ["Always"]
    Sometimes.on = True
    assert [entry["name"] for entry in executor.get_actions_info()] == ["Sometimes", "Always"]
