"""Re-record Lagent's own descriptions of its built-ins, for ``test_builtin_tools.py``.

Run with Lagent installed beside this package::

    pip install lagent==0.2.4 && python tests/record_lagent_builtins.py     # 0.2.4 fixture
    pip install lagent==0.5.0rc2 && python tests/record_lagent_builtins.py  # 0.5 fixture

Lagent 0.5 imports ``duckduckgo_search`` (``DDGS``, ``AsyncDDGS``) at import time; when
that version is not installable, a stand-in module is used: no search is made here.
``WebBrowser`` is described without building its searcher. The parsers'
``parameter_description`` sentence is left out: the compatibility suite checks it for
every parser, and here only the tools' own text is compared.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

#: Fixture file per Lagent minor version.
FIXTURES = {
    "0.2": HERE / "lagent_builtin_descriptions.json",
    "0.5": HERE / "lagent05_builtin_descriptions.json",
}

#: Constructor arguments each tool needs in Lagent (keys are checked at construction there).
ARGS: dict[str, dict[str, str]] = {
    "BINGMap": {"key": "x"},
    "GoogleScholar": {"api_key": "x"},
    "GoogleSearch": {"api_key": "x"},
}


def without_parameter_description(value: Any) -> Any:
    """``value`` with every ``parameter_description`` key removed, recursively."""
    if isinstance(value, dict):
        return {k: without_parameter_description(v) for k, v in value.items() if k != "parameter_description"}
    if isinstance(value, list):
        return [without_parameter_description(v) for v in value]
    return value


def main() -> None:
    try:
        import duckduckgo_search  # type: ignore[import-not-found]

        usable = hasattr(duckduckgo_search, "AsyncDDGS")
    except ImportError:
        usable = False
    if not usable:
        stub = types.ModuleType("duckduckgo_search")
        stub.DDGS = stub.AsyncDDGS = object  # type: ignore[attr-defined]
        sys.modules["duckduckgo_search"] = stub
    import lagent  # type: ignore[import-not-found]
    import lagent.actions as actions  # type: ignore[import-not-found]
    from lagent.actions.base_action import BaseAction  # type: ignore[import-not-found]

    version = ".".join(lagent.__version__.split(".")[:2])
    names = ["ArxivSearch", "BINGMap", "GoogleScholar", "GoogleSearch", "PPT"]
    if version == "0.5":
        names += ["WebBrowser"]
        names += [f"Async{name}" for name in names]
    recorded = {}
    for name in names:
        cls = getattr(actions, name)
        if name.endswith("WebBrowser"):
            tool = cls.__new__(cls)
            BaseAction.__init__(tool, None, actions.JsonParser)
        else:
            tool = cls(**ARGS.get(name.removeprefix("Async"), {}))
        recorded[name] = without_parameter_description(tool.description)
    FIXTURES[version].write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
