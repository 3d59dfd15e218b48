"""A value nested hundreds of levels deep is refused with its parameter's type, not a RecursionError.

The JSON reader accepts nesting up to its own limit; checking such a value again for
OpenAI strict mode's null fields recursed once per level and hit Python's recursion
limit first, so the model was told "could not read the arguments: RecursionError"
without the tool's name or what to send. Found by ``benchmarks/fuzz_executor.py``.
"""

from __future__ import annotations

import pytest

from lagent_like import ActionExecutor, ActionStatusCode, BaseAction, tool_api


class Adder(BaseAction):
    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: the first.
            b: the second.
        """
        return a + b


@pytest.mark.parametrize(
    ("opened", "closed", "kind"),
    [
        pytest.param('{"a": ', "}", "object", id="objects"),
        pytest.param("[", "]", "array", id="arrays"),
        pytest.param('{"a": null, "b": ', "}", "object", id="objects-with-null-fields"),
    ],
)
def test_a_deeply_nested_value_is_refused_with_the_parameters_type(
    opened: str, closed: str, kind: str
) -> None:
    deep = opened * 900 + "1" + closed * 900
    record = ActionExecutor([Adder()])("Adder.add", f'{{"a": {deep}, "b": 2}}')
    assert record.state == ActionStatusCode.ARGS_ERROR
    assert record.errmsg.startswith(f"Adder.add: 'a' expected integer, got {kind} ")
    assert "RecursionError" not in record.errmsg
