"""The inspector's catalogue: the Gemini export beside the others, search over nested keys."""

from __future__ import annotations

from typing import Optional

import pytest
from typing_extensions import TypedDict

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like import ActionExecutor
from lagent_like.web.catalogue import build_catalogue


class Address(TypedDict):
    """A postal address."""

    street: str
    postcode: str


class Parcel(TypedDict):
    """A parcel to send."""

    to: Address
    weight_kg: float


def r2_ship(parcels: list[Parcel], note: Optional[str] = None) -> str:
    """Send parcels.

    Args:
        parcels: what to send, and where
        note: a note for the courier
    """
    return "sent"


def r2_weigh(grams: int) -> str:
    """Weigh something.

    Args:
        grams: the weight
    """
    return f"{grams} g"


def test_each_api_carries_its_own_gemini_declaration() -> None:
    executor = ActionExecutor([r2_ship, r2_weigh])
    catalogue = build_catalogue(executor)
    (gemini,) = executor.to_gemini_tools()
    assert [entry["exports"]["gemini"] for entry in catalogue] == gemini["functionDeclarations"]
    assert [entry["exports"]["gemini"]["name"] for entry in catalogue] == ["r2_ship", "r2_weigh"]


def test_a_failing_gemini_export_is_shown_as_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    executor = ActionExecutor([r2_weigh])

    def broken() -> list[dict[str, object]]:
        raise ValueError("no Gemini today")

    monkeypatch.setattr(executor, "to_gemini_tools", broken)
    (entry,) = build_catalogue(executor)
    assert entry["exports"]["gemini"] == {"error": "ValueError: no Gemini today"}
    assert entry["exports"]["openai"] == executor.to_openai_tools()[0]


@pytest.mark.parametrize(
    ("word", "found"),
    [
        pytest.param("parcels", True, id="top-level-parameter"),
        pytest.param("weight_kg", True, id="key-of-an-array-item"),
        pytest.param("postcode", True, id="key-two-levels-down"),
        pytest.param("street", True, id="sibling-key-two-levels-down"),
        pytest.param("grams", False, id="another-tools-parameter"),
    ],
)
def test_search_text_holds_nested_parameter_names(word: str, found: bool) -> None:
    ship, _ = build_catalogue(ActionExecutor([r2_ship, r2_weigh]))
    assert (word in ship["search"].split()) is found


def test_search_text_names_each_key_once() -> None:
    ship, weigh = build_catalogue(ActionExecutor([r2_ship, r2_weigh]))
    assert ship["search"].split().count("postcode") == 1
    assert weigh["search"] == "r2_weigh weigh something. grams"
