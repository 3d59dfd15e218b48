"""The code in the documentation runs and prints what the pages say.

Each page runs top to bottom in one namespace: a ``.. code-block:: python`` block is
executed, and a block of ``>>>`` examples is checked with doctest.
"""

from __future__ import annotations

import doctest
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.rst"))
#: Pages whose code needs an optional extra: the module it imports, by page.
EXTRAS = {"mcp.rst": "mcp", "inspector.rst": "starlette"}


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number, code)`` of every ``.. code-block:: python`` block in ``text``."""
    lines = text.splitlines()
    blocks = []
    index = 0
    while index < len(lines):
        if lines[index].strip() in (".. code-block:: python", ".. code-block:: pycon"):
            start = index + 1
            body = []
            index += 1
            while index < len(lines) and (not lines[index].strip() or lines[index].startswith((" ", "\t"))):
                body.append(lines[index])
                index += 1
            blocks.append((start + 1, textwrap.dedent("\n".join(body)).strip("\n")))
        else:
            index += 1
    return blocks


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_doc_page_code_runs(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if page.name in EXTRAS:
        extra = {"starlette": "web"}.get(EXTRAS[page.name], EXTRAS[page.name])  # the module -> its extra
        pytest.importorskip(
            EXTRAS[page.name],
            reason=f"needs the {extra!r} extra: pip install '.[{extra}]' (or 'lagent-like[{extra}]')",
        )
    # A real module, because dataclasses and typing look classes' modules up.
    module = types.ModuleType(f"docs_{page.stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for line, code in python_blocks(page.read_text(encoding="utf-8")):
        if code.lstrip().startswith(">>>"):
            test = parser.get_doctest(code, namespace, f"{page.name}:{line}", str(page), line)
            result = runner.run(test, clear_globs=False)
            assert result.failed == 0, f"{page.name} line {line}: {result.failed} example(s) failed"
        else:
            exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
