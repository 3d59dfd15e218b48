"""Round 5's signals of the lexical ranker: words no tool holds, and measures.

A request word that no tool in the catalogue holds is read, at half weight, as the
catalogue's words one edit away from it (a misspelling: "wether" -> ``weather``), or
else as the two catalogue words it glues ("sendemail" -> ``send email``). A number
with a unit of measure ("10 cm", "5 units") adds ``unit`` to the request, as a date
adds ``date``: it asks for a tool that takes a unit.
"""

from __future__ import annotations

import pytest

from lagent_like.executors import _find
from lagent_like.executors._find import LexicalRanker, ToolDocument, _value_kinds

DOCUMENTS = [
    ToolDocument("get_weather", "get weather", "Look up what the sky will do.", "city"),
    ToolDocument("send_email", "send email", "Send an email to someone.", "to body"),
    ToolDocument("convert_currency", "convert currency", "Change money from one unit to another.", "amount"),
]


@pytest.mark.parametrize(
    ("request_text", "found"),
    [
        pytest.param("wether in Boston", ["get_weather"], id="letter-missing"),
        pytest.param("weaather in Boston", ["get_weather"], id="letter-added"),
        pytest.param("an emial to bob", ["send_email"], id="letters-swapped"),
        pytest.param("convort currency", ["convert_currency"], id="letter-replaced"),
        pytest.param("sendemail to bob", ["send_email"], id="glued-words"),
        pytest.param("snd it", [], id="short-words-are-left-as-they-are"),
        pytest.param("zzzzzz qqqqqq", [], id="far-from-every-word"),
    ],
)
def test_a_word_no_tool_holds_counts_as_the_catalogue_words_near_it(
    request_text: str, found: list[str]
) -> None:
    assert [m.name for m in LexicalRanker().index(DOCUMENTS).search(request_text, 3)] == found


@pytest.mark.parametrize(
    "request_text",
    [
        pytest.param("wether in Boston", id="letter-missing"),
        pytest.param("weaather in Boston", id="letter-added"),
        pytest.param("the wheather", id="letter-added-inside"),
    ],
)
def test_misspellings_are_read_with_the_fallback_suffix_stripper_too(
    request_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without snowballstemmer, "wether" stems to "weth" (4 letters) and "weather" to
    # "weath": the length rule reads the word as written, so the stems still meet.
    monkeypatch.setattr(_find, "_WORDS", _find._Words(_find._strip_suffix))
    assert [m.name for m in LexicalRanker().index(DOCUMENTS).search(request_text, 3)] == ["get_weather"]


def test_without_spelling_a_misspelt_request_finds_nothing() -> None:
    assert LexicalRanker(spelling=0.0).index(DOCUMENTS).search("wether in Boston", 3) == []


@pytest.mark.parametrize(
    ("spelling", "share"),
    [pytest.param(1.0, 1.0, id="full-weight"), pytest.param(0.5, 0.5, id="half-weight")],
)
def test_a_misspelt_word_scores_its_near_word_at_the_spelling_weight(spelling: float, share: float) -> None:
    ranker = LexicalRanker(spelling=spelling, name_bonus=0.0)
    index = ranker.index(DOCUMENTS)
    (right,) = index.search("weather", 3)
    (misspelt,) = index.search("wether", 3)
    assert misspelt.name == right.name == "get_weather"
    assert misspelt.score == pytest.approx(right.score * share, abs=1e-5)


# "lights" and "nights" are one letter apart: a word the catalogue holds is never respelt.
LAMPS = [
    ToolDocument("turn_on_lights", "turn on lights", "Switch the lamps on.", "room"),
    ToolDocument("book_nights", "book nights", "Reserve a hotel stay.", "hotel"),
]


def test_a_word_the_catalogue_holds_is_not_read_as_its_neighbours() -> None:
    assert [m.name for m in LexicalRanker().index(LAMPS).search("the lights please", 2)] == ["turn_on_lights"]


@pytest.mark.parametrize(
    ("request_text", "kinds"),
    [
        pytest.param("a triangle with base 10 units", ["unit"], id="units"),
        pytest.param("run 5 km", ["unit"], id="kilometres"),
        pytest.param("from 3.5 miles", ["unit"], id="decimal-miles"),
        pytest.param("heat to 90 \u00b0F", ["unit"], id="degrees"),
        pytest.param("a 12 inch pizza", ["unit"], id="inches"),
        pytest.param("5 unicorns", [], id="a-word-beginning-like-a-unit"),
        pytest.param("the units of the answer", [], id="a-unit-without-a-number"),
    ],
)
def test_a_number_with_a_unit_of_measure_is_a_unit(request_text: str, kinds: list[str]) -> None:
    assert _value_kinds(request_text) == kinds


# Both compute a triangle's area; only the second takes a unit.
TRIANGLES = [
    ToolDocument("triangle_area", "triangle area", "Area of a triangle.", "base height"),
    ToolDocument("area_of_triangle", "area of triangle", "Area of a triangle.", "base height unit"),
]


@pytest.mark.parametrize(
    ("request_text", "first"),
    [
        pytest.param("area of a triangle with base 10 cm and height 5 cm", "area_of_triangle", id="measures"),
        pytest.param("area of a triangle with base 10 and height 5", "triangle_area", id="plain-numbers"),
    ],
)
def test_a_measure_in_the_request_lifts_the_tool_taking_a_unit(request_text: str, first: str) -> None:
    assert LexicalRanker().index(TRIANGLES).search(request_text, 2)[0].name == first


def test_the_default_ranker_reads_misspellings_at_half_weight() -> None:
    assert LexicalRanker().spelling == 0.5
