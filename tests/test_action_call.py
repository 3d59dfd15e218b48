"""``BaseAction.__call__``: every outcome is an ``ActionReturn``, nothing raises."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

import pytest

from lagent_like import ActionReturn, ActionStatusCode, BaseAction, TupleParser, tool_api


class CallCalc(BaseAction):
    """Arithmetic."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool_api
    def div(self, a: int, b: int) -> float:
        """Divide."""
        return a / b

    @tool_api
    def leave(self) -> None:
        """Exit the interpreter."""
        sys.exit(3)

    @tool_api
    def custom(self, text: str) -> ActionReturn:
        """Return an own record."""
        return ActionReturn(result=[{"type": "text", "content": text}], url="https://example.invalid/x")

    @tool_api
    async def later(self, a: int) -> int:
        """Async API."""
        await asyncio.sleep(0)
        return a * 2

    def helper(self) -> str:
        return "not an API"


def test_call_returns_result_args_and_type() -> None:
    ret = CallCalc()('{"a": 1, "b": 2}', "add")
    assert ret == ActionReturn(
        args={"a": 1, "b": 2}, type="CallCalc", result=[{"type": "text", "content": "3"}]
    )
    assert ret.state is ActionStatusCode.SUCCESS
    assert ret.format_result() == "3"


def test_tool_exception_becomes_api_error_without_traceback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="lagent_like"):
        ret = CallCalc()('{"a": 1, "b": 0}', "div")
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == "ZeroDivisionError: division by zero"
    assert ret.args == {"a": 1, "b": 0}
    assert ret.result is None
    assert "Traceback" not in ret.errmsg
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)


def test_sys_exit_in_a_tool_is_contained() -> None:
    ret = CallCalc()("{}", "leave")
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, "SystemExit: 3")


def test_own_action_return_gets_missing_args_and_type() -> None:
    ret = CallCalc()('{"text": "hi"}', "custom")
    assert ret.args == {"text": "hi"}
    assert ret.type == "CallCalc"
    assert ret.url == "https://example.invalid/x"
    assert ret.format_result() == "hi"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("__repr__", id="dunder"),
        pytest.param("description", id="property"),
        pytest.param("helper", id="plain-method"),
        pytest.param("run", id="run-on-toolkit"),
        pytest.param(None, id="none"),
        pytest.param(["add"], id="unhashable"),
        pytest.param(3, id="int"),
    ],
)
def test_a_name_that_is_not_an_api_is_never_called(name: Any) -> None:
    ret = CallCalc()('{"a": 1, "b": 2}', name)
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.result is None
    assert ret.errmsg is not None
    assert (
        "Call one of: CallCalc.add, CallCalc.div, CallCalc.leave, CallCalc.custom, CallCalc.later"
        in ret.errmsg
    )
    assert ret.args == {"inputs": '{"a": 1, "b": 2}', "name": name}


def test_unknown_api_suggests_a_close_name() -> None:
    ret = CallCalc()("{}", "ad")
    assert ret.errmsg is not None
    assert ret.errmsg.startswith("CallCalc has no API 'ad'. Did you mean 'add'?")


def test_simple_tool_called_with_another_api_name_says_how_to_call_it() -> None:
    class CallEcho(BaseAction):
        def run(self, text: str) -> str:
            """Echo."""
            return text

    ret = CallEcho()('{"text": "x"}', "echo")
    assert ret.errmsg == "CallEcho is a simple tool; call it as 'CallEcho' (API 'run'), not 'echo'"


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param(object(), id="object"),
        pytest.param(b'{"a": 1}', id="bytes"),
        pytest.param(["a"], id="list"),
        pytest.param("\x00\xff{{{", id="garbage"),
        pytest.param('{"a": "1"', id="truncated"),
    ],
)
def test_bad_inputs_become_args_errors_holding_the_raw_input(inputs: Any) -> None:
    ret = CallCalc()(inputs, "add")
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.args == {"inputs": inputs, "name": "add"}
    assert ret.errmsg is not None and ret.errmsg.startswith("CallCalc.add: ")


def test_async_api_runs_from_sync_code() -> None:
    ret = CallCalc()('{"a": 21}', "later")
    assert ret.format_result() == "42"


def test_async_api_runs_from_inside_a_running_loop() -> None:
    async def main() -> ActionReturn:
        return CallCalc()('{"a": 5}', "later")

    assert asyncio.run(main()).format_result() == "10"


def test_tuple_parser_call_matches_the_json_call() -> None:
    action = CallCalc(parser=TupleParser)
    assert action("(1, 2)", "add").result == CallCalc()('{"a": 1, "b": 2}', "add").result


def test_faulty_parser_is_contained() -> None:
    class ExplodingParser(TupleParser):
        def parse_inputs(self, inputs: Any, name: str = "run") -> dict[str, Any]:
            raise RuntimeError("parser bug")

    ret = CallCalc(parser=ExplodingParser)("(1, 2)", "add")
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == "could not read the arguments: RuntimeError: parser bug"


def test_unprintable_result_is_an_api_error() -> None:
    class Unprintable:
        def __str__(self) -> str:
            raise ValueError("no text")

    class CallOdd(BaseAction):
        def run(self) -> Unprintable:
            """Returns something odd."""
            return Unprintable()

    ret = CallOdd()("{}")
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, "ValueError: no text")


def test_a_failing_tool_prints_nothing_in_a_program_without_logging_config() -> None:
    import subprocess
    import textwrap

    program = textwrap.dedent(
        """
        from lagent_like import BaseAction

        class CallQuiet(BaseAction):
            def run(self) -> str:
                \"\"\"Fails.\"\"\"
                raise ValueError("boom")

        print(CallQuiet()("{}").errmsg)
        """
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert (out.stdout, out.stderr) == ("ValueError: boom\n", "")
