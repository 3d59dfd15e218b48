"""Importing ``lagent_like`` imports what a program uses: its names are read on first use."""

from __future__ import annotations

import importlib

import pytest
from _probe import imported_after, run_python

import lagent_like
import lagent_like.actions

#: Modules that only reading one of the package's names imports.
CORE_MODULES = (
    "lagent_like.executors._action_executor",
    "lagent_like.toolkits._base_action",
    "lagent_like.spec._describe",
    "lagent_like.runtime._core",
    "lagent_like.schema",
    "lagent_like.context",
)


def _imported_after(code: str) -> list[str]:
    """The :data:`CORE_MODULES` a fresh interpreter has imported after running ``code``."""
    return imported_after(code, CORE_MODULES)


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("import lagent_like", id="package"),
        pytest.param("import lagent_like.actions", id="actions"),
        pytest.param("import lagent_like.exceptions", id="exceptions"),
        pytest.param("from lagent_like import ToolError, __version__", id="exception-and-version"),
    ],
)
def test_importing_the_package_imports_no_core_module(code: str) -> None:
    assert _imported_after(code) == []


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param(
            "from lagent_like import BaseAction",
            ["context", "schema", "spec._describe", "toolkits._base_action"],
            id="BaseAction",
        ),
        pytest.param(
            "from lagent_like import ActionExecutor",
            [m.split(".", 1)[1] for m in sorted(CORE_MODULES)],
            id="ActionExecutor",
        ),
    ],
)
def test_reading_a_name_imports_what_it_needs(code: str, expected: list[str]) -> None:
    assert _imported_after(code) == [f"lagent_like.{name}" for name in expected]


@pytest.mark.parametrize(
    ("name", "module"),
    [
        pytest.param("ActionExecutor", "lagent_like.executors._action_executor", id="ActionExecutor"),
        pytest.param("BaseAction", "lagent_like.toolkits._base_action", id="BaseAction"),
        pytest.param("tool_api", "lagent_like.toolkits._tool_api", id="tool_api"),
        pytest.param("ApiSpec", "lagent_like.spec._api_spec", id="ApiSpec"),
        pytest.param("JsonParser", "lagent_like.parsers._json_parser", id="JsonParser"),
        pytest.param("ActionReturn", "lagent_like.schema", id="ActionReturn"),
        pytest.param("ToolContext", "lagent_like.context", id="ToolContext"),
        pytest.param("ToolSettings", "lagent_like.runtime.settings", id="ToolSettings"),
        pytest.param("Hook", "lagent_like.runtime.hooks", id="Hook"),
        pytest.param("to_langchain_tools", "lagent_like.langchain._convert", id="to_langchain_tools"),
    ],
)
def test_a_lazily_read_name_is_the_object_of_its_module_and_is_kept(name: str, module: str) -> None:
    value = getattr(lagent_like, name)
    assert value is getattr(importlib.import_module(module), name)
    assert vars(lagent_like)[name] is value  # later reads are plain attribute reads
    if name in lagent_like.actions.__all__:
        assert getattr(lagent_like.actions, name) is value


def test_star_import_gives_every_exported_name() -> None:
    namespace: dict[str, object] = {}
    exec("from lagent_like import *", namespace)
    assert sorted(name for name in namespace if name != "__builtins__") == sorted(lagent_like.__all__)


def test_a_class_defined_after_a_lazy_import_is_registered_and_described() -> None:
    code = (
        "from lagent_like import BaseAction, get_tool_cls\n"
        "class LazyAdd(BaseAction):\n"
        "    def run(self, a: int) -> int:\n"
        "        '''Add one.\n\n        Args:\n            a: the number\n        '''\n"
        "        return a + 1\n"
        "print(get_tool_cls('LazyAdd') is LazyAdd, LazyAdd.__tool_description__['parameters'])"
    )
    assert run_python(code).strip() == "True [{'name': 'a', 'type': 'NUMBER', 'description': 'the number'}]"


@pytest.mark.parametrize(
    "path",
    ["schema", "context", "langchain", "runtime.hooks", "runtime.settings", "runtime.policies"],
)
def test_a_public_submodule_is_reachable_from_a_bare_package_import(path: str) -> None:
    code = f"import lagent_like, sys\nprint(lagent_like.{path} is sys.modules['lagent_like.{path}'])"
    assert run_python(code).strip() == "True"


def test_an_unknown_name_is_still_an_attribute_error_naming_the_package() -> None:
    with pytest.raises(AttributeError, match=r"^module 'lagent_like' has no attribute 'executor'$"):
        _ = lagent_like.executor
