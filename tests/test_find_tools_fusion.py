"""HybridRanker's two fusions: by ranks (the default) and by scores scaled within each list."""

from __future__ import annotations

from typing import Any

import pytest

from lagent_like import ActionExecutor
from lagent_like.executors._find import HybridRanker, ToolMatch


class Scored:
    """A ranker whose index always answers the same matches, best first."""

    def __init__(self, matches: list[tuple[str, float]]) -> None:
        self.matches = [ToolMatch(name, score) for name, score in matches]
        self.limits: list[int] = []

    def index(self, documents: Any) -> Scored:
        return self

    def search(self, query: str, limit: int) -> list[ToolMatch]:
        self.limits.append(limit)
        return self.matches[:limit]


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        pytest.param(
            [("a", 10.0), ("b", 9.0), ("c", 0.0)],
            [("c", 0.9), ("b", 0.5), ("a", 0.1)],
            # a: 1 + 0; b: 0.9 + 0.5; c: 0 + 1.
            [ToolMatch("b", 1.4), ToolMatch("a", 1.0), ToolMatch("c", 1.0)],
            id="scaled-scores-keep-how-far-apart",
        ),
        pytest.param(
            [("a", 3.0), ("b", 3.0)],
            [("b", 0.7)],
            [ToolMatch("b", 2.0), ToolMatch("a", 1.0)],
            id="equal-scores-and-a-single-match-count-as-best",
        ),
        pytest.param(
            [],
            [("x", 0.2), ("y", 0.1)],
            [ToolMatch("x", 1.0), ToolMatch("y", 0.0)],
            id="a-ranker-finding-nothing-adds-nothing",
        ),
    ],
)
def test_hybrid_ranker_fuses_scores_scaled_within_each_list(
    first: list[tuple[str, float]], second: list[tuple[str, float]], expected: list[ToolMatch]
) -> None:
    hybrid = HybridRanker([Scored(first), Scored(second)], fusion="scores").index([])
    assert hybrid.search("q", 3) == expected


def test_score_fusion_and_rank_fusion_disagree_where_the_scores_are_far_apart() -> None:
    # Ranker one is sure of "a"; ranker two puts "a" third, barely below "b" and "c".
    rankers = [
        Scored([("a", 10.0), ("b", 1.0), ("c", 0.0)]),
        Scored([("b", 0.51), ("c", 0.505), ("a", 0.5), ("d", 0.0)]),
    ]
    by_ranks = HybridRanker(rankers, constant=1.0).index([]).search("q", 1)
    by_scores = HybridRanker(rankers, fusion="scores").index([]).search("q", 1)
    assert (by_ranks[0].name, by_scores[0].name) == ("b", "a")


def test_score_fusion_asks_each_ranker_for_depth_results() -> None:
    ranker = Scored([("a", 1.0)])
    HybridRanker([ranker], depth=7, fusion="scores").index([]).search("q", 3)
    HybridRanker([ranker], depth=2, fusion="scores").index([]).search("q", 3)
    assert ranker.limits == [7, 3]


def test_score_fusion_through_find_tools() -> None:
    def convert_currency(amount: float, currency: str) -> str:
        """Convert an amount of money into another currency.

        Args:
            amount: how much money.
            currency: the currency to convert into.
        """
        return ""

    def get_weather(city: str) -> str:
        """Retrieve the weather of a city.

        Args:
            city: the city's name.
        """
        return ""

    executor = ActionExecutor([convert_currency, get_weather])
    ranker = HybridRanker([Scored([("get_weather", 2.0), ("convert_currency", 1.0)])], fusion="scores")
    assert executor.find_tools("money", k=2, ranker=ranker) == [
        ToolMatch("get_weather", 1.0),
        ToolMatch("convert_currency", 0.0),
    ]


@pytest.mark.parametrize(
    "fusion", [pytest.param("score", id="singular"), pytest.param("rrf", id="other-name")]
)
def test_hybrid_ranker_rejects_an_unknown_fusion(fusion: str) -> None:
    with pytest.raises(ValueError, match=f"HybridRanker: fusion must be 'ranks' or 'scores', got '{fusion}'"):
        HybridRanker([], fusion=fusion)
