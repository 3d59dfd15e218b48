"""With numpy, an embedding search scales the query in numpy too, and ranks as the pure-Python path does.

A sparse model's vectors have 30,522 entries; scaling the query in a Python loop took a
quarter of a second per search (``benchmarks/bench_tool_search.py`` with
``splade_embed``). The numpy path must give the same order and scores.
"""

from __future__ import annotations

import random

import pytest

numpy = pytest.importorskip("numpy", reason="the numpy path needs numpy (installed with the 'ray' extra)")

from lagent_like.executors._find import EmbeddingRanker, ToolDocument, _unit_vectors  # noqa: E402


def test_the_numpy_path_ranks_and_scores_as_the_pure_python_path() -> None:
    rng = random.Random(7)
    documents = [ToolDocument(f"tool{i}", f"tool{i}", f"does thing {i}", "") for i in range(60)]
    vectors = {doc.text(): [rng.uniform(-1, 1) for _ in range(300)] for doc in documents}
    query = [rng.uniform(-1, 1) * 5 for _ in range(300)]  # not a unit vector

    def embed(texts: list[str]) -> list[list[float]]:
        return [vectors.get(text, query) for text in texts]

    fast = EmbeddingRanker(embed).index(documents)
    slow = EmbeddingRanker(embed).index(documents)
    slow._matrix = None  # the path taken without numpy
    slow._vectors = _unit_vectors(vectors[doc.text()] for doc in documents)
    found, expected = fast.search("q", 10), slow.search("q", 10)
    assert [m.name for m in found] == [m.name for m in expected]
    assert [m.score for m in found] == pytest.approx([m.score for m in expected], abs=1e-5)
