"""Importing the core names imports what defining, building and calling need, nothing heavier."""

from __future__ import annotations

import pytest
from _benchmarks import benchmark_module
from _probe import imported_after, run_python

#: Modules a program that defines, builds and calls tools never needs at import: other
#: libraries (optional extras), the standard library's heavy packages, and the package's
#: own subpackages and modules for what only some programs do.
NOT_IMPORTED = (
    "asyncio",
    "concurrent.futures",
    "difflib",
    "docstring_parser",
    "email",
    "http",
    "json5",
    "jsonschema",
    "logging",
    "multiprocessing",
    "pydantic",
    "pyjson5",
    "requests",
    "socket",
    "subprocess",
    "textwrap",
    "lagent_like.agents",
    "lagent_like.langchain._convert",
    "lagent_like.executors._async_executor",
    "lagent_like.lint",
    "lagent_like.llms",
    "lagent_like.mcp",
    "lagent_like.parsers._tuple_parser",
    "lagent_like.runtime._pool",
    "lagent_like.runtime.policies",
    "lagent_like.spec._choices",
    "lagent_like.spec._metadata",
    "lagent_like.toolkits._builtin_actions",
    "lagent_like.toolkits._schema_tool",
    "lagent_like.tools",
    "lagent_like.types._schema_compiler",
    "lagent_like.web",
)


def _imported(code: str) -> list[str]:
    """The :data:`NOT_IMPORTED` modules a fresh interpreter holds after running ``code``."""
    return imported_after(code, NOT_IMPORTED)


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("from lagent_like import ActionExecutor, BaseAction, tool_api", id="core-names"),
        pytest.param("from lagent_like import BaseAction, tool_api", id="define-only"),
        pytest.param("import lagent_like", id="package"),
    ],
)
def test_the_core_import_imports_no_heavy_module(code: str) -> None:
    assert _imported(code) == []


def test_the_core_import_changes_no_global_state() -> None:
    probe = (
        "import sys, warnings, logging\n"
        "before = (list(warnings.filters), sys.getrecursionlimit(), list(sys.meta_path), "
        "logging.getLogger().handlers[:])\n"
        "from lagent_like import ActionExecutor, BaseAction, tool_api\n"
        "after = (list(warnings.filters), sys.getrecursionlimit(), list(sys.meta_path), "
        "logging.getLogger().handlers[:])\n"
        "print(before == after)"
    )
    assert run_python(probe).strip() == "True"


@pytest.mark.parametrize(
    ("core_ms", "verdict"),
    [
        pytest.param(39.9, "ok", id="under-40ms"),
        pytest.param(40.1, "OVER", id="over-40ms"),
    ],
)
def test_bench_scale_judges_the_import_of_the_core_names_and_reports_the_bare_import(
    core_ms: float, verdict: str
) -> None:
    bench = benchmark_module("bench_scale")
    table = bench.format_table([100], [], {"lagent_like": 90.0, bench.CORE_IMPORT: core_ms}, 5)
    rows = {line.split("  ")[0]: line.split()[-1] for line in table.splitlines()[3:]}
    assert rows == {"import lagent_like": "-", bench.CORE_IMPORT: verdict}


def test_the_core_import_compiles_no_pattern_of_tool_search() -> None:
    probe = (
        "import re, sys\n"
        "compile_ = re._compile\n"
        "seen = []\n"
        "def counted(pattern, flags):\n"
        "    seen.append(sys._getframe(2).f_code.co_filename)\n"
        "    return compile_(pattern, flags)\n"
        "re._compile = counted\n"
        "from lagent_like import ActionExecutor, BaseAction, tool_api\n"
        "print(sorted({f.replace(chr(92), '/').rsplit('lagent_like/', 1)[-1] for f in seen if 'lagent_like' in f}))\n"
    )
    compiled_in = eval(run_python(probe))
    assert "executors/_find.py" not in compiled_in
    assert all(not name.startswith("spec/_docstrings") for name in compiled_in)
