"""``executor.find_tools``: what the lexical ranker reads, the index's life, the embedding ranker."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like.executors import _find
from lagent_like.executors._find import EmbeddingRanker, HybridRanker, LexicalRanker, ToolDocument, ToolMatch


def getWeatherForecast(city: str) -> str:  # a camelCase name, on purpose
    """Look up what the sky will do.

    Args:
        city: the place.
    """
    return "sunny"


def convert_currency(amount: float, target: str) -> str:
    """Change money from one unit to another.

    Args:
        amount: how much.
        target: the code of the currency wanted.
    """
    return "1"


def send_email(recipient: str, body: str) -> str:
    """Deliver a message.

    Args:
        recipient: the mailbox address.
        body: the text.
    """
    return "sent"


class Files(BaseAction, register=False):
    """Work with files on disk."""

    @tool_api
    def delete(self, path: str) -> str:
        """Remove something.

        Args:
            path: the path of the file.
        """
        return "ok"


def _executor() -> ActionExecutor:
    return ActionExecutor([getWeatherForecast, convert_currency, send_email, Files()])


@pytest.mark.parametrize(
    ("query", "best"),
    [
        pytest.param("weather forecast for Paris", "getWeatherForecast", id="camel-case-name-split"),
        pytest.param("convert 10 dollars", "convert_currency", id="snake-case-name-split"),
        pytest.param("forecasts", "getWeatherForecast", id="stemmed-plural"),
        pytest.param("email my boss", "send_email", id="name-word"),
        pytest.param("to which mailbox address", "send_email", id="parameter-description"),
        pytest.param("currency code", "convert_currency", id="parameter-name-and-description"),
        pytest.param("delete the file", "Files.delete", id="toolkit-api-with-toolkit-description"),
    ],
)
def test_find_tools_ranks_the_fitting_api_first(query: str, best: str) -> None:
    executor = _executor()
    assert executor.find_tools(query, k=1)[0].name == best


def test_find_tools_returns_named_tuples_best_first_and_nothing_unrelated() -> None:
    matches = _executor().find_tools("weather forecast", k=5)
    assert [m.name for m in matches] == ["getWeatherForecast"]
    assert isinstance(matches[0], ToolMatch)
    assert matches[0].score > 0
    assert _executor().find_tools("zebra quantum") == []


def test_find_tools_follows_added_removed_and_disabled_tools() -> None:
    executor = ActionExecutor([convert_currency])
    assert executor.find_tools("send an email") == []
    executor.add_action(send_email)
    assert [m.name for m in executor.find_tools("send an email")] == ["send_email"]
    executor.disable("send_email")
    assert executor.find_tools("send an email") == []
    executor.enable("send_email")
    del executor["send_email"]
    assert executor.find_tools("send an email") == []


def test_find_tools_builds_the_index_once_per_catalogue() -> None:
    built = []

    class Counting(LexicalRanker):
        def index(self, documents: Any) -> Any:
            built.append(len(documents))
            return super().index(documents)

    executor = _executor()
    executor.tool_ranker = Counting()
    executor.find_tools("email")
    executor.find_tools("weather")
    assert built == [4]
    executor.add_action(lambda_free_tool)
    executor.find_tools("email")
    assert built == [4, 5]


def lambda_free_tool(text: str) -> str:
    """Echo text.

    Args:
        text: what to echo.
    """
    return text


@pytest.mark.parametrize(
    ("query", "k", "error", "message"),
    [
        pytest.param(None, 5, TypeError, "find_tools: query must be a str, got NoneType", id="query-none"),
        pytest.param("x", 0, ValueError, "find_tools: k must be a positive int, got 0", id="k-zero"),
        pytest.param("x", True, ValueError, "find_tools: k must be a positive int, got True", id="k-bool"),
    ],
)
def test_find_tools_refuses_bad_arguments(query: Any, k: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=f"^{message}$"):
        _executor().find_tools(query, k=k)


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        pytest.param("forecasts", "forecast", id="plural"),
        pytest.param("running", "runn", id="ing"),
        pytest.param("cities", "city", id="ies"),
        pytest.param("bus", "bus", id="too-short-to-cut"),
        pytest.param("organization", "organ", id="ization"),
    ],
)
def test_suffix_stripper_without_snowball(word: str, stem: str) -> None:
    assert _find._strip_suffix(word) == stem


def _letter_vectors(texts: list[str]) -> Iterator[list[float]]:
    """A toy embedding: letter counts of the text's first word."""
    for text in texts:
        word = text.split(":")[0].split()[0].lower()
        yield [float(word.count(c)) for c in "abcdefghijklmnopqrstuvwxyz"]


def test_embedding_ranker_ranks_by_cosine_of_the_given_embedding() -> None:
    documents = [ToolDocument("alpha", "alpha", "", ""), ToolDocument("omega", "omega", "", "")]
    index = EmbeddingRanker(_letter_vectors).index(documents)
    matches = index.search("mega", 2)
    assert [m.name for m in matches] == ["omega", "alpha"]
    assert math.isclose(matches[0].score, 4 / math.sqrt(4 * 5), rel_tol=1e-5)


def test_embedding_ranker_through_find_tools() -> None:
    executor = _executor()
    found = executor.find_tools("convert", k=1, ranker=EmbeddingRanker(_letter_vectors))
    assert found == [ToolMatch("convert_currency", found[0].score)]


class Fixed:
    """A ranker whose index always answers the same names, in order."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def index(self, documents: Any) -> Fixed:
        return self

    def search(self, query: str, limit: int) -> list[ToolMatch]:
        return [ToolMatch(name, 1.0) for name in self.names[:limit]]


def test_hybrid_ranker_fuses_ranks() -> None:
    hybrid = HybridRanker([Fixed(["a", "b", "c"]), Fixed(["c", "b"])], constant=1.0).index([])
    # b: 1/3 + 1/3; c: 1/4 + 1/2; a: 1/2.
    assert hybrid.search("q", 3) == [
        ToolMatch("c", round(1 / 4 + 1 / 2, 6)),
        ToolMatch("b", round(2 / 3, 6)),
        ToolMatch("a", 0.5),
    ]
