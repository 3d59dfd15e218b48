"""The pages' plain ``>>>`` examples (not inside a code block) print what the pages say.

``tests/test_docs.py`` runs the ``.. code-block:: python`` blocks; a page may also show a
doctest block at the left margin (reST reads a paragraph starting with ``>>>`` as one).
Those are checked here, with the page's code blocks run before them in page order, so
that they see the names the page defined. And where two pages state one behaviour, the
statement is checked against the code with the page's own example.
"""

from __future__ import annotations

import doctest
import importlib
import re
import sys
import textwrap
import types
import warnings
from pathlib import Path
from typing import Any

import pytest

from lagent_like import DefinitionWarning, FunctionTool, ToolDefinitionError, tool_api
from lagent_like.lint import lint_action

DOCS = Path(__file__).resolve().parents[1] / "docs"
CODE_BLOCK_STARTS = (".. code-block:: python", ".. code-block:: pycon")


def page_blocks(text: str) -> list[tuple[int, str, bool]]:
    """``(line number, code, is_doctest)`` of each code block and left-margin ``>>>`` block, in order."""
    lines = text.splitlines()
    blocks: list[tuple[int, str, bool]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.strip() in CODE_BLOCK_STARTS:
            start = index + 1
            index += 1
            body = []
            while index < len(lines) and (not lines[index].strip() or lines[index].startswith((" ", "\t"))):
                body.append(lines[index])
                index += 1
            code = textwrap.dedent("\n".join(body)).strip("\n")
            blocks.append((start + 1, code, code.lstrip().startswith(">>>")))
        elif line.startswith(">>>"):
            start = index
            body = []
            while index < len(lines) and lines[index].strip():
                body.append(lines[index])
                index += 1
            blocks.append((start + 1, "\n".join(body), True))
        else:
            index += 1
    return blocks


def has_margin_doctest(page: Path) -> bool:
    """Whether ``page`` has a ``>>>`` block at the left margin."""
    return any(line.startswith(">>>") for line in page.read_text(encoding="utf-8").splitlines())


PAGES = [page for page in sorted(DOCS.glob("*.rst")) if has_margin_doctest(page)]


def test_the_pages_with_margin_doctests_are_found() -> None:
    assert [page.name for page in PAGES] == ["getting-started.rst", "writing-tools.rst"]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_margin_doctests_print_what_the_page_says(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # test_docs.py's module name: the page's classes, defined again, replace their
    # registry entries (a re-run notebook cell) instead of clashing with them.
    module = types.ModuleType(f"docs_{page.stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for line, code, is_doctest in page_blocks(page.read_text(encoding="utf-8")):
        if is_doctest:
            test = parser.get_doctest(code, namespace, f"{page.name}:{line}", str(page), line)
            result = runner.run(test, clear_globs=False)
            assert result.failed == 0, f"{page.name} line {line}: {result.failed} example(s) failed"
            namespace.update(test.globs)  # a DocTest runs in a copy; later blocks see its names
        else:
            exec(compile(code, f"{page.name}:{line}", "exec"), namespace)


# writing-tools.rst ("Docstring styles") and compatibility.rst (the docstring row of the
# differences) say what a docstring describing a parameter the signature lacks does.
def forecast(city: str) -> str:
    """Forecast for a city.

    Args:
        city: the city name
        country: the country
    """
    return city


def test_a_docstring_naming_a_missing_parameter_warns_and_describes_the_rest() -> None:
    with pytest.warns(DefinitionWarning) as caught:
        described = tool_api(forecast)
    assert [str(w.message) for w in caught] == [
        "forecast: the docstring describes ['country'], which the signature does not have "
        "(left out); parameters are ['city']"
    ]
    assert described.api_description["parameters"] == [
        {"name": "city", "type": "STRING", "description": "the city name"}
    ]


def test_a_docstring_naming_a_missing_parameter_is_a_lint_warning_not_an_error() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefinitionWarning)
        tool = FunctionTool(forecast)
    findings = [(f.code, f.severity, f.message) for f in lint_action(tool)]
    assert (
        "doubtful-definition",
        "warning",
        "the docstring describes ['country'], which the signature does not have (left out); "
        "parameters are ['city']; fix the docstring",
    ) in findings


def test_the_pages_state_the_warning_not_a_definition_error() -> None:
    pages = {
        name: (DOCS / name).read_text(encoding="utf-8") for name in ("writing-tools.rst", "compatibility.rst")
    }
    assert "a documented parameter the function lacks" in pages["compatibility.rst"]
    statement = pages["writing-tools.rst"].split(
        "A docstring that describes a parameter the signature does not"
    )[1]
    statement = " ".join(statement.split("\n\n")[0].split())
    assert "DefinitionWarning" in statement
    assert "left out" in statement
    assert ToolDefinitionError.__name__ not in statement


def import_path_statements() -> list[tuple[str, list[str]]]:
    """``(module, names)`` of each path compatibility.rst's "Import paths" item lists."""
    text = (DOCS / "compatibility.rst").read_text(encoding="utf-8")
    item = " ".join(text.split("* **Import paths**")[1].split("\n* ")[0].split())
    pairs = re.findall(r"``(lagent_like[\w.]*)``(?: \((?:with )?((?:``\w+``(?:, )?)+)\))?", item)
    return [(module, re.findall(r"``(\w+)``", names)) for module, names in pairs]


def test_compatibility_lists_lagents_import_paths() -> None:
    assert [module for module, _ in import_path_statements()] == [
        "lagent_like.actions",
        "lagent_like.actions.base_action",
        "lagent_like.actions.action_executor",
        "lagent_like.actions.parser",
        "lagent_like.actions.builtin_actions",
        "lagent_like.schema",
    ]


@pytest.mark.parametrize(
    ("module", "names"),
    [pytest.param(module, names, id=module) for module, names in import_path_statements()],
)
def test_each_import_path_compatibility_lists_imports_its_names(module: str, names: list[str]) -> None:
    imported = importlib.import_module(module)
    assert [name for name in names if not hasattr(imported, name)] == []
