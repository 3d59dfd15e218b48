"""The lexical ranker reads the values a request holds as the kind of parameter they fill.

"Book it for March 5th" names no parameter, but a tool with a ``date`` parameter fits it
better than one without; the same for times of day and amounts of money.
"""

from __future__ import annotations

import pytest

from lagent_like import ActionExecutor
from lagent_like.executors._find import _value_kinds


def reserve_table(restaurant: str, date: str) -> str:
    """Reserve a table at a restaurant.

    Args:
        restaurant: the restaurant's name.
        date: the day of the reservation.
    """
    return "reserved"


def set_alarm(time: str) -> str:
    """Set an alarm.

    Args:
        time: when it rings.
    """
    return "set"


def send_money(recipient: str, amount: float) -> str:
    """Send money to someone.

    Args:
        recipient: who receives it.
        amount: how much.
    """
    return "sent"


def restaurant_reviews(restaurant: str) -> str:
    """Read a restaurant's reviews.

    Args:
        restaurant: the restaurant's name.
    """
    return "good"


@pytest.mark.parametrize(
    ("query", "kinds"),
    [
        pytest.param("the forecast for March 5th", ["date"], id="month-name"),
        pytest.param("flights on 2023-10-01", ["date"], id="iso-date"),
        pytest.param("what is on this Friday", ["date"], id="weekday"),
        pytest.param("wake me at 7:30", ["time"], id="clock-time"),
        pytest.param("a table at 8 pm", ["time"], id="am-pm"),
        pytest.param("pay Alex $125", ["amount"], id="dollar-sign"),
        pytest.param("send 10 euros", ["amount"], id="currency-word"),
        pytest.param("a table for 2 on May 3rd at 8pm", ["date", "time"], id="date-and-time"),
        pytest.param("show me the sales report", [], id="none"),
        pytest.param("may I see the sales report", [], id="may-the-verb"),
        pytest.param("a table on May 3", ["date"], id="may-the-month"),
        pytest.param("the 4 largest files", [], id="a-bare-number"),
    ],
)
def test_value_kinds_names_what_a_request_holds(query: str, kinds: list[str]) -> None:
    assert _value_kinds(query) == kinds


def test_a_request_with_a_date_finds_the_tool_with_a_date_parameter_first() -> None:
    executor = ActionExecutor([restaurant_reviews, reserve_table])
    assert [m.name for m in executor.find_tools("the Golden Dragon restaurant", k=2)] == [
        "restaurant_reviews",
        "reserve_table",
    ]
    assert executor.find_tools("the Golden Dragon restaurant on June 2nd", k=1)[0].name == "reserve_table"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("wake me up at 6:45 am", "set_alarm", id="time"),
        pytest.param("Alex should get $40 from me", "send_money", id="amount"),
    ],
)
def test_a_request_holding_a_value_finds_the_tool_taking_it(query: str, expected: str) -> None:
    executor = ActionExecutor([set_alarm, send_money, restaurant_reviews])
    assert executor.find_tools(query, k=1)[0].name == expected
