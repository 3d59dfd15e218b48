"""``from lagent_like.tools import PythonInterpreter``, as the docs write it, works and is cheap."""

from __future__ import annotations

import subprocess
import sys

import pytest

import lagent_like.actions
import lagent_like.tools

SHIPPED = sorted(lagent_like.tools.__all__)


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_tool_is_the_one_lagents_path_gives(name: str) -> None:
    assert getattr(lagent_like.tools, name) is getattr(lagent_like.actions, name)


def test_the_package_exports_every_registered_shipped_tool_and_lagent_05s_shell_tools() -> None:
    from lagent_like.registry import BUILTIN_TOOLS

    shipped = {name for name, module in BUILTIN_TOOLS.items() if module.startswith("lagent_like.tools.")}
    assert set(SHIPPED) == shipped | {
        "IPythonInteractive",
        "AsyncIPythonInteractive",
        "IPythonInteractiveManager",
    }


def test_dir_lists_the_tools_before_they_are_imported() -> None:
    assert set(SHIPPED) <= set(dir(lagent_like.tools))


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    with pytest.raises(AttributeError, match=r"^module 'lagent_like.tools' has no attribute 'Calculator'$"):
        lagent_like.tools.Calculator  # noqa: B018 - the lookup is the test


def test_importing_the_package_imports_no_tool() -> None:
    code = (
        "import sys, lagent_like.tools\n"
        "print(sorted(m for m in sys.modules if m.startswith('lagent_like.tools.')))\n"
        "from lagent_like.tools import BINGMap\n"
        "print(sorted(m for m in sys.modules if m.startswith('lagent_like.tools.') and 'web' in m))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "[]",
        "['lagent_like.tools.web', 'lagent_like.tools.web._web_api', 'lagent_like.tools.web.bing_map']",
    ]
