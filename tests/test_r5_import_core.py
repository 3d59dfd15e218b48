"""The core names' import stays lean: what round 5 took off it stays off.

The subprocess probe is ``tests/test_r4_define_import.py``'s, given this round's list.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
import test_r4_define_import as r4

from lagent_like.parsers._base import ParserInput
from lagent_like.runtime._invoke import Route
from lagent_like.runtime.settings import ToolSettings
from lagent_like.spec._api_spec import ApiSpec, DescribeOptions, Param
from lagent_like.types._json_schema import PythonType

#: Modules the core import stopped importing in round 5: ``contextvars`` only flags
#: native function calling (``run_tool_calls``, MCP) and ``heapq`` only ranks tools
#: (``find_tools``); most programs do neither.
DEFERRED = ("contextvars", "heapq")


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("from lagent_like import ActionExecutor, BaseAction, tool_api", id="core-names"),
        pytest.param("import lagent_like", id="package"),
    ],
)
def test_the_core_import_leaves_the_deferred_modules_unimported(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(r4, "NOT_IMPORTED", DEFERRED)
    assert r4._imported(code) == []


def test_searching_tools_imports_what_ranking_needs() -> None:
    from lagent_like import ActionExecutor, FunctionTool

    def weather(city: str) -> str:
        """Get the weather forecast of a city.

        Args:
            city: the city.
        """
        return city

    def stock(symbol: str) -> str:
        """Get a stock price quote.

        Args:
            symbol: the ticker.
        """
        return symbol

    executor = ActionExecutor([FunctionTool(weather), FunctionTool(stock)])
    assert [m.name for m in executor.find_tools("weather forecast in Paris", k=1)] == ["weather"]


FROZEN = [
    pytest.param(Route, id="Route"),
    pytest.param(ParserInput, id="ParserInput"),
    pytest.param(PythonType, id="PythonType"),
    pytest.param(DescribeOptions, id="DescribeOptions"),
    pytest.param(Param, id="Param"),
    pytest.param(ApiSpec, id="ApiSpec"),
    pytest.param(ToolSettings, id="ToolSettings"),
]


@pytest.mark.parametrize("cls", FROZEN)
def test_a_frozen_record_takes_a_frozen_dataclass_subclass(cls: type) -> None:
    subclass = dataclasses.make_dataclass(
        "Sub", [("added", int, dataclasses.field(default=0))], bases=(cls,), frozen=True
    )
    assert [f.name for f in dataclasses.fields(subclass)][-1] == "added"


@pytest.mark.parametrize("cls", FROZEN)
def test_a_frozen_record_refuses_a_non_frozen_dataclass_subclass(cls: type) -> None:
    with pytest.raises(TypeError, match=r"^cannot inherit non-frozen dataclass from a frozen one$"):
        dataclasses.make_dataclass("Sub", [("added", int, dataclasses.field(default=0))], bases=(cls,))


def test_the_native_calls_flag_is_made_on_first_use_and_scoped_to_its_block() -> None:
    from lagent_like.runtime._messages import is_native, native_calls

    before = is_native()
    with native_calls():
        inside = is_native()
    assert (before, inside, is_native()) == (False, True, False)


@pytest.mark.parametrize(
    ("core_ms", "code"),
    [
        pytest.param(33.0, 0, id="under-the-target"),
        pytest.param(41.0, 1, id="over-the-target"),
    ],
)
def test_bench_scale_measures_the_import_rows_alone(
    core_ms: float, code: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = r4._bench_scale()
    measured = {"lagent_like": 6.0, bench.CORE_IMPORT: core_ms}
    monkeypatch.setattr(
        bench, "measure_import", lambda module, python, statement=None: measured[statement or module]
    )
    assert bench.main(["--imports", "--json", "--check", "--peer-python", "/nonexistent/python"]) == code
    assert json.loads(capsys.readouterr().out) == {"imports": measured}
