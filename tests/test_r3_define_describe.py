"""Describing a function reads each docstring text once and plain signatures and hints without inspect."""

from __future__ import annotations

import builtins
import functools
import inspect
import types
import typing
import warnings
from typing import Any, Callable, Optional

import pytest

from lagent_like import BaseAction, DefinitionWarning, ToolDefinitionError, tool_api
from lagent_like.spec import _describe, _docstrings
from lagent_like.toolkits._tool_api import api_spec_of


def _counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the text of every docstring read, by docstring-parser or by the plain Google reader."""
    seen: list[str] = []
    original = _docstrings.parse_with_library
    plain = _docstrings.read_plain_google

    def counted(text: str, style: str) -> _docstrings.DocInfo:
        seen.append(text)
        return original(text, style)

    def counted_plain(text: str, titles: frozenset[str]) -> Optional[Any]:
        found = plain(text, titles)
        if found is not None:
            seen.append(text)
        return found

    monkeypatch.setattr(_docstrings, "parse_with_library", counted)
    monkeypatch.setattr(_docstrings, "read_plain_google", counted_plain)
    return seen


def _function(doc: str, namespace: Optional[dict[str, Any]] = None) -> Callable[..., Any]:
    """A new function ``f(a: int, b: str = "x")`` with ``doc`` as its docstring."""
    scope: dict[str, Any] = {} if namespace is None else namespace
    exec("def f(a: int, b: str = 'x') -> int:\n    return a\n", scope)
    function: Callable[..., Any] = scope["f"]
    function.__doc__ = doc
    return function


ONCE_DOC = """Count the rows of a once-read table.

Args:
    a: the table's number
    b: the filter
"""


def test_a_docstring_text_is_parsed_once_for_every_function_that_has_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _counting_parses(monkeypatch)
    first, second = _function(ONCE_DOC), _function(ONCE_DOC)
    tool_api(first)
    tool_api(second)
    assert len(seen) == 1
    first_spec, second_spec = api_spec_of(first), api_spec_of(second)
    assert first_spec is not None and second_spec is not None
    assert (
        first_spec.description
        == second_spec.description
        == {
            "name": "f",
            "description": "Count the rows of a once-read table.",
            "parameters": [
                {"name": "a", "type": "NUMBER", "description": "the table's number"},
                {"name": "b", "type": "STRING", "description": "the filter"},
            ],
            "required": ["a"],
        }
    )


def test_a_different_docstring_text_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _counting_parses(monkeypatch)
    tool_api(_function(ONCE_DOC.replace("once-read", "twice-read")))
    tool_api(_function(ONCE_DOC.replace("once-read", "thrice-read")))
    assert len(seen) == 2


STRAY_DOC = """Read a stray-noted value.

Args:
    a: the value
    c: a parameter the function does not have
"""


def test_a_shared_docstring_warns_every_definition_the_same_and_keeps_its_notes() -> None:
    messages = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tool_api(_function(STRAY_DOC))
        messages.append([str(w.message) for w in caught if w.category is DefinitionWarning])
    expected = (
        "f: the docstring describes ['c'], which the signature does not have (left out); "
        "parameters are ['a', 'b']"
    )
    assert messages == [[expected], [expected]]
    assert _docstrings.parse_docstring(STRAY_DOC).warnings == []


CHOICES_DOC = """Pick a shared-choice colour.

Args:
    b: the colour (choices: ["red", "blue"])
"""


def test_describing_choices_leaves_the_shared_parsed_docstring_unchanged() -> None:
    before = dict(_docstrings.parse_docstring(CHOICES_DOC).params)
    spec = api_spec_of(tool_api(_function(CHOICES_DOC)))
    assert spec is not None
    assert spec.description["parameters"][1] == {
        "name": "b",
        "type": "STRING",
        "description": "the colour",
        "enum": ["red", "blue"],
    }
    assert _docstrings.parse_docstring(CHOICES_DOC).params == before


class Shadow:
    """A class named like nothing builtin."""


# String annotations (this module uses ``from __future__ import annotations``): each
# resolves to what typing.get_type_hints gives, by the quick lookup or by typing.
@pytest.mark.parametrize(
    ("source", "namespace"),
    [
        pytest.param("def f(a: int, b: str, c: float = 1.0) -> None: ...", {}, id="builtin-classes"),
        pytest.param("def f(a: Shadow) -> Shadow: ...", {"Shadow": Shadow}, id="module-class"),
        pytest.param("def f(a: str) -> int: ...", {"str": Shadow}, id="global-shadows-builtin"),
        pytest.param("def f(a: list[int], b: dict[str, int]) -> int: ...", {}, id="generic-aliases"),
        pytest.param(
            "def f(a: Optional[int] = None) -> int: ...", {"Optional": Optional}, id="typing-special-form"
        ),
        pytest.param("def f(a: int = None) -> int: ...", {}, id="none-default"),
        pytest.param("def f(a: 'int') -> int: ...", {}, id="quoted-twice"),
        pytest.param("def f(a: Any) -> int: ...", {"Any": typing.Any}, id="typing-any"),
    ],
)
@pytest.mark.filterwarnings("ignore:.*no JSON value is a Shadow")  # a plain class, on purpose
def test_string_annotations_resolve_as_get_type_hints_does(source: str, namespace: dict[str, Any]) -> None:
    scope = dict(namespace)
    exec(source, scope)
    function = scope["f"]
    # What get_type_hints reads from the annotations alone: before Python 3.11 it also
    # wraps the hint of a parameter defaulting to None in Optional, which descriptions
    # never did (on any version), so the defaults are left out of what it is given.
    annotations_only = types.FunctionType(function.__code__, function.__globals__)
    annotations_only.__annotations__ = function.__annotations__
    expected = typing.get_type_hints(annotations_only, include_extras=True)
    spec = api_spec_of(tool_api(function))
    assert spec is not None
    assert {p.name: p.annotation for p in spec.params} == {
        name: hint for name, hint in expected.items() if name != "return"
    }


def test_a_namespace_with_its_own_builtins_resolves_names_as_eval_does() -> None:
    scope: dict[str, Any] = {"__builtins__": {**vars(builtins), "int": str}}
    exec("def f(a: int) -> None: ...", scope)
    spec = api_spec_of(tool_api(scope["f"]))
    assert spec is not None
    assert spec.params[0].annotation is str
    assert spec.description["parameters"][0]["type"] == "STRING"


def test_an_unknown_annotation_name_is_still_refused_at_definition() -> None:
    scope: dict[str, Any] = {}
    exec("def f(a: Nowhere) -> int: ...", scope)
    with pytest.raises(
        ToolDefinitionError, match=r"cannot resolve the annotation 'Nowhere' of parameter 'a'"
    ):
        tool_api(scope["f"])


def _params_by_inspect(function: Callable[..., Any]) -> list[tuple[str, bool, Any]]:
    """``(name, required, default)`` of the parameters a model can pass, from inspect.signature."""
    described = []
    for index, (name, param) in enumerate(inspect.signature(function).parameters.items()):
        if (index == 0 and name == "self") or param.kind is param.VAR_KEYWORD:
            continue
        required = param.default is inspect.Parameter.empty
        described.append((name, required, None if required else param.default))
    return described


def keyword_only(a: int, *, b: int, c: str = "c") -> int:
    """Take keyword-only parameters."""
    return a


def mixed_defaults(a: int, b: int = 2, c: Optional[int] = None, **rest: int) -> int:
    """Take some defaults and more keywords."""
    return a


def method_like(self: Any, a: int, *, b: bool = True) -> int:
    """Be a method."""
    return a


def no_parameters() -> int:
    """Take nothing."""
    return 0


@pytest.mark.parametrize(
    "function",
    [
        pytest.param(keyword_only, id="keyword-only"),
        pytest.param(mixed_defaults, id="defaults-and-kwargs"),
        pytest.param(method_like, id="self-first"),
        pytest.param(no_parameters, id="none"),
    ],
)
def test_a_plain_function_is_read_off_its_code_as_inspect_reads_it(function: Callable[..., Any]) -> None:
    spec = _describe.build_api_spec(function, _describe.DEFAULT_OPTIONS)
    assert [(p.name, p.required, None if p.required else p.default) for p in spec.params] == (
        _params_by_inspect(function)
    )
    assert spec.accepts_any_kwargs == (function is mixed_defaults)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param(
            "def f(a: int, /, b: int) -> int: ...",
            r"parameter 'a' is positional-only; tools receive keyword arguments",
            id="positional-only",
        ),
        pytest.param(
            "def f(a: int, *more: int, b: int = 0) -> int: ...",
            r"parameter '\*more' cannot be given by a model",
            id="var-positional",
        ),
    ],
)
def test_parameters_a_model_cannot_pass_are_refused_at_class_creation(source: str, message: str) -> None:
    scope: dict[str, Any] = {}
    exec(source, scope)
    with pytest.raises(ToolDefinitionError, match=message):

        class Refused(BaseAction, register=False):
            run = scope["f"]


def _signature_set(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


vars(_signature_set)["__signature__"] = inspect.Signature(
    [inspect.Parameter("x", inspect.Parameter.KEYWORD_ONLY, annotation=str)]
)


def _wrapped(query: str, limit: int = 5) -> str:
    """Search for a query."""
    return query


@functools.wraps(_wrapped)
def _wrapper(*args: Any, **kwargs: Any) -> str:
    return _wrapped(*args, **kwargs)


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        pytest.param(_signature_set, [("x", "STRING")], id="__signature__"),
        pytest.param(_wrapper, [("query", "STRING"), ("limit", "NUMBER")], id="__wrapped__"),
    ],
)
def test_a_function_that_gives_another_signature_is_described_by_it(
    function: Callable[..., Any], expected: list[tuple[str, str]]
) -> None:
    spec = _describe.build_api_spec(function, _describe.DEFAULT_OPTIONS)
    assert [(p.name, p.type) for p in spec.params] == expected
