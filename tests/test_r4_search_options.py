"""The lexical ranker's round-4 options, and the text an embedding model reads.

``LexicalRanker(grams=...)`` adds a character n-gram similarity to the tools that
share a word with the request (a misspelt or inflected word still counts), and
``coverage=...`` prefers tools that hold more of the request's words (defaults 12
and 0.2). ``ToolDocument.text()`` writes the name as
lowercase words.
"""

from __future__ import annotations

import pytest

from lagent_like.executors._find import LexicalRanker, ToolDocument

DOCUMENTS = [
    ToolDocument("get_weather_forecast", "get weather forecast", "Look up what the sky will do.", "city"),
    ToolDocument("convert_currency", "convert currency", "Change money from one unit to another.", "amount"),
    ToolDocument("send_email", "send email", "Send an email to someone.", "to body"),
]


@pytest.mark.parametrize(
    ("title", "text"),
    [
        pytest.param("get_weather_forecast", "get weather forecast: D P", id="snake-case"),
        pytest.param("Weather_1_GetWeather", "weather get weather: D P", id="camel-case-and-digits"),
        pytest.param("Weather forecast", "weather forecast: D P", id="toolkit-and-api"),
        pytest.param("HTTPRequest", "http request: D P", id="acronym"),
    ],
)
def test_the_embedding_text_writes_the_name_as_lowercase_words(title: str, text: str) -> None:
    assert ToolDocument("x", title, "D", "P").text() == text.replace(": D P", ": D Parameters: P")


# Both hold "weather"; only the forecast's name is close to the misspelt "forcasts".
WEATHER = [
    ToolDocument("weather_alerts", "weather alerts", "Warn of storms.", "city"),
    ToolDocument("get_weather_forecast", "get weather forecast", "Look up what the sky will do.", "city"),
]


@pytest.mark.parametrize(
    ("grams", "first"),
    [
        pytest.param(0.0, "weather_alerts", id="words-only-cannot-tell"),
        pytest.param(12.0, "get_weather_forecast", id="grams-prefer-the-misspelt-word"),
    ],
)
def test_character_grams_rank_a_misspelt_word_among_tools_sharing_a_word(grams: float, first: str) -> None:
    # spelling=0: round 5's spelling tolerance alone would find the forecast (tested in test_r5_recall_*).
    index = LexicalRanker(grams=grams, coverage=0.0, spelling=0.0).index(WEATHER)
    assert [m.name for m in index.search("weather forcasts", 2)] == [
        first,
        ({"weather_alerts", "get_weather_forecast"} - {first}).pop(),
    ]


@pytest.mark.parametrize(
    "request_text",
    [pytest.param("wether forcasts", id="misspelt-only"), pytest.param("zzz qqq", id="unrelated")],
)
def test_character_grams_find_no_tool_sharing_no_word(request_text: str) -> None:
    assert LexicalRanker(grams=12.0, spelling=0.0).index(DOCUMENTS).search(request_text, 3) == []


def test_coverage_scales_a_score_by_the_share_of_the_request_a_tool_holds() -> None:
    plain = LexicalRanker(grams=0.0, coverage=0.0).index(DOCUMENTS).search("send weather email", 3)
    covered = LexicalRanker(grams=0.0, coverage=1.0).index(DOCUMENTS).search("send weather email", 3)
    shares = {"send_email": 2 / 3, "get_weather_forecast": 1 / 3}
    assert {m.name for m in plain} == set(shares)
    expected = {m.name: m.score * shares[m.name] for m in plain}
    assert {m.name: m.score for m in covered} == pytest.approx(expected, abs=1e-5)


def test_the_default_ranker_uses_coverage_and_offers_grams() -> None:
    ranker = LexicalRanker()
    assert (ranker.grams, ranker.coverage) == (0.0, 0.2)
