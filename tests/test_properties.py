"""Properties of the call path: no input makes an action or the executor raise.

Hypothesis feeds every kind of argument a model (or a careless caller) can send through
actions backed by ``JsonParser``, ``TupleParser`` and ``BaseParser`` and through the
executor: any text, text biased towards broken JSON and Python literals, very long and
deeply nested text, and arbitrary Python objects, under any name. Every call must give
back exactly one well-formed :class:`ActionReturn` (SPEC 6, 11). Typed arguments must
reach the tool exactly as sent when they are valid and be refused, without calling the
tool, when they have the wrong JSON type (SPEC 8.1).

The bugs found on the way are pinned at the end of the file as tests, one minimal
reproduction each.
"""

from __future__ import annotations

import json
import re
import time
import warnings
from typing import Any, Callable, Literal, Optional

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lagent_like import (
    ActionExecutor,
    ActionReturn,
    ActionStatusCode,
    ActionValidCode,
    BaseAction,
    BaseParser,
    JsonParser,
    ToolNotFoundError,
    TupleParser,
    tool_api,
)

# Parsing model text must not warn (test_tuple_parser_reads_model_text_without_emitting_warnings):
# a warning Python's parser emits fails these tests.
pytestmark = pytest.mark.filterwarnings("error:invalid:DeprecationWarning", "error:invalid:SyntaxWarning")

SUCCESS = ActionStatusCode.SUCCESS
ARGS_ERROR = ActionStatusCode.ARGS_ERROR
KNOWN_STATES = frozenset(int(code) for code in ActionStatusCode)
KNOWN_VALID = frozenset(int(code) for code in ActionValidCode)

# Bug pinned below (test_no_action_errmsg_is_text): NoAction stores its raw input as errmsg.
NO_ACTION = "NoAction"


# -- the tools ------------------------------------------------------------------------


class PropKit(BaseAction):
    """A toolkit with typed, untyped, failing and async APIs that records its calls.

    Args:
        parser: the parser class of this instance.
    """

    def __init__(self, parser: type[BaseParser] = JsonParser) -> None:
        super().__init__(parser=parser)
        self.received: list[dict[str, Any]] = []

    @tool_api
    def typed(
        self,
        i: int,
        f: float,
        s: str,
        flag: bool,
        nums: list[int],
        unit: Literal["C", "F"],
        opt: Optional[int] = None,
    ) -> str:
        """Record the arguments received.

        Args:
            i: an integer
            f: a number
            s: a text
            flag: a switch
            nums: some integers
            unit: a temperature unit
            opt: an optional integer
        """
        self.received.append({"i": i, "f": f, "s": s, "flag": flag, "nums": nums, "unit": unit, "opt": opt})
        return "recorded"

    @tool_api
    def echo(self, text: str, times: int = 1) -> str:
        """Echo a text with a count (never repeated: a model may send a huge count).

        Args:
            text: the text
            times: a count
        """
        return f"{text} x{times}"

    @tool_api
    def half(self, x: float) -> float:
        """Halve a number.

        Args:
            x: the number
        """
        return x / 2

    @tool_api
    def anything(self, value) -> Any:  # type: ignore[no-untyped-def]
        """Return whatever arrives (an unchecked parameter).

        Args:
            value: any value
        """
        return value

    @tool_api
    def fail(self, message: str = "") -> str:
        """Always raise.

        Args:
            message: the exception's message
        """
        raise ValueError(message)

    @tool_api
    async def later(self, n: int = 0) -> int:
        """Return the number from a coroutine.

        Args:
            n: the number
        """
        return n


class PropEcho(BaseAction):
    def run(self, text: str, n: int = 1) -> str:
        """Echo a text with a count.

        Args:
            text: the text
            n: a count
        """
        return f"{text} x{n}"


class PropRaw(BaseAction):
    def run(self, text: str) -> Any:
        """Return the raw input (its parser passes it unchecked).

        Args:
            text: anything
        """
        return text


KIT_APIS = ["typed", "echo", "half", "anything", "fail", "later"]
JSON_KIT = PropKit()
TUPLE_KIT = PropKit(parser=TupleParser)
JSON_EXECUTOR = ActionExecutor([JSON_KIT, PropEcho(), PropRaw(parser=BaseParser)])
TUPLE_EXECUTOR = ActionExecutor([TUPLE_KIT, PropEcho(parser=TupleParser), PropRaw(parser=BaseParser)])
EXECUTORS = [JSON_EXECUTOR, TUPLE_EXECUTOR]
ACTIONS = [action for executor in EXECUTORS for action in executor.actions.values()]

TYPED_ORDER = ["i", "f", "s", "flag", "nums", "unit", "opt"]
PARAMETER_NAMES = [*TYPED_ORDER, "text", "times", "x", "value", "message", "n"]
KNOWN_NAMES = [
    *(f"PropKit.{api}" for api in KIT_APIS),
    "PropKit__typed",
    "PropKit__echo",
    "PropKit",
    "PropKit.",
    "PropKit.nope",
    "PropKit.typed.extra",
    "PropEcho",
    "PropEcho.",
    "PropEcho.run",
    "PropRaw",
    "NoAction",
    "FinishAction",
    "InvalidAction",
    "",
    ".",
    "propkit.TYPED",
]


# -- strategies -----------------------------------------------------------------------

JSON_TOKENS = [
    "{", "}", "[", "]", '"', "'", ":", ",", " ", "\n", "\\", '\\"', "(", ")",
    '"i"', '"s"', '"nums"', '"text"', "'text'", '"times"', '"value"', "text", "a",
    "1", "-1", "--1", "0.5", "1e999", "-", "+", "0x1f", "true", "false", "null", "True", "None", "NaN",
    "Infinity", "```", "```json\n", "\n```", "//", "/*", "*/", "\x00", "\ud800", "é", "😀", "\u2028",
]  # fmt: skip
LONG_CHUNKS = [
    "a", " ", "{", "}", "[", "(", '"', "'", "\\", "\x00", "1", "-", "é", '{"text":', "[1,", "```", "\n",
]  # fmt: skip

names = st.one_of(
    st.sampled_from(KNOWN_NAMES), st.text(), st.builds("PropKit.{}".format, st.text(max_size=12))
)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
argument_objects = st.dictionaries(
    st.sampled_from(PARAMETER_NAMES) | st.text(max_size=8), json_values, max_size=7
)

# Arguments shaped like each API's, most of them right: these reach the validators and the tools.
near_valid = {
    "text": st.text(max_size=20) | json_scalars,
    "times": st.integers() | json_scalars,
    "n": st.integers() | json_scalars,
    "x": st.floats() | st.integers() | json_scalars,
    "value": json_values,
    "message": st.text(max_size=10),
    "i": st.integers() | json_scalars,
    "f": st.floats() | json_scalars,
    "s": st.text(max_size=10) | json_scalars,
    "flag": st.booleans() | json_scalars,
    "nums": st.lists(st.integers(), max_size=3) | json_values,
    "unit": st.sampled_from(["C", "F"]) | json_scalars,
    "opt": st.integers() | json_scalars,
}
API_PARAMETERS = {
    "PropKit.echo": ["text", "times"],
    "PropKit__echo": ["text", "times"],
    "PropEcho": ["text", "n"],
    "PropKit.half": ["x"],
    "PropKit.anything": ["value"],
    "PropKit.fail": ["message"],
    "PropKit.later": ["n"],
    "PropKit.typed": TYPED_ORDER,
}


def arguments_of(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for API ``name``: its first parameter and some of the others."""
    params = API_PARAMETERS[name]
    return st.fixed_dictionaries(
        {p: near_valid[p] for p in params[:1]}, optional={p: near_valid[p] for p in params[1:]}
    )


api_objects = st.sampled_from(sorted(API_PARAMETERS)).flatmap(arguments_of)


def decorate(text: str, style: int) -> str:
    """``text`` the way models dress it: fenced, in prose, single-quoted, with a comment..."""
    styles: list[Callable[[str], str]] = [
        lambda t: t,
        lambda t: f"```json\n{t}\n```",
        lambda t: f"```\n{t}\n```",
        lambda t: f"Sure! Here are the arguments: {t} Hope this helps.",
        lambda t: t.replace('"', "'"),
        lambda t: t[:-1] + ",}" if t.endswith("}") else t + ",",
        lambda t: t.replace("true", "True").replace("null", "None"),
        lambda t: f"// arguments\n{t}",
        lambda t: f"```json\n{t}",
    ]
    return styles[style % len(styles)](text)


def mutate(text: str, changes: list[tuple[int, int, str]]) -> str:
    """Apply ``(operation, position, token)`` edits: insert, delete, replace, truncate, duplicate."""
    for operation, position, token in changes:
        at = position % (len(text) + 1)
        if operation == 0:
            text = text[:at] + token + text[at:]
        elif operation == 1:
            text = text[:at] + text[at + 1 :]
        elif operation == 2:
            text = text[:at] + token + text[at + 1 :]
        elif operation == 3:
            text = text[:at]
        else:
            text = text[:at] + text[at : at + 16] + text[at:]
    return text


edits = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 2**16), st.sampled_from(JSON_TOKENS)), max_size=4
)
json_texts = st.builds(json.dumps, api_objects | argument_objects | json_values)
tuple_texts = st.builds(
    lambda values: repr(tuple(values)), api_objects.map(dict.values) | st.lists(json_values, max_size=5)
)
dressed = st.builds(decorate, json_texts | tuple_texts, st.integers(0, 8))
mutated = st.builds(mutate, dressed, edits)
token_soup = st.lists(st.sampled_from(JSON_TOKENS), max_size=40).map("".join)
long_texts = st.builds(
    lambda chunk, size: chunk * max(1, size // len(chunk)),
    st.sampled_from(LONG_CHUNKS),
    st.integers(1000, 10_000),
)
any_text = st.one_of(st.text(), token_soup, json_texts, tuple_texts, dressed, mutated, long_texts)


@st.composite
def matched_calls(draw: st.DrawFn) -> tuple[ActionExecutor, str, str]:
    """An API with text written for it, mostly in its parser's syntax, dressed and maybe mutated."""
    executor = draw(st.sampled_from(EXECUTORS))
    name = draw(st.sampled_from(sorted(API_PARAMETERS)))
    args = draw(arguments_of(name))
    as_tuple = draw(st.booleans()) if draw(st.integers(0, 4)) == 0 else executor is TUPLE_EXECUTOR
    text = repr(tuple(args.values())) if as_tuple else json.dumps(args)
    return executor, name, mutate(decorate(text, draw(st.integers(0, 8))), draw(st.just([]) | edits))


text_calls = st.tuples(st.sampled_from(EXECUTORS), names, any_text) | matched_calls()

hashables = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=8),
    st.binary(max_size=8),
    st.tuples(st.integers(), st.text(max_size=4)),
    st.frozensets(st.integers(), max_size=3),
)
any_object = st.recursive(
    st.one_of(hashables, st.complex_numbers(), st.just(Ellipsis), st.builds(object), st.builds(bytearray)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.sampled_from(PARAMETER_NAMES) | hashables, inner, max_size=4),
        st.sets(hashables, max_size=4),
    ),
    max_leaves=10,
)
any_argument_object = st.one_of(any_object, api_objects, api_objects.map(lambda args: tuple(args.values())))

DEEP = ["[" * 10_000, "{" * 10_000, '{"text":' * 3_000, "(" * 10_000, '{"text": ' + "[" * 10_000]


# -- checks ---------------------------------------------------------------------------


def executor_label(executor: ActionExecutor, name: Any) -> Optional[str]:
    """The API label (``'Tool.api'`` or ``'Tool'``) a call under ``name`` reaches, if any."""
    if not isinstance(name, str):
        return None
    try:
        return executor.canonical_name(name)
    except ToolNotFoundError:
        pass
    tool, _, api = name.partition(".")
    action = executor.actions.get(tool)
    if action is None:
        return None
    if action.is_toolkit:
        return f"{tool}.{api}" if api else None
    return tool if api in ("", "run") else None


def check_record(ret: object, label: Optional[str], inputs: Any) -> ActionReturn:
    """Assert ``ret`` is one well-formed record; ARGS_ERROR names ``label`` and keeps ``inputs``."""
    assert type(ret) is ActionReturn, type(ret)
    assert ret.state in KNOWN_STATES, ret.state
    assert ret.valid in KNOWN_VALID, ret.valid
    if ret.state == SUCCESS:
        assert ret.errmsg is None
        assert isinstance(ret.result, list)
        return ret
    assert ret.errmsg, ret
    assert isinstance(ret.errmsg, str) or ret.type == NO_ACTION, ret
    if ret.state == ARGS_ERROR:
        assert isinstance(ret.errmsg, str)
        assert ret.args is not None and ret.args["inputs"] is inputs
        assert label is not None, ret.errmsg
        assert ret.errmsg.startswith(f"{label}: "), (label, ret.errmsg)
    return ret


def call_executor(executor: ActionExecutor, name: Any, command: Any) -> ActionReturn:
    return check_record(executor(name, command), executor_label(executor, name), command)


def call_action(action: BaseAction, api: Any, inputs: Any) -> ActionReturn:
    label = action.name if not action.is_toolkit else f"{action.name}.{api}"
    return check_record(action(inputs, api), label, inputs)


# -- nothing raises -------------------------------------------------------------------


@settings(deadline=None, max_examples=300)
@given(call=text_calls)
@example(call=(JSON_EXECUTOR, "PropKit.typed", "\x00"))
@example(call=(JSON_EXECUTOR, "PropKit.typed", '```json\n{"i": 1,}\n```'))
@example(call=(TUPLE_EXECUTOR, "PropEcho", "```python\n('a', 2)\n```"))
def test_any_text_under_any_name_gives_one_well_formed_record(call: tuple[ActionExecutor, str, str]) -> None:
    call_executor(*call)


@pytest.mark.parametrize("command", DEEP, ids=["brackets", "braces", "objects", "parens", "in-a-value"])
@pytest.mark.parametrize("name", ["PropKit.typed", "PropEcho", "PropRaw", "FinishAction"])
@pytest.mark.parametrize("executor", EXECUTORS, ids=["json", "tuple"])
def test_deeply_nested_text_gives_one_well_formed_record(
    executor: ActionExecutor, name: str, command: str
) -> None:
    call_executor(executor, name, command)


@settings(deadline=None, max_examples=200)
@given(
    action=st.sampled_from(ACTIONS),
    api=st.sampled_from([*KIT_APIS, "run"]) | st.text(max_size=10),
    inputs=any_text,
)
def test_any_text_to_any_api_of_an_action_gives_one_well_formed_record(
    action: BaseAction, api: str, inputs: str
) -> None:
    call_action(action, api, inputs)


@settings(deadline=None, max_examples=200)
@given(executor=st.sampled_from(EXECUTORS), name=names | any_object, command=any_argument_object)
@example(executor=JSON_EXECUTOR, name="PropKit.typed", command={1: 2, None: 3, (1, "a"): 4})
@example(executor=TUPLE_EXECUTOR, name="PropKit.typed", command={float("nan"), float("inf")})
@example(executor=JSON_EXECUTOR, name=None, command=b"\x00")
def test_any_python_object_under_any_name_gives_one_well_formed_record(
    executor: ActionExecutor, name: Any, command: Any
) -> None:
    call_executor(executor, name, command)


@settings(deadline=None, max_examples=150)
@given(
    action=st.sampled_from(ACTIONS),
    api=st.sampled_from([*KIT_APIS, "run"]) | any_object,
    inputs=any_argument_object,
)
def test_any_python_object_to_any_api_of_an_action_gives_one_well_formed_record(
    action: BaseAction, api: Any, inputs: Any
) -> None:
    call_action(action, api, inputs)


# -- typed arguments ------------------------------------------------------------------

OMITTED = object()

valid_values: dict[str, st.SearchStrategy[Any]] = {
    "i": st.integers(),
    "f": st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**53), 2**53),
    "s": st.text(),
    "flag": st.booleans(),
    "nums": st.lists(st.integers(), max_size=5),
    "unit": st.sampled_from(["C", "F"]),
    "opt": st.none() | st.integers() | st.just(OMITTED),
}

letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ_ ", min_size=1, max_size=8)
containers = st.lists(st.integers(), max_size=2) | st.dictionaries(
    st.text(max_size=3), st.integers(), max_size=2
)
fractions = st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not x.is_integer())
# Values of the wrong JSON type that no lossless coercion turns into the right one (a
# number becomes its JSON text for a string parameter).
wrong_values: dict[str, st.SearchStrategy[Any]] = {
    "i": st.one_of(fractions, st.booleans(), letters, containers, st.none()),
    "f": st.one_of(st.booleans(), letters, containers, st.none()),
    "s": st.one_of(st.booleans(), containers, st.none()),
    "flag": st.one_of(
        st.integers(), fractions, letters.filter(lambda t: t.strip().lower() not in ("true", "false")),
        containers, st.none(),
    ),
    "nums": st.one_of(
        st.integers(), st.booleans(), letters, st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        st.none(), st.lists(letters | fractions | st.booleans(), min_size=1, max_size=3),
    ),
    "unit": st.one_of(st.text().filter(lambda t: t not in ("C", "F")), st.integers(), containers, st.none()),
    "opt": st.one_of(fractions, st.booleans(), letters, containers),
}  # fmt: skip

CARRIERS = ["json-text", "dict", "tuple-text", "tuple"]


def carry(args: dict[str, Any], carrier: str) -> Any:
    """``args`` as each parser takes them: a JSON string, a dict, a tuple literal, a tuple."""
    if carrier == "json-text":
        return json.dumps(args)
    if carrier == "dict":
        return dict(args)
    values = tuple(args[name] for name in TYPED_ORDER if name in args)
    return repr(values) if carrier == "tuple-text" else values


def executor_for(carrier: str) -> tuple[ActionExecutor, PropKit]:
    if carrier.startswith("tuple"):
        return TUPLE_EXECUTOR, TUPLE_KIT
    return JSON_EXECUTOR, JSON_KIT


@st.composite
def valid_arguments(draw: st.DrawFn) -> dict[str, Any]:
    args = {name: draw(strategy) for name, strategy in valid_values.items()}
    if args["opt"] is OMITTED:
        del args["opt"]
    return args


@st.composite
def wrong_arguments(draw: st.DrawFn, among: tuple[str, ...]) -> tuple[dict[str, Any], list[str]]:
    """Valid arguments with a non-empty subset of ``among`` given values of the wrong type."""
    args = draw(valid_arguments())
    args.setdefault("opt", None)  # a tuple can only give opt a wrong value if it is present
    wrong = draw(st.lists(st.sampled_from(among), min_size=1, unique=True))
    for name in wrong:
        args[name] = draw(wrong_values[name])
    return args, wrong


@settings(deadline=None, max_examples=150)
@given(args=valid_arguments(), carrier=st.sampled_from(CARRIERS))
def test_valid_typed_arguments_reach_the_tool_exactly(args: dict[str, Any], carrier: str) -> None:
    executor, kit = executor_for(carrier)
    kit.received.clear()
    ret = executor("PropKit.typed", carry(args, carrier))
    assert ret.state == SUCCESS, ret.errmsg
    expected = {**args, "f": float(args["f"]), "opt": args.get("opt")}
    assert kit.received == [expected]
    assert {k: type(v) for k, v in kit.received[0].items()} == {k: type(v) for k, v in expected.items()}


def check_refused(args: dict[str, Any], wrong: list[str], carrier: str) -> None:
    executor, kit = executor_for(carrier)
    kit.received.clear()
    ret = executor("PropKit.typed", carry(args, carrier))
    assert ret.state == ARGS_ERROR, (ret.state, ret.result)
    assert kit.received == []
    assert ret.errmsg is not None and ret.errmsg.startswith("PropKit.typed: "), ret.errmsg
    for name in wrong:
        assert re.search(rf"'{name}(\[\d+\])?' expected ", ret.errmsg), (name, ret.errmsg)


# Only the list is wrong: the values of the other parameters have their exact types.
ONLY_THE_LIST_IS_WRONG = {"i": 1, "f": 1.5, "s": "s", "flag": True, "nums": "x", "unit": "C", "opt": None}


@settings(deadline=None, max_examples=200)
@given(args_wrong=wrong_arguments(tuple(TYPED_ORDER)), carrier=st.sampled_from(CARRIERS))
@example(args_wrong=(ONLY_THE_LIST_IS_WRONG, ["nums"]), carrier="json-text")
@example(args_wrong=({**ONLY_THE_LIST_IS_WRONG, "nums": [1], "unit": "K"}, ["unit"]), carrier="tuple")
def test_wrong_json_type_for_any_typed_parameter_is_refused_without_calling_the_tool(
    args_wrong: tuple[dict[str, Any], list[str]], carrier: str
) -> None:
    check_refused(*args_wrong, carrier)


@pytest.mark.parametrize(
    ("name", "command", "expected"),
    [
        pytest.param("PropKit.echo", '{"text": "a", "times": "--1"}', "'times' expected integer", id="--1"),
        pytest.param("PropKit.echo", '{"text": "a", "times": "+-5"}', "'times' expected integer", id="+-5"),
        pytest.param(
            "PropKit.echo",
            '{"text": "a", "times": "' + "1" * 5000 + '"}',
            "'times' expected integer",
            id="5000-digits",
        ),
        pytest.param(
            "PropKit.half", '{"x": 1' + "0" * 400 + "}", "'x' expected number", id="int-beyond-float"
        ),
    ],
)
def test_malformed_or_out_of_range_number_is_refused_naming_api_and_parameter(
    name: str, command: str, expected: str
) -> None:
    ret = JSON_EXECUTOR(name, command)
    assert ret.state == ARGS_ERROR
    assert ret.errmsg is not None and ret.errmsg.startswith(f"{name}: {expected}"), ret.errmsg
    assert "got" in ret.errmsg


# -- bugs -----------------------------------------------------------------------------


class PropUnprintable:
    """An argument whose ``repr`` fails."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(
    ("executor", "name", "command", "prefix"),
    [
        pytest.param(JSON_EXECUTOR, "PropEcho", {"text": 10**5000}, "PropEcho: 'text' expected string", id="json-huge-int"),
        pytest.param(TUPLE_EXECUTOR, "PropEcho", "(0x" + "f" * 4000 + ",)", "PropEcho: 'text' expected string", id="tuple-hex-literal"),
        pytest.param(JSON_EXECUTOR, "PropEcho", PropUnprintable(), "PropEcho: expected a JSON object", id="failing-repr"),
        pytest.param(JSON_EXECUTOR, 10**5000, "{}", "Unknown tool", id="huge-int-name"),
    ],
)  # fmt: skip
def test_unprintable_input_still_gets_a_precise_message(
    executor: ActionExecutor, name: Any, command: Any, prefix: str
) -> None:
    ret = executor(name, command)
    assert ret.errmsg is not None and ret.errmsg.startswith(prefix), ret.errmsg


def seconds(executor: ActionExecutor, name: str, command: str, repeats: int) -> float:
    # This thread's CPU time (the executor parses on the caller's thread): the other
    # processes of a loaded machine do not stretch it as they stretch the wall clock.
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        executor(name, command)
        best = min(best, time.thread_time() - start)
    return best


@pytest.mark.parametrize(
    ("executor", "name", "unit"),
    [
        pytest.param(TUPLE_EXECUTOR, "PropEcho", "```", id="backticks-fenced_blocks"),
        pytest.param(JSON_EXECUTOR, "PropEcho", '"\\', id="escaped-quotes-_PY_LITERALS"),
    ],
)
def test_parsing_time_grows_linearly_with_the_input(executor: ActionExecutor, name: str, unit: str) -> None:
    # 8x the input: linear code takes about 8x the time (measured: 3-9x), quadratic 64x (50-60x).
    # '@' first makes json5 stop at once, so only the extraction is timed.
    small = seconds(executor, name, "@" + unit * 750, repeats=5)
    large = seconds(executor, name, "@" + unit * 6000, repeats=2)
    assert large < 20 * small, (small, large)


def test_finish_action_returns_any_final_answer_text() -> None:
    answer = '{"answer": ' + "[" * 5000
    ret = JSON_EXECUTOR("FinishAction", answer)
    assert (ret.state, ret.valid, ret.format_result()) == (SUCCESS, ActionValidCode.FINISH, answer)


def test_no_action_errmsg_is_text() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "NoAction", "arguments": {"why": "none"}}}
    [message] = JSON_EXECUTOR.run_tool_calls([call])
    assert isinstance(message["content"], str), message
    assert isinstance(JSON_EXECUTOR("NoAction", {"why": "none"}).errmsg, str)


class PropText(str):
    """A ``str`` subclass, as some libraries hand out (``numpy.str_``, ``markupsafe.Markup``)."""


@pytest.mark.parametrize(
    ("executor", "command"),
    [
        pytest.param(JSON_EXECUTOR, '{"text": "hi", "n": 2}', id="json"),
        pytest.param(TUPLE_EXECUTOR, "('hi', 2)", id="tuple"),
    ],
)
def test_str_subclass_is_read_like_str(executor: ActionExecutor, command: str) -> None:
    ret = executor("PropEcho", PropText(command))
    assert (ret.state, ret.format_result()) == (SUCCESS, "hi x2")


def test_tuple_parser_reads_model_text_without_emitting_warnings() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ret = TUPLE_EXECUTOR("PropEcho", "('C:\\data', 2)")
    assert (ret.state, ret.format_result()) == (SUCCESS, "C:\\data x2")
    assert [str(w.message) for w in caught] == []
