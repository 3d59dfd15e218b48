"""Every documented import path keeps working after the move to layers, and gives the same objects."""

from __future__ import annotations

import importlib

import pytest

import lagent_like


@pytest.mark.parametrize(
    ("module", "names"),
    [
        pytest.param("lagent_like.runtime.context", ["ToolContext"], id="runtime.context"),
        pytest.param("lagent_like.context", ["ToolContext"], id="context"),
        pytest.param("lagent_like.runtime.hooks", ["Hook", "HookHandle", "ApprovalHook"], id="runtime.hooks"),
        pytest.param("lagent_like.runtime.settings", ["ToolSettings"], id="runtime.settings"),
        pytest.param(
            "lagent_like.runtime.policies", ["RetryPolicy", "CircuitBreaker"], id="runtime.policies"
        ),
        pytest.param(
            "lagent_like.langchain_tools", ["from_langchain", "to_langchain_tools"], id="langchain_tools"
        ),
        pytest.param("lagent_like.langchain", ["from_langchain", "to_langchain_tools"], id="langchain"),
        pytest.param(
            "lagent_like.actions.async_executor", ["AsyncActionExecutor", "AsyncActionMixin"], id="async"
        ),
        pytest.param("lagent_like.actions.function_tool", ["FunctionTool"], id="function_tool"),
        pytest.param("lagent_like.parsers", ["BaseParser", "JsonParser", "TupleParser"], id="parsers"),
    ],
)
def test_a_documented_path_gives_the_package_objects(module: str, names: list[str]) -> None:
    imported = importlib.import_module(module)
    for name in names:
        assert getattr(imported, name) is getattr(lagent_like, name)


def test_the_lint_api_is_importable_from_the_command_line_path() -> None:
    from lagent_like.cli.lint import lint_actions
    from lagent_like.lint import lint_actions as home

    assert lint_actions is home


def test_importing_a_facade_submodule_does_not_shadow_a_package_name() -> None:
    importlib.import_module("lagent_like.actions.function_tool")
    importlib.import_module("lagent_like.actions.async_executor")
    assert lagent_like.actions.tool_api is lagent_like.tool_api
    assert callable(lagent_like.actions.tool_api)
