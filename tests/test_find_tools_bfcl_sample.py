"""Recall of the lexical ranker on the committed BFCL sample (benchmarks/data/tool_search_sample.json).

The floors are the figures measured with the current ranker (1,997 functions, 319
requests, each searched with its function as its own test case describes it); a
change to the ranker that loses recall fails here. The full benchmark is
``benchmarks/bench_tool_search.py --bfcl``. Both stemmers are checked: Snowball's (the
``search`` extra) and the built-in suffix stripper used without it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from lagent_like.executors import _find

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_tool_search  # noqa: E402


def _snowball() -> Optional[Callable[[str], str]]:
    if importlib.util.find_spec("snowballstemmer") is None:
        return None
    return _find._stemmer()


@pytest.mark.parametrize(
    ("stem", "floor_at_1", "floor_at_5"),
    [
        pytest.param("snowball", 0.695, 0.912, id="snowball"),
        pytest.param("suffix-stripper", 0.692, 0.887, id="suffix-stripper"),
    ],
)
def test_lexical_recall_on_the_bfcl_sample(
    stem: str, floor_at_1: float, floor_at_5: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    stemmer = _snowball() if stem == "snowball" else _find._strip_suffix
    if stemmer is None:
        pytest.skip("snowballstemmer is not installed")
    monkeypatch.setattr(_find, "_WORDS", _find._Words(stemmer))
    data: dict[str, Any] = json.loads(bench_tool_search.SAMPLE.read_text(encoding="utf-8"))
    assert (len(data["functions"]), len(data["queries"])) == (1997, 319)
    recall = bench_tool_search.recall(_find.LexicalRanker(), data)
    assert recall[1] >= floor_at_1
    assert recall[5] >= floor_at_5


def test_the_benchmark_reads_a_function_as_the_executor_reads_a_tool() -> None:
    from lagent_like import ActionExecutor

    def get_weather(city: str, unit: str = "celsius") -> str:
        """Retrieve the weather.

        Args:
            city: the city name.
            unit: celsius or fahrenheit.
        """
        return ""

    (from_executor,) = _find.documents_of(ActionExecutor([get_weather]).actions.values())
    from_benchmark = bench_tool_search.document(
        {
            "name": "get_weather",
            "description": "Retrieve the weather.",
            "parameters": {
                "properties": {
                    "city": {"description": "the city name."},
                    "unit": {"description": "celsius or fahrenheit."},
                }
            },
        }
    )
    assert _find.words(from_executor.text()) == _find.words(from_benchmark.text())
