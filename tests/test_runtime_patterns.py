"""Issue 21 item 7: a schema's ``pattern`` cannot hang a call (google-re2, linear time).

The hostile values run in a child process with a generous timeout: with a backtracking
engine the call would not return for hours, and the test must fail, not hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lagent_like import ActionExecutor, tool_from_schema
from lagent_like._private.patterns import compile_pattern
from lagent_like.exceptions import ToolDefinitionError
from lagent_like.schema import ActionStatusCode

try:
    import re2  # noqa: F401 - only whether it is there
except ImportError:
    HAS_RE2 = False
else:
    HAS_RE2 = True

#: The tests of matching; refusing every pattern without google-re2 is tested without it.
needs_re2 = pytest.mark.skipif(not HAS_RE2, reason="google-re2 (the patterns extra) is not installed")

_ROOT = Path(__file__).resolve().parents[1]

#: Run in a child: one call of a tool with ``schema`` and ``arguments``; prints the record.
_CALL = """
import json, sys
from lagent_like import ActionExecutor, tool_from_schema
schema, arguments = json.loads(sys.argv[1]), sys.argv[2]
tool = tool_from_schema({"name": "probe", "parameters": schema}, lambda **kw: sorted(kw))
ret = ActionExecutor([tool])("probe", arguments)
print(json.dumps([int(ret.state), ret.errmsg, ret.format_result() if ret.errmsg is None else None]))
"""


def _call_in_child(schema: dict, arguments: str) -> list:
    """``[state, errmsg, result]`` of one call run in a child process that may not hang."""
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CALL, json.dumps(schema), arguments],
            capture_output=True,
            text=True,
            timeout=120,  # a hang detector, not a time measurement: the call takes milliseconds
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the call did not answer: the pattern backtracked")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


_EVIL = "^(a+)+$"
_STRING = {"type": "object", "properties": {"s": {"type": "string", "pattern": _EVIL}}, "required": ["s"]}
_KEYS = {"type": "object", "patternProperties": {_EVIL: {"type": "string"}}, "additionalProperties": False}


@needs_re2
@pytest.mark.parametrize(
    ("schema", "arguments", "expected"),
    [
        pytest.param(
            _STRING,
            json.dumps({"s": "a" * 50 + "!"}),
            [-1001, f"probe: 's' expected string matching '{_EVIL}', got string '{'a' * 50}!'", None],
            id="pattern-refuses-hostile-value",
        ),
        pytest.param(_STRING, json.dumps({"s": "a" * 50}), [0, None, '["s"]'], id="pattern-accepts-match"),
        pytest.param(
            _KEYS,
            json.dumps({"a" * 40 + "!": "x"}),
            [-1001, f"probe: '{'a' * 40}!' is not a parameter; parameters: none", None],
            id="patternProperties-refuses-hostile-key",
        ),
        pytest.param(
            _KEYS,
            json.dumps({"a" * 40: "x"}),
            [0, None, f'["{"a" * 40}"]'],
            id="patternProperties-accepts-match",
        ),
    ],
)
def test_nested_quantifier_pattern_answers_a_hostile_value(
    schema: dict, arguments: str, expected: list
) -> None:
    assert _call_in_child(schema, arguments) == expected


def _tool_with_pattern(pattern: object) -> object:
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": pattern}},
        "required": ["s"],
    }
    return tool_from_schema({"name": "probe", "parameters": schema}, lambda s: s)


@needs_re2
@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param(
            "(a)\\1",
            r"'pattern' '\(a\)\\\\1' cannot be run in linear time \(google-re2\): "
            r"invalid escape sequence: \\1 \(lookaround and backreferences need backtracking, which could hang a "
            r"call\); rewrite it in RE2's syntax, or give the tool validation='off' to leave its arguments unchecked$",
            id="backreference",
        ),
        pytest.param(
            "^(?=a)a",
            r"'pattern' '\^\(\?=a\)a' cannot be run in linear time \(google-re2\): "
            r"invalid perl operator: \(\?= \(lookaround",
            id="lookahead",
        ),
        pytest.param(
            "(?<!x)y",
            r"'pattern' '\(\?<!x\)y' cannot be run in linear time \(google-re2\): "
            r"invalid perl operator: \(\?<!",
            id="lookbehind",
        ),
        pytest.param("[a-", r"'pattern' '\[a-' does not compile: unterminated character set", id="syntax"),
        pytest.param(7, r"'pattern' must be a string, got 7", id="not-a-string"),
    ],
)
def test_pattern_that_cannot_run_in_linear_time_is_refused_at_definition(
    pattern: object, message: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=r"parameters\.properties\.s: " + message):
        _tool_with_pattern(pattern)


@needs_re2
@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("^(?=a)a", id="lookahead-that-re2-cannot-run"),
        pytest.param("^\\p{L}+$", id="re2-syntax-that-python-re-cannot-read"),
    ],
)
def test_a_tool_whose_validation_is_off_keeps_a_pattern_it_never_matches(pattern: str) -> None:
    from lagent_like.toolkits._schema_tool import SchemaTool

    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": pattern}},
        "required": ["s"],
    }
    tool = SchemaTool({"name": "probe", "parameters": schema}, lambda s: s, validation="off")
    assert ActionExecutor([tool])("probe", '{"s": "b1"}').format_result() == "b1"


def test_a_pattern_no_engine_can_read_is_refused_even_when_validation_is_off() -> None:
    from lagent_like.toolkits._schema_tool import SchemaTool

    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "[a-"}}, "required": ["s"]}
    with pytest.raises(
        ToolDefinitionError, match=r"'pattern' '\[a-' does not compile: unterminated character set"
    ):
        SchemaTool({"name": "probe", "parameters": schema}, lambda s: s, validation="off")


def test_pattern_without_google_re2_is_refused_at_definition_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "re2", None)  # import re2 now raises ImportError
    compile_pattern.cache_clear()
    try:
        with pytest.raises(ToolDefinitionError, match=r"'pattern' '\[a-' does not compile: unterminated"):
            _tool_with_pattern("[a-")
        with pytest.raises(
            ToolDefinitionError,
            match=r"'pattern' '\^\[0-9\]\+\$' cannot be checked in bounded "
            r"time without google-re2: install it with pip install 'lagent-like\[patterns\]' \(from a clone: pip install "
            r"'\.\[patterns\]'\) \(Python's re can "
            r"backtrack for hours on one value\), or give the tool validation='off' to leave its arguments unchecked$",
        ):
            _tool_with_pattern("^[0-9]+$")
    finally:
        compile_pattern.cache_clear()


@needs_re2
@pytest.mark.parametrize(
    ("pattern", "value", "state"),
    [
        pytest.param("^\\d+$", "123", ActionStatusCode.SUCCESS, id="ascii-digits"),
        pytest.param(
            "^\\d+$", "\u0663", ActionStatusCode.ARGS_ERROR, id="arabic-indic-digit-is-not-backslash-d"
        ),
        pytest.param("^\\d+$", "1\n", ActionStatusCode.ARGS_ERROR, id="dollar-is-the-very-end"),
        pytest.param("^\\p{L}+$", "h\u00e9llo", ActionStatusCode.SUCCESS, id="unicode-letter-class"),
        pytest.param("^\\p{L}+$", "h1", ActionStatusCode.ARGS_ERROR, id="unicode-letter-class-refuses"),
        pytest.param("^a", "a\ud800", ActionStatusCode.SUCCESS, id="lone-surrogate-is-searched-not-a-crash"),
    ],
)
def test_pattern_reads_the_ecma_dialect(pattern: str, value: str, state: ActionStatusCode) -> None:
    executor = ActionExecutor([_tool_with_pattern(pattern)])
    assert executor("probe", json.dumps({"s": value})).state == state
