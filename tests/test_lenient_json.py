"""Dirty JSON from models: read in linear time, cut-off output named, every repair recorded."""

from __future__ import annotations

import asyncio
import re
from typing import Any, Optional

import pytest

from lagent_like import ActionExecutor, ActionReturn, ActionStatusCode, AsyncActionExecutor, Hook, RetryPolicy
from lagent_like.parsers._lenient_json import TruncatedJSON, loads_lenient


def lenient_echo(text: str, flag: bool = False, note: Optional[str] = None) -> str:
    """Echo the arguments.

    Args:
        text: any text
        flag: a flag
        note: a note
    """
    return f"{text}|{flag}|{note}"


ECHO = ActionExecutor([lenient_echo])


@pytest.mark.parametrize(
    ("command", "result", "repairs"),
    [
        pytest.param('{"text": "a"}', "a|False|None", None, id="strict-no-repairs"),
        pytest.param('```json\n{"text": "a"}\n```', "a|False|None", ["removed code fence"], id="fence"),
        pytest.param(
            'Sure! {"text": "a"} is what I send.',
            "a|False|None",
            ["removed text around the JSON"],
            id="prose-around",
        ),
        pytest.param("{'text': 'a'}", "a|False|None", ["single quotes"], id="single-quotes"),
        pytest.param('{"text": "a",}', "a|False|None", ["trailing comma"], id="trailing-comma"),
        pytest.param('{"text": "a" // why\n}', "a|False|None", ["comments"], id="comment"),
        pytest.param('{text: "a"}', "a|False|None", ["unquoted keys"], id="unquoted-key"),
        pytest.param(
            "{'text': 'True', 'flag': True, 'note': None}",
            "True|True|None",
            ["single quotes", "Python literal True", "Python literal None"],
            id="python-literals-outside-strings-only",
        ),
        pytest.param('{"text": "a", "flag": +1e0}', None, None, id="json5-number-refused-as-bool"),
        pytest.param('"{\\"text\\": \\"a\\"}"', "a|False|None", ["double-encoded JSON"], id="double-encoded"),
        pytest.param(
            '{"text": "a"} and {"text": "b"}',
            "a|False|None",
            ["ignored text after the JSON"],
            id="extra-text",
        ),
    ],
)
def test_records_say_what_was_repaired(
    command: str, result: Optional[str], repairs: Optional[list[str]]
) -> None:
    ret = ECHO("lenient_echo", command)
    if result is None:
        assert ret.state == ActionStatusCode.ARGS_ERROR
        assert ret.errmsg == (
            "lenient_echo: 'flag' expected boolean, got number 1.0 (read after repairs: JSON5 syntax)"
        )
        return
    assert (ret.state, ret.format_result(), ret.repairs) == (ActionStatusCode.SUCCESS, result, repairs)
    assert type(ret.args) is dict


def test_repairs_survive_a_dict_round_trip() -> None:
    ret = ECHO("lenient_echo", "{'text': 'a',}")
    data = ret.to_dict()
    assert data["repairs"] == ["single quotes", "trailing comma"]
    assert ActionReturn.from_dict(data) == ret
    assert ActionReturn.from_dict(ECHO("lenient_echo", '{"text": "a"}').to_dict()).repairs is None


@pytest.mark.parametrize(
    ("command", "message"),
    [
        pytest.param(
            '{"text": "' + "x" * 102390,
            "the arguments end in the middle of a string at character 102400: "
            "the output was probably cut off",
            id="string-100kb",
        ),
        pytest.param(
            '{"text": "a",',
            "the arguments end in the middle of an object at character 13: the output was probably cut off",
            id="object",
        ),
        pytest.param(
            "```json\n{'text': ['a', ",
            "the arguments end in the middle of an array at character 22: the output was probably cut off",
            id="unclosed-fence",
        ),
    ],
)
def test_cut_off_arguments_are_reported_as_cut_off(command: str, message: str) -> None:
    ret = ECHO("lenient_echo", command)
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == (
        f"lenient_echo: invalid JSON arguments: {message}. "
        'Write one JSON object such as {"text": <STRING>, "flag": <BOOLEAN>, "note": <STRING>}'
    )
    assert ret.repairs is None


def test_loads_lenient_never_completes_a_cut_off_value() -> None:
    with pytest.raises(TruncatedJSON, match=r"middle of an object at character 8:"):
        loads_lenient('{"a": 1,')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param('{"a": 1,, }', "Stray comma at line 1, column 9", id="stray-comma"),
        pytest.param(
            '{"a": 1 "b": 2}', "Expected comma or '}' at line 1, column 9, found '\"'", id="missing-comma"
        ),
        pytest.param("just prose", "Expected value at line 1, column 1, found 'j'", id="prose"),
        pytest.param("", "the input is empty", id="empty"),
    ],
)
def test_loads_lenient_says_where_the_json_breaks(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$") as info:
        loads_lenient(text)
    assert not isinstance(info.value, TruncatedJSON)


def test_deep_nesting_is_refused_not_crashing() -> None:
    with pytest.raises(ValueError, match=r"^Maximum nesting level exceeded at line 1, column \d+$"):
        loads_lenient("{'a': " + "[" * 100_000)


def test_json5_fallback_reads_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from lagent_like.parsers import _lenient_json as lenient_json

    monkeypatch.setattr(lenient_json, "_decoder", lenient_json._json5_decode)
    assert loads_lenient("{'a': True, b: [1,],}").value == {"a": True, "b": [1]}
    with pytest.raises(TruncatedJSON, match="middle of a value at character 8"):
        loads_lenient('{"a": 1,')


@pytest.mark.parametrize(
    ("limit", "state"),
    [
        pytest.param(40, ActionStatusCode.ARGS_ERROR, id="over"),
        pytest.param(41, ActionStatusCode.SUCCESS, id="at-limit"),
        pytest.param(None, ActionStatusCode.SUCCESS, id="no-limit"),
    ],
)
def test_max_argument_chars_refuses_larger_strings_at_once(limit: Optional[int], state: int) -> None:
    command = '{"text": "' + "y" * 29 + '"}'  # 41 characters
    executor = ActionExecutor([lenient_echo], max_argument_chars=limit)
    ret = executor("lenient_echo", command)
    assert ret.state == state
    if state == ActionStatusCode.ARGS_ERROR:
        assert ret.errmsg == (
            "lenient_echo: the arguments are 41 characters long, more than the 40 this executor "
            "accepts; send shorter arguments"
        )
        assert ret.args == {"inputs": command, "name": "lenient_echo"}


def test_max_argument_chars_defaults_to_a_million_and_covers_the_async_executor() -> None:
    import asyncio

    assert ActionExecutor([lenient_echo]).max_argument_chars == 1_000_000
    executor = AsyncActionExecutor([lenient_echo], max_argument_chars=10)

    async def main() -> list[Any]:
        one = await executor("lenient_echo", '{"text": "abcdefgh"}')
        many = await executor.batch([("lenient_echo", '{"text": "abcdefgh"}'), ("lenient_echo", "{}")])
        return [one, *many]

    one, first, second = asyncio.run(main())
    assert [r.state for r in (one, first, second)] == [ActionStatusCode.ARGS_ERROR] * 2 + [
        ActionStatusCode.ARGS_ERROR
    ]
    assert one.errmsg == first.errmsg
    assert second.errmsg == "lenient_echo: 'text' is required"


def lenient_fail(text: str) -> str:
    """Fail.

    Args:
        text: any text
    """
    raise ValueError(text)


@pytest.mark.parametrize(
    ("executor", "tool", "state"),
    [
        pytest.param(lambda: ActionExecutor([lenient_echo]), "lenient_echo", "SUCCESS", id="direct"),
        pytest.param(
            lambda: _hooked(ActionExecutor([lenient_echo])), "lenient_echo", "SUCCESS", id="call-core"
        ),
        pytest.param(lambda: ActionExecutor([lenient_fail]), "lenient_fail", "API_ERROR", id="failing-tool"),
        pytest.param(
            lambda: ActionExecutor(
                [lenient_fail], retry=RetryPolicy(max_attempts=2, base_delay=0.0, retry_on=ValueError)
            ),
            "lenient_fail",
            "API_ERROR",
            id="retried",
        ),
        pytest.param(lambda: AsyncActionExecutor([lenient_echo]), "lenient_echo", "SUCCESS", id="async"),
        pytest.param(
            lambda: _hooked(AsyncActionExecutor([lenient_echo])),
            "lenient_echo",
            "SUCCESS",
            id="async-call-core",
        ),
    ],
)
def test_every_record_of_repaired_arguments_names_the_repairs(executor: Any, tool: str, state: str) -> None:
    made = executor()
    ret = made(tool, "{'text': 'a',}")
    if isinstance(made, AsyncActionExecutor):
        ret = asyncio.run(ret)
    assert (ret.state, ret.args, ret.repairs) == (
        ActionStatusCode[state],
        {"text": "a"},
        ["single quotes", "trailing comma"],
    )
    assert type(ret.args) is dict


def _hooked(executor: Any) -> Any:
    executor.register_hook(Hook())
    return executor
