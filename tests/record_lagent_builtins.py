"""Re-record ``lagent_builtin_descriptions.json``: Lagent's own descriptions of its built-ins.

Run with Lagent 0.2.4 installed (``pip install lagent==0.2.4``)::

    python tests/record_lagent_builtins.py

The parsers' ``parameter_description`` sentence is left out: the compatibility suite
checks it for every parser, and here only the tools' own text is compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).with_name("lagent_builtin_descriptions.json")


def without_parameter_description(value: Any) -> Any:
    """``value`` with every ``parameter_description`` key removed, recursively."""
    if isinstance(value, dict):
        return {k: without_parameter_description(v) for k, v in value.items() if k != "parameter_description"}
    if isinstance(value, list):
        return [without_parameter_description(v) for v in value]
    return value


def main() -> None:
    from lagent.actions.arxiv_search import ArxivSearch  # type: ignore[import-not-found]
    from lagent.actions.bing_map import BINGMap  # type: ignore[import-not-found]
    from lagent.actions.google_scholar_search import GoogleScholar  # type: ignore[import-not-found]
    from lagent.actions.google_search import GoogleSearch  # type: ignore[import-not-found]
    from lagent.actions.ppt import PPT  # type: ignore[import-not-found]

    tools = [ArxivSearch(), BINGMap(key="x"), GoogleScholar(api_key="x"), GoogleSearch(api_key="x"), PPT()]
    recorded = {tool.name: without_parameter_description(tool.description) for tool in tools}
    FIXTURE.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
