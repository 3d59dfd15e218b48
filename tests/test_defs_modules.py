"""Issue 20, item 8: ``from_object`` given a class, and modules of plain function tools.

``BaseAction.from_object(SomeClass)`` exposes the class's static and class methods, or
refuses; never its metaclass's (``mro``, ``register``). ``lagent-like lint`` and the
CLI's ``-m`` take a module of function tools as they take a module of classes.
"""

from __future__ import annotations

import itertools
import json
import textwrap
from abc import ABC
from pathlib import Path
from typing import Any

import pytest

from lagent_like import ActionExecutor, BaseAction, ToolDefinitionError
from lagent_like.cli import main
from lagent_like.cli.lint import LintFinding, lint_targets


class Units(ABC):  # noqa: B024 - ABCMeta has a Python method, register, never to be exposed
    """Unit conversions."""

    factor = 2

    @staticmethod
    def km_to_miles(km: float) -> float:
        """Convert kilometres to miles.

        Args:
            km: the distance in kilometres
        """
        return round(km * 0.621371, 4)

    @classmethod
    def scale(cls, x: int) -> int:
        """Scale a value by the class factor.

        Args:
            x: the value
        """
        return x * cls.factor

    def needs_instance(self, y: int) -> int:
        """Needs an instance."""
        return y


def test_from_object_of_a_class_exposes_its_static_and_class_methods() -> None:
    kit = BaseAction.from_object(Units)
    assert kit.name == "Units"
    assert kit.description["description"] == "Unit conversions."
    assert [api["name"] for api in kit.description["api_list"]] == ["km_to_miles", "scale"]
    assert kit.description["api_list"][1]["parameters"] == [
        {"name": "x", "type": "NUMBER", "description": "the value"}
    ]
    executor = ActionExecutor([kit])
    assert executor("Units.scale", '{"x": 4}').result == [{"type": "text", "content": "8"}]
    assert executor("Units.km_to_miles", '{"km": 10}').result == [{"type": "text", "content": "6.2137"}]


class OnlyInstanceMethods:
    def lookup(self, key: str) -> str:
        """Look a key up."""
        return key


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param((OnlyInstanceMethods,), "from_object(OnlyInstanceMethods): was given the class OnlyInstanceMethods, which has no public static or class method; to expose its methods, pass an instance: from_object(OnlyInstanceMethods(...))", id="no-static-methods"),
        pytest.param((Units, ["needs_instance"]), "from_object(Units): include names ['needs_instance'], which are not static or class methods; public static or class methods are ['km_to_miles', 'scale']", id="include-instance-method"),
        pytest.param((Units, ["register"]), "from_object(Units): include names ['register'], which are not static or class methods; public static or class methods are ['km_to_miles', 'scale']", id="include-metaclass-method"),
        pytest.param((Units, None, ["mro"]), "from_object(Units): exclude names ['mro'], which are not among the methods ['km_to_miles', 'scale']", id="exclude-metaclass-method"),
    ],
)  # fmt: skip
def test_from_object_of_a_class_refuses_what_it_cannot_expose(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ToolDefinitionError) as raised:
        BaseAction.from_object(*args)
    assert str(raised.value) == message


# -- modules of function tools: lint and -m ---------------------------------------------

_NUMBERS = itertools.count()

PLAIN_FUNCTIONS = '''
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: the first
        b: the second
    """
    return a + b


def shout(text):
    return text.upper()


def _helper() -> None:
    pass
'''

MARKED_FUNCTIONS = '''
from lagent_like import tool_api


@tool_api
def greet(name: str) -> str:
    """Greet someone.

    Args:
        name: who
    """
    return "hello " + name


def helper(x: int) -> int:
    return x
'''


def write_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> str:
    """Write ``source`` as a module with a name no other test uses; return the name."""
    name = f"defs_module_{next(_NUMBERS)}_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_lint_takes_a_module_of_plain_functions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = write_module(tmp_path, monkeypatch, PLAIN_FUNCTIONS)
    findings = [(f.api, f.code) for f in lint_targets([module]) if f.code != "size"]
    assert findings == [
        ("shout", "no-description"),
        ("shout", "param-no-description"),
        ("shout", "default-string-type"),
    ]


def test_lint_takes_only_the_tool_api_functions_of_a_module_that_marks_some(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = write_module(tmp_path, monkeypatch, MARKED_FUNCTIONS)
    assert [f.api for f in lint_targets([module])] == ["greet"]


def test_lint_reports_a_function_that_cannot_be_described(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = write_module(
        tmp_path, monkeypatch, "def total(*numbers: int) -> int:\n    return sum(numbers)\n"
    )
    assert lint_targets([module]) == [
        LintFinding(
            "error",
            "total",
            "total",
            "definition-error",
            "parameter '*numbers' cannot be given by a model, which sends arguments by name; "
            "take a list instead (numbers: list[...]) or leave it out",
        )
    ]


def test_lint_reports_an_unread_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = '''
    from lagent_like import BaseAction


    class SlowEcho(BaseAction, register=False):
        timeout = 5.0

        def run(self, text: str) -> str:
            """Echo the text.

            Args:
                text: the text
            """
            return text
    '''
    module = write_module(tmp_path, monkeypatch, source)
    with pytest.warns(Warning, match="SlowEcho: timeout = 5.0 in the class body"):
        findings = lint_targets([module])
    assert [(f.severity, f.message) for f in findings if f.code == "unread-setting"] == [
        (
            "warning",
            "timeout = 5.0 in the class body is read by nothing in the tool, and the executor does not "
            "read it as a runtime setting; to set the tool's timeout, use __tool_settings__ = "
            "ToolSettings(timeout=...) or the constructor keyword SlowEcho(timeout=...)",
        )
    ]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        pytest.param(["list", "--json"], None, id="list"),
        pytest.param(["describe", "add"], {"name": "add", "description": "Add two numbers.", "parameters": [{"name": "a", "type": "NUMBER", "description": "the first"}, {"name": "b", "type": "NUMBER", "description": "the second"}], "required": ["a", "b"], "parameter_description": "If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name."}, id="describe"),
    ],
)  # fmt: skip
def test_cli_m_takes_a_module_of_plain_functions(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    expected: Any,
) -> None:
    module = write_module(tmp_path, monkeypatch, PLAIN_FUNCTIONS)
    assert main(["-m", module, *command]) == 0
    printed = json.loads(capsys.readouterr().out)
    if expected is None:
        assert printed[-2:] == ["add", "shout"]
    else:
        assert printed == expected


def test_cli_m_calls_a_function_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = write_module(tmp_path, monkeypatch, MARKED_FUNCTIONS)
    assert main(["-m", module, "call", "greet", '{"name": "Ada"}']) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["type"], record["result"]) == ("greet", [{"type": "text", "content": "hello Ada"}])


def test_cli_m_offers_function_tools_in_prompts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = write_module(tmp_path, monkeypatch, MARKED_FUNCTIONS)
    assert main(["-m", module, "prompt", "--tools", "greet", "--format", "openai"]) == 0
    assert [tool["function"]["name"] for tool in json.loads(capsys.readouterr().out)] == ["greet"]


def test_cli_m_refuses_a_function_that_cannot_be_described(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = write_module(
        tmp_path, monkeypatch, "def total(*numbers: int) -> int:\n    return sum(numbers)\n"
    )
    assert main(["-m", module, "list"]) == 2
    assert capsys.readouterr().err == (
        f"lagent-like: error: module {module!r}: total: parameter '*numbers' cannot be given by a model, "
        "which sends arguments by name; take a list instead (numbers: list[...]) or leave it out\n"
    )


class Catalogue:
    """A catalogue."""

    @classmethod
    def sections(cls) -> list[str]:
        """List the sections."""
        return ["books"]


def test_from_object_of_an_instance_takes_its_class_methods_when_included() -> None:
    kit = BaseAction.from_object(Catalogue(), include=["sections"])
    assert ActionExecutor([kit])("Catalogue.sections", "{}").result == [
        {"type": "text", "content": '["books"]'}
    ]
