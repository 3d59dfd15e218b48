"""The courtesies of a request are not index terms: they say nothing about which tool is meant."""

from __future__ import annotations

import pytest

from lagent_like.executors._find import _stemmer, words


@pytest.mark.parametrize(
    ("request_text", "terms"),
    [
        pytest.param("Hi, I'd like to know the weather", ["weather"], id="greeting-and-wish"),
        pytest.param(
            "Hey, can you tell me the stock price, thanks", ["stock", "price"], id="hey-tell-thanks"
        ),
        pytest.param(
            "I need help to just book a flight, also a hotel", ["book", "flight", "hotel"], id="need-help"
        ),
    ],
)
def test_a_request_s_courtesies_are_not_index_terms(request_text: str, terms: list[str]) -> None:
    stem = _stemmer()  # Snowball's with the 'search' extra, the built-in suffix stripper without
    assert words(request_text) == [stem(term) for term in terms]
