"""The core names' import stays lean: what round 5 took off it stays off.

The subprocess probe is ``tests/_probe.py``'s, given this round's list.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import typing

import pytest
from _benchmarks import benchmark_module
from _probe import imported_after

from lagent_like.parsers._base import ParserInput
from lagent_like.runtime._invoke import Route
from lagent_like.runtime.settings import ToolSettings
from lagent_like.spec._api_spec import ApiSpec, DescribeOptions, Param
from lagent_like.types._json_schema import PythonType

#: Modules the core import stopped importing in round 5: ``contextvars`` only flags
#: native function calling (``run_tool_calls``, MCP), ``heapq`` only ranks tools
#: (``find_tools``), Lagent 0.5's message types serve only its message API, running a
#: coroutine only async APIs and callbacks, reading a signature only hooks and a
#: callable ``enable``, and a hook's answer or failure only hooks; most programs use
#: none of them.
DEFERRED = (
    "contextvars",
    "heapq",
    "lagent_like._private._lagent05_messages",
    "lagent_like._private.coroutines",
    "lagent_like._private.signatures",
    "lagent_like.runtime._hook_records",
)


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("from lagent_like import ActionExecutor, BaseAction, tool_api", id="core-names"),
        pytest.param("import lagent_like", id="package"),
    ],
)
def test_the_core_import_leaves_the_deferred_modules_unimported(code: str) -> None:
    # Python 3.9's collections imports heapq itself: only what the standard library
    # the package uses does not import counts.
    stdlib = imported_after(
        "import collections, dataclasses, inspect, json, threading, typing, weakref", DEFERRED
    )
    assert imported_after(code, DEFERRED) == stdlib


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


#: A docstring for a generated subclass: before Python 3.10, dataclasses write one from
#: inspect.signature, which refuses Param's default of inspect.Parameter.empty.
_DOC = {"__doc__": "A subclass."}

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
        "Sub", [("added", int, dataclasses.field(default=0))], bases=(cls,), namespace=_DOC, frozen=True
    )
    assert [f.name for f in dataclasses.fields(subclass)][-1] == "added"


@pytest.mark.parametrize("cls", FROZEN)
def test_a_frozen_record_refuses_a_non_frozen_dataclass_subclass(cls: type) -> None:
    with pytest.raises(TypeError, match=r"^cannot inherit non-frozen dataclass from a frozen one$"):
        dataclasses.make_dataclass(
            "Sub", [("added", int, dataclasses.field(default=0))], bases=(cls,), namespace=_DOC
        )


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
    bench = benchmark_module("bench_scale")
    measured = {"lagent_like": 6.0, bench.CORE_IMPORT: core_ms}
    monkeypatch.setattr(
        bench, "measure_import", lambda module, python, statement=None: measured[statement or module]
    )
    assert bench.main(["--imports", "--json", "--check", "--peer-python", "/nonexistent/python"]) == code
    assert json.loads(capsys.readouterr().out) == {"imports": measured}


def test_lagent05_message_types_are_the_schemas_names_when_first_read() -> None:
    from lagent_like import schema

    message = schema.AgentMessage(content=schema.FunctionCall("Calc.add", {"a": 1}))
    assert [schema.AgentMessage.__module__, schema.AgentStatusCode.__module__] == ["lagent_like.schema"] * 2
    assert pickle.loads(pickle.dumps(message)) == message
    assert pickle.loads(pickle.dumps(schema.AgentStatusCode.CODING)) is schema.AgentStatusCode.CODING
    assert (
        typing.get_type_hints(schema.AgentMessage)["stream_state"]
        == typing.Union[schema.ModelStatusCode, schema.AgentStatusCode, int]
    )
    assert (str(schema.ModelStatusCode.SERVER_ERR), repr(schema.FunctionCall("t", "x"))) == (
        "-1",
        "FunctionCall(name='t', parameters='x')",
    )


def test_an_unknown_schema_attribute_is_an_attribute_error() -> None:
    from lagent_like import schema

    with pytest.raises(
        AttributeError, match=r"^module 'lagent_like\.schema' has no attribute 'AgentMesage'$"
    ):
        schema.AgentMesage  # noqa: B018 - the read is the test


def test_an_executor_answers_a_lagent05_message_with_a_message() -> None:
    from lagent_like import ActionExecutor, FunctionTool
    from lagent_like.schema import AgentMessage, FunctionCall

    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: the first.
            b: the second.
        """
        return a + b

    executor = ActionExecutor([FunctionTool(add)])
    reply = executor(
        AgentMessage(sender="agent", content=FunctionCall("add", {"a": 1, "b": 2})), session_id=0
    )
    assert (reply.sender, reply.content.result) == ("ActionExecutor", [{"type": "text", "content": "3"}])


@pytest.mark.parametrize("cls", FROZEN)
def test_a_plain_subclass_of_a_frozen_record_sets_its_own_attributes_but_no_field(cls: type) -> None:
    # @dataclass(frozen=True)'s rule: the frozen class refuses every name; a plain
    # subclass refuses only the fields.
    plain = type("Plain", (cls,), {})
    record = object.__new__(plain)
    record.note = "mine"
    assert record.note == "mine"
    del record.note
    field = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError, match=rf"^cannot assign to field '{field}'$"):
        setattr(record, field, None)
    with pytest.raises(dataclasses.FrozenInstanceError, match=rf"^cannot delete field '{field}'$"):
        delattr(record, field)
    own = object.__new__(cls)
    with pytest.raises(dataclasses.FrozenInstanceError, match=r"^cannot assign to field 'note'$"):
        own.note = "mine"
    with pytest.raises(dataclasses.FrozenInstanceError, match=r"^cannot delete field 'note'$"):
        del own.note
