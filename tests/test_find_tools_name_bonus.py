"""The lexical ranker prefers the tool whose name says the request's words.

Many tools' descriptions mention the words of a request; the one named for them is
likelier meant (``LexicalRanker(name_bonus=...)``, 0 turns it off).
"""

from __future__ import annotations

import pytest

from lagent_like.executors._find import LexicalRanker, ToolDocument

# translate_text is named for the request; text_tools says its words more often.
DOCUMENTS = [
    ToolDocument("translate_text", "translate text", "Turn words into another language.", "language"),
    ToolDocument(
        "text_tools", "text tools", "Translate text, and look up the text of a page to translate.", "text"
    ),
    ToolDocument("send_email", "send email", "Send an email.", "to body"),
    ToolDocument("get_weather", "get weather", "Get the weather.", "city"),
]


@pytest.mark.parametrize(
    ("name_bonus", "first"),
    [
        pytest.param(0.0, "text_tools", id="without-the-bonus"),
        pytest.param(0.2, "translate_text", id="with-the-default-bonus"),
        pytest.param(0.5, "translate_text", id="with-a-larger-bonus"),
    ],
)
def test_the_tool_named_for_the_request_comes_first(name_bonus: float, first: str) -> None:
    index = LexicalRanker(name_bonus=name_bonus).index(DOCUMENTS)
    assert [m.name for m in index.search("translate the text", 2)] == [
        first,
        ({"text_tools", "translate_text"} - {first}).pop(),
    ]


def test_the_name_bonus_scales_the_score_by_the_share_of_the_name_the_request_holds() -> None:
    plain = {
        m.name: m.score for m in LexicalRanker(name_bonus=0.0).index(DOCUMENTS).search("translate text", 4)
    }
    boosted = {
        m.name: m.score for m in LexicalRanker(name_bonus=0.5).index(DOCUMENTS).search("translate text", 4)
    }
    assert boosted["translate_text"] == pytest.approx(plain["translate_text"] * 1.5, abs=1e-5)
    assert boosted["text_tools"] == pytest.approx(plain["text_tools"] * 1.25, abs=1e-5)


def test_the_default_ranker_has_a_name_bonus_of_one_fifth() -> None:
    assert LexicalRanker().name_bonus == 0.2
