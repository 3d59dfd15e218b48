"""Lagent's import paths and prompt sentences work unchanged after ``lagent`` -> ``lagent_like``."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import pytest

from lagent_like import ActionExecutor, BaseAction, JsonParser, TupleParser, tool_api

# Lagent 0.2.4 and 0.5's public names of the action system, by module (read from their
# sources). Modules of built-in tools still being added are checked once they exist.
LAGENT_NAMES: dict[str, tuple[str, ...]] = {
    "actions": (
        "ActionExecutor",
        "ArxivSearch",
        "AsyncActionExecutor",
        "AsyncActionMixin",
        "BaseAction",
        "BaseParser",
        "FinishAction",
        "GoogleSearch",
        "IPythonInterpreter",
        "InvalidAction",
        "JsonParser",
        "NoAction",
        "PythonInterpreter",
        "TupleParser",
        "get_tool",
        "get_tool_cls",
        "list_tools",
        "tool_api",
    ),
    "actions.action_executor": ("ActionExecutor", "AsyncActionExecutor"),
    "actions.base_action": ("AsyncActionMixin", "BaseAction", "TOOL_REGISTRY", "ToolMeta", "tool_api"),
    "actions.builtin_actions": ("FinishAction", "InvalidAction", "NoAction"),
    "actions.parser": ("BaseParser", "JsonParser", "ParseError", "TupleParser"),
    "actions.arxiv_search": ("ArxivSearch",),
    "actions.google_search": ("GoogleSearch",),
    "actions.python_interpreter": ("PythonInterpreter",),
    "actions.ipython_interpreter": ("IPythonInterpreter",),
    "schema": ("ActionReturn", "ActionStatusCode", "ActionValidCode"),
}

# Lagent 0.5 names of tools being added by other work: checked once any name of a row
# exists, so that a module defining some of them must define all.
PENDING_NAMES: dict[str, tuple[str, ...]] = {
    "actions.arxiv_search": ("AsyncArxivSearch",),
    "actions.google_search": ("AsyncGoogleSearch",),
    "actions.python_interpreter": ("AsyncPythonInterpreter",),
    "actions.ipython_interpreter": ("AsyncIPythonInterpreter",),
    "actions.bing_map": ("AsyncBINGMap", "BINGMap"),
    "actions.google_scholar_search": ("AsyncGoogleScholar", "GoogleScholar"),
    "actions.ppt": ("PPT", "AsyncPPT"),
    "actions.web_browser": ("AsyncWebBrowser", "WebBrowser"),
    "actions.ipython_interactive": ("AsyncIPythonInteractive", "IPythonInteractive"),
    "actions.ipython_manager": ("IPythonInteractiveManager",),
}


@pytest.mark.parametrize(("module", "names"), [pytest.param(m, n, id=m) for m, n in LAGENT_NAMES.items()])
def test_lagent_module_paths_import(module: str, names: tuple[str, ...]) -> None:
    loaded = importlib.import_module(f"lagent_like.{module}")
    missing = [n for n in names if not hasattr(loaded, n)]
    assert missing == []


@pytest.mark.parametrize(("module", "names"), [pytest.param(m, n, id=m) for m, n in PENDING_NAMES.items()])
def test_lagent_05_tool_module_paths_import_once_the_tool_exists(module: str, names: tuple[str, ...]) -> None:
    loaded = importlib.import_module(f"lagent_like.{module}") if _exists(module) else None
    if loaded is None or not any(hasattr(loaded, n) for n in names):
        pytest.skip(f"lagent_like.{module} does not define these tools yet")
    missing = [n for n in names if not hasattr(loaded, n)]
    assert missing == []


def _exists(module: str) -> bool:
    return importlib.util.find_spec(f"lagent_like.{module}") is not None


def test_lagent_05_paths_give_the_same_objects() -> None:
    import lagent_like
    from lagent_like.actions.action_executor import AsyncActionExecutor
    from lagent_like.actions.base_action import TOOL_REGISTRY, AsyncActionMixin
    from lagent_like.registry import TOOL_REGISTRY as registry

    assert AsyncActionMixin is lagent_like.AsyncActionMixin
    assert AsyncActionExecutor is lagent_like.AsyncActionExecutor
    assert TOOL_REGISTRY is registry


def test_a_missing_name_on_a_lagent_path_is_an_attribute_error() -> None:
    with pytest.raises(ImportError, match="cannot import name 'Nothing'"):
        from lagent_like.toolkits._base_action import Nothing  # type: ignore[attr-defined]  # noqa: F401


# Lagent's sentences, v0.2.0 to v0.5 (lagent/actions/parser.py).
LAGENT_JSON = (
    "If you call this tool, you must pass arguments in the JSON format {key: value}, "
    "where the key is the parameter name."
)
LAGENT_TUPLE = (
    "If you call this tool, you must pass arguments in the tuple format like (arg1, arg2, arg3), "
    "and the arguments are ordered."
)
# The tutorial's Chinese sentence (seeds/004), fullwidth commas included.
TUTORIAL_ZH = "如果调用该工具，你必须使用Json格式 {key: value} 传参，其中key为参数名称"  # noqa: RUF001


class PathsBold(BaseAction, register=False):
    """Make text bold."""

    def run(self, text: str) -> str:
        """Make text bold.

        Args:
            text: input content
        """
        return f"**{text}**"


class PathsCalc(BaseAction, register=False):
    """A calculator."""

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool_api
    def neg(self, a: int) -> int:
        """Negate a number."""
        return -a


@pytest.mark.parametrize(
    ("parser", "sentence"),
    [
        pytest.param(JsonParser, LAGENT_JSON, id="json-default"),
        pytest.param(TupleParser, LAGENT_TUPLE, id="tuple-default"),
        pytest.param(JsonParser.in_language("en"), LAGENT_JSON, id="json-en"),
        pytest.param(JsonParser.in_language("zh"), TUTORIAL_ZH, id="json-zh"),
        pytest.param(
            TupleParser.in_language("zh"),
            "如果调用该工具，你必须使用元组格式 (arg1, arg2, arg3) 传参，且参数有序",  # noqa: RUF001
            id="tuple-zh",
        ),
    ],
)
def test_parameter_description_is_lagents_sentence(parser: Any, sentence: str) -> None:
    assert PathsBold(parser=parser).description["parameter_description"] == sentence
    apis = PathsCalc(parser=parser).description["api_list"]
    assert [api["parameter_description"] for api in apis] == [sentence, sentence]


def test_tutorial_description_in_chinese_is_byte_identical() -> None:
    # seeds/004: the bold tool with the tutorial's JsonParser output.
    action = PathsBold(parser=JsonParser.in_language("zh"))
    assert action.description == {
        "name": "PathsBold",
        "description": "Make text bold.",
        "parameters": [{"name": "text", "type": "STRING", "description": "input content"}],
        "required": ["text"],
        "parameter_description": TUTORIAL_ZH,
    }


def test_a_language_variant_is_one_class_that_still_parses() -> None:
    zh = JsonParser.in_language("zh")
    assert zh is JsonParser.in_language("zh")
    assert issubclass(zh, JsonParser)
    assert zh.in_language("zh") is zh
    assert zh.in_language("en") is not zh
    assert zh.in_language("en").parameter_description() == LAGENT_JSON
    assert PathsCalc(parser=zh)('{"a": 1, "b": 2}', "add").result == [{"type": "text", "content": "3"}]


def test_an_unknown_language_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(
        ValueError, match=r"JsonParser has no parameter_description in 'fr'; languages: \['en', 'zh'\]"
    ):
        JsonParser.in_language("fr")


def test_a_lagent_style_parser_subclass_keeps_its_own_sentence() -> None:
    class Terse(JsonParser):
        PARAMETER_DESCRIPTION = "JSON please."

    assert PathsBold(parser=Terse).description["parameter_description"] == "JSON please."


def test_executor_takes_a_single_action_as_lagent_does() -> None:
    executor = ActionExecutor(PathsCalc())
    assert executor.action_names() == ["PathsCalc"]
    assert executor("PathsCalc.neg", '{"a": 4}').result == [{"type": "text", "content": "-4"}]


def test_lagent_0_5_exports_the_ipython_shell_tool_from_the_actions_package() -> None:
    from lagent_like import actions
    from lagent_like.actions import ipython_interactive

    assert actions.IPythonInteractive is ipython_interactive.IPythonInteractive
    assert actions.AsyncIPythonInteractive is ipython_interactive.AsyncIPythonInteractive
    from lagent_like.actions import ipython_manager

    assert actions.IPythonInteractiveManager is ipython_manager.IPythonInteractiveManager
