"""Issue 25, third round: one tool's change costs O(that tool), checked by counters, never by time."""

from __future__ import annotations

from typing import Any

import pytest
from _benchmarks import benchmark_module
from _catalogue import simple_tool

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like._private import _names_index
from lagent_like._private._names_index import SCANNED_WHOLE, NameIndex
from lagent_like.exceptions import ToolDefinitionError
from lagent_like.executors import _base


def catalogue(size: int) -> list[BaseAction]:
    """``size`` simple tools ``Big0000``, ``Big0001``, ..."""
    return [simple_tool(f"Big{i:04d}") for i in range(size)]


class CountedDict(dict[Any, Any]):
    """A dict that counts the times it is copied whole (``dict(d)``, ``{**d}`` iterate it)."""

    copies = 0

    def keys(self) -> Any:
        CountedDict.copies += 1
        return super().keys()

    def __iter__(self) -> Any:
        CountedDict.copies += 1
        return super().__iter__()


@pytest.fixture
def counted_tables(monkeypatch: pytest.MonkeyPatch) -> ActionExecutor:
    """An executor of 200 tools whose route table and actions count whole copies."""
    executor = ActionExecutor(catalogue(200))
    for attr in ("_names", "_aliases", "_canonical", "_routes", "actions"):
        monkeypatch.setattr(executor, attr, CountedDict(getattr(executor, attr)))
    CountedDict.copies = 0
    return executor


def test_add_action_changes_the_route_table_in_place_without_copying_it(
    counted_tables: ActionExecutor,
) -> None:
    executor = counted_tables
    routes = executor._routes
    executor.add_action(simple_tool("Extra"))
    assert CountedDict.copies == 0
    assert executor._routes is routes
    assert executor._routes["Extra"] is executor._routes["Extra.run"]
    assert executor("Extra", '{"a": 5}').result == [{"type": "text", "content": "5"}]


def test_del_action_changes_the_route_table_in_place_without_copying_it(
    counted_tables: ActionExecutor,
) -> None:
    executor = counted_tables
    routes = executor._routes
    executor.del_action("Big0100")
    assert CountedDict.copies == 0
    assert executor._routes is routes
    assert "Big0100" not in executor._routes and "Big0100.run" not in executor._routes
    assert "Big0100" not in executor.actions
    assert executor("Big0101", '{"a": 1}').result == [{"type": "text", "content": "1"}]


class Kit(BaseAction, register=False):
    """A toolkit of one API, ``Kit.go``."""

    @tool_api
    def go(self, a: int) -> int:
        """Echo a number.

        Args:
            a: a number
        """
        return a


def test_a_failed_add_action_leaves_actions_and_routes_as_they_were() -> None:
    executor = ActionExecutor([simple_tool("Kit.go"), simple_tool("Other")])
    before = (dict(executor.actions), dict(executor._routes), dict(executor._aliases))
    with pytest.raises(ToolDefinitionError, match=r"call name 'Kit\.go' is both Kit\.go's and Kit's"):
        executor.add_action(Kit())
    assert (dict(executor.actions), dict(executor._routes), dict(executor._aliases)) == before


@pytest.fixture
def index_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the call-name indexes executors build from now on."""
    built: list[int] = []

    class Counted(NameIndex):
        def __init__(self, names: Any) -> None:
            super().__init__(names)
            built.append(len(self))

    monkeypatch.setattr(_base, "NameIndex", Counted)
    return built


def test_unknown_names_after_adding_and_removing_a_tool_use_the_same_index(index_builds: list[int]) -> None:
    executor = ActionExecutor(catalogue(200))
    executor("Big0007x", "{}")
    executor.add_action(simple_tool("Zebra"))
    executor.del_action("Big0008")
    added = executor("Zebrx", "{}").errmsg
    removed = executor("Big0008", "{}").errmsg
    assert index_builds == [200]
    assert added.startswith("Unknown tool 'Zebrx'. Did you mean 'Zebra'?")
    assert "'Big0008'? " not in removed
    assert removed.startswith("Unknown tool 'Big0008'. Did you mean ")


def test_replacing_a_tool_rebuilds_the_name_index_once(index_builds: list[int]) -> None:
    executor = ActionExecutor(catalogue(200))
    executor("Big0007x", "{}")
    executor.add_action(simple_tool("Big0007"))
    assert executor("Big0007x", "{}").errmsg.startswith("Unknown tool 'Big0007x'. Did you mean 'Big0007'")
    assert index_builds == [200, 200]


@pytest.mark.parametrize(
    ("changes", "word", "expected"),
    [
        pytest.param([("add", "Tool_9999")], "Tool_99999", ["Tool_999", "Tool_9999"], id="added-is-found"),
        pytest.param([("discard", "Tool_123")], "Tool_123", ["Tool_1123", "Tool_1230"], id="removed-is-not"),
        pytest.param(
            [("discard", "Tool_1234"), ("add", "Tool_1234")],
            "Tool_12345",
            ["Tool_1234", "Tool_123"],
            id="back-again",
        ),
        pytest.param(
            [("discard", "tool_42")], "TOOL_42", ["Tool_42", "Tool_420"], id="same-spelling-of-another-kept"
        ),
    ],
)
def test_name_index_follows_names_added_and_removed_as_a_fresh_one_would(
    changes: list[tuple[str, str]], word: str, expected: list[str]
) -> None:
    index = NameIndex([*(f"Tool_{i}" for i in range(2_000)), "tool_42"])
    for change, name in changes:
        getattr(index, change)(name)
    assert index.close(word, limit=2) == expected
    assert NameIndex(index.names).close(word, limit=2) == expected


def test_name_index_grown_past_a_scan_indexes_every_name_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    index = NameIndex(f"Word{i}" for i in range(SCANNED_WHOLE))
    index.discard("Word3")
    for i in range(SCANNED_WHOLE, SCANNED_WHOLE + 3):
        index.add(f"Word{i}")
    scans: list[str] = []
    monkeypatch.setattr(_names_index, "scan", lambda word, pool, limit: scans.append(word) or [])
    assert len(index) == SCANNED_WHOLE + 2
    assert "Word3" not in index.close("word3", limit=3)
    assert index.close("WORD66", limit=1) == ["Word66"]
    assert scans == []


def test_name_index_of_mostly_removed_names_drops_their_postings() -> None:
    index = NameIndex(f"Name{i}" for i in range(300))
    for i in range(250):
        index.discard(f"Name{i}")
    assert index.names == tuple(f"Name{i}" for i in range(250, 300))
    assert len(index._order) < 300
    assert index.close("Name2999", limit=1) == ["Name299"]


# --------------------------------------------------------------------------- bench_scale's verdicts


@pytest.mark.parametrize(
    ("row", "exponent", "ours", "lagent", "sdk", "expected"),
    [
        pytest.param("add + remove one tool", 1.0, 5e-3, 5e-7, None, [False], id="add-remove-linear"),
        pytest.param("add + remove one tool", 0.05, 8e-6, 5e-7, None, [True], id="add-remove-flat"),
        pytest.param("disable + enable one tool", 0.3, 1e-6, 1e-7, None, [False], id="toggle-growing"),
        pytest.param("build", 1.05, 1.9e-6, 7e-7, None, [True, True], id="build-linear-under-2us"),
        pytest.param("build", 1.3, 1.9e-6, 7e-7, None, [False, True], id="build-superlinear"),
        pytest.param("get_actions_info", 1.0, 1.6e-6, 1e-6, None, [True, False], id="info-over-1.5x"),
        pytest.param("export cold", 1.0, 2e-6, None, 2.1e-6, [True, True], id="export-under-sdk"),
        pytest.param("unknown tool name", 0.6, 9e-5, 3e-6, None, [True], id="unknown-under-100us"),
        pytest.param("unknown tool name", 0.0, 1.2e-4, 3e-6, None, [False], id="unknown-over-100us"),
    ],
)
def test_bench_scale_verdicts_test_the_issues_targets(
    row: str, exponent: float, ours: float, lagent: Any, sdk: Any, expected: list[bool]
) -> None:
    assert benchmark_module("bench_scale")._checks(row, exponent, ours, lagent, sdk) == expected


@pytest.mark.parametrize(
    "settings",
    [
        pytest.param({}, id="defaults"),
        pytest.param({"timeout": 5.0, "max_output_chars": 100}, id="equal-settings"),
        pytest.param({"validation": "strict"}, id="strict"),
    ],
)
def test_executors_of_equal_settings_reuse_each_tools_routes(
    monkeypatch: pytest.MonkeyPatch, settings: dict[str, Any]
) -> None:
    tools = catalogue(30)
    ActionExecutor(tools, **settings)
    resolved: list[str] = []
    route = _base.ExecutorBase._route
    monkeypatch.setattr(
        _base.ExecutorBase,
        "_route",
        lambda self, action, name, own: resolved.append(name) or route(self, action, name, own),
    )
    executor = ActionExecutor(tools, **settings)
    assert resolved == []
    assert executor("Big0003", '{"a": 3}').result == [{"type": "text", "content": "3"}]
    other = ActionExecutor(tools, timeout=7.0)
    assert len(resolved) == 30
    assert other._routes["Big0003"].timeout == 7.0


def odd_named(name: str) -> BaseAction:
    """A simple tool whose name is not its own function-calling alias."""
    return simple_tool(name)


@pytest.mark.parametrize(
    ("change", "expected_builds", "same_answer"),
    [
        pytest.param(lambda e: e.add_action(simple_tool("Legal")), 0, True, id="add-legal"),
        pytest.param(lambda e: e.del_action("Big0001"), 0, True, id="del-legal"),
        pytest.param(lambda e: e.add_action(odd_named("odd name")), 1, True, id="add-renamed"),
        pytest.param(lambda e: e.del_action("my tool"), 1, False, id="del-renamed"),
    ],
)
def test_the_renamer_of_native_messages_is_rebuilt_only_when_renamed_names_change(
    monkeypatch: pytest.MonkeyPatch, change: Any, expected_builds: int, same_answer: bool
) -> None:
    from lagent_like.executors import _exports

    executor = ActionExecutor([*catalogue(50), odd_named("my tool")])
    call = {"id": "c1", "type": "function", "function": {"name": "my_tool", "arguments": '{"a": "x"}'}}
    before = executor.run_tool_calls([call])
    builds: list[int] = []
    renamer = _exports.alias_renamer
    monkeypatch.setattr(_exports, "alias_renamer", lambda aliases: builds.append(1) or renamer(aliases))
    change(executor)
    assert (executor.run_tool_calls([call]) == before) is same_answer
    assert len(builds) == expected_builds


@pytest.mark.parametrize(
    "read",
    [
        pytest.param(lambda e: [entry["name"] for entry in e.get_actions_info()], id="get_actions_info"),
        pytest.param(lambda e: [t["function"]["name"] for t in e.to_openai_tools()], id="to_openai_tools"),
        pytest.param(lambda e: [t["name"] for t in e.to_anthropic_tools()], id="to_anthropic_tools"),
        pytest.param(lambda e: e.api_names(), id="api_names"),
        pytest.param(lambda e: e.action_names(), id="action_names"),
    ],
)
def test_a_tool_added_while_the_catalogue_is_read_changes_the_next_read_only(read: Any) -> None:
    added: list[str] = []
    executor: ActionExecutor

    def enable_once() -> bool:
        if not added:  # asked while the catalogue is read: adds a tool then
            added.append("Late")
            executor.add_action(simple_tool("Late"))
            executor.del_action("Big0002")
        return True

    tools = catalogue(3)
    tools[1].enable = enable_once
    executor = ActionExecutor(tools)
    first = read(executor)  # no "dictionary changed size during iteration"
    assert "Late" not in first and "Big0000" in first
    second = read(executor)
    assert "Late" in second and "Big0002" not in second
