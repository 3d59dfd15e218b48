"""Standard-library value classes as parameters: read from their JSON forms, refused loudly otherwise.

A parameter typed ``datetime``, ``date``, ``time``, ``timedelta``, ``Decimal``, ``UUID``,
``Path`` or ``bytes`` takes the JSON form the peers (pydantic) read: an ISO 8601
string, a number or numeric string, a string. Each test fails on the old code, which
refused every JSON value of such a parameter ("expected datetime, got string ...").
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import json
import pathlib
import uuid
from typing import Any, Optional, Union

import pytest
from _annotated import tool_of
from typing_extensions import TypedDict

from lagent_like import ActionExecutor, ActionStatusCode
from lagent_like.types._validation import compile_check
from lagent_like.types._value_classes import _iso_text

UTC = datetime.timezone.utc
AN_ID = "12345678-1234-5678-1234-567812345678"


def call(annotation: Any, value: Any, validation: str = "coerce") -> Any:
    executor = ActionExecutor([tool_of(annotation)], validation=validation)
    return executor("f", json.dumps({"v": value}))


@pytest.mark.parametrize(
    ("annotation", "sent", "expected"),
    [
        pytest.param(
            datetime.datetime, "2024-01-02T03:04:05Z", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
            id="datetime-Z",
        ),
        pytest.param(
            datetime.datetime, "2024-01-02T03:04:05", datetime.datetime(2024, 1, 2, 3, 4, 5), id="datetime-naive"
        ),
        pytest.param(datetime.datetime, "2024-01-02", datetime.datetime(2024, 1, 2), id="datetime-date-only"),
        pytest.param(
            datetime.datetime, "2024-01-02 03:04:05.5+0130",
            datetime.datetime(2024, 1, 2, 3, 4, 5, 500000,
                              tzinfo=datetime.timezone(datetime.timedelta(hours=1, minutes=30))),
            id="datetime-fraction-offset",
        ),
        pytest.param(datetime.date, "2024-01-02", datetime.date(2024, 1, 2), id="date"),
        pytest.param(datetime.time, "03:04:05.25Z", datetime.time(3, 4, 5, 250000, tzinfo=UTC), id="time"),
        pytest.param(
            datetime.timedelta, "P1DT2H30M", datetime.timedelta(days=1, hours=2, minutes=30), id="duration"
        ),
        pytest.param(datetime.timedelta, "P2W", datetime.timedelta(weeks=2), id="duration-weeks"),
        pytest.param(datetime.timedelta, "-PT1.5S", datetime.timedelta(seconds=-1.5), id="duration-negative"),
        pytest.param(datetime.timedelta, 90, datetime.timedelta(seconds=90), id="duration-seconds"),
        pytest.param(decimal.Decimal, 2.5, decimal.Decimal("2.5"), id="decimal-number"),
        pytest.param(decimal.Decimal, 0.1, decimal.Decimal("0.1"), id="decimal-not-binary-expansion"),
        pytest.param(decimal.Decimal, 7, decimal.Decimal("7"), id="decimal-integer"),
        pytest.param(decimal.Decimal, "3.0", decimal.Decimal("3.0"), id="decimal-text"),
        pytest.param(uuid.UUID, AN_ID, uuid.UUID(AN_ID), id="uuid"),
        pytest.param(pathlib.Path, "a/b.txt", pathlib.Path("a/b.txt"), id="path"),
        pytest.param(pathlib.PurePosixPath, "a/b", pathlib.PurePosixPath("a/b"), id="pure-posix-path"),
        pytest.param(bytes, "hé", "hé".encode(), id="bytes-utf-8"),
    ],
)  # fmt: skip
def test_a_value_class_is_read_from_its_json_form(annotation: Any, sent: Any, expected: Any) -> None:
    ret = call(annotation, sent)
    assert (ret.state, ret.errmsg) == (0, None)
    assert ret.result[0]["content"] == repr(expected)
    assert type(compile_check(annotation)(sent)) is type(expected)


def iso(kind: str, example: str) -> str:
    return f"{kind} (an ISO 8601 string such as {example!r})"


DURATION = (
    "timedelta (an ISO 8601 duration in weeks, days, hours, minutes and seconds such as 'P1DT2H30M', "
    "or a number of seconds)"
)
DECIMAL = "Decimal (a number, or its text such as '2.50')"


@pytest.mark.parametrize(
    ("annotation", "sent", "errmsg"),
    [
        pytest.param(
            datetime.datetime, "tomorrow",
            "f: 'v' expected " + iso("datetime", "2024-01-02T03:04:05") + ", got string 'tomorrow'",
            id="datetime-word",
        ),
        pytest.param(
            datetime.datetime, 1700000000,
            "f: 'v' expected " + iso("datetime", "2024-01-02T03:04:05") + ", got integer 1700000000",
            id="datetime-unix-time-is-ambiguous",
        ),
        pytest.param(
            datetime.date, "2024-01-02T03:04:05",
            "f: 'v' expected " + iso("date", "2024-01-02") + ", got string '2024-01-02T03:04:05'",
            id="date-with-time",
        ),
        pytest.param(
            datetime.date, 0, "f: 'v' expected " + iso("date", "2024-01-02") + ", got integer 0", id="date-number"
        ),
        pytest.param(
            datetime.time, "25:00", "f: 'v' expected " + iso("time", "03:04:05") + ", got string '25:00'",
            id="time-out-of-range",
        ),
        pytest.param(
            datetime.timedelta, "P1Y", f"f: 'v' expected {DURATION}, got string 'P1Y'", id="duration-years"
        ),
        pytest.param(
            datetime.timedelta, "P1M", f"f: 'v' expected {DURATION}, got string 'P1M'", id="duration-months"
        ),
        pytest.param(datetime.timedelta, "PT", f"f: 'v' expected {DURATION}, got string 'PT'", id="duration-empty"),
        pytest.param(
            datetime.timedelta, True, f"f: 'v' expected {DURATION}, got boolean true", id="duration-boolean"
        ),
        pytest.param(decimal.Decimal, "nan", f"f: 'v' expected {DECIMAL}, got string 'nan'", id="decimal-nan"),
        pytest.param(
            decimal.Decimal, "1_000", f"f: 'v' expected {DECIMAL}, got string '1_000'", id="decimal-underscore"
        ),
        pytest.param(decimal.Decimal, True, f"f: 'v' expected {DECIMAL}, got boolean true", id="decimal-boolean"),
        pytest.param(
            uuid.UUID, "not-an-id",
            "f: 'v' expected UUID (a string such as '12345678-1234-5678-1234-567812345678'), got string 'not-an-id'",
            id="uuid",
        ),
        pytest.param(pathlib.Path, 3, "f: 'v' expected Path (a string), got integer 3", id="path-number"),
        pytest.param(bytes, [1, 2], "f: 'v' expected bytes (a string), got array [1, 2]", id="bytes-array"),
    ],
)  # fmt: skip
def test_a_value_class_refuses_other_forms_naming_its_json_form(
    annotation: Any, sent: Any, errmsg: str
) -> None:
    ret = call(annotation, sent)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.ARGS_ERROR, errmsg)


@pytest.mark.parametrize(
    ("annotation", "sent", "expected"),
    [
        pytest.param(
            datetime.datetime, "2024-01-02T03:04:05Z", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
            id="datetime",
        ),
        pytest.param(decimal.Decimal, "3.0", decimal.Decimal("3.0"), id="decimal-text"),
        pytest.param(decimal.Decimal, 3, decimal.Decimal("3"), id="decimal-number"),
        pytest.param(datetime.timedelta, 90, datetime.timedelta(seconds=90), id="duration-seconds"),
        pytest.param(uuid.UUID, AN_ID, uuid.UUID(AN_ID), id="uuid"),
    ],
)  # fmt: skip
def test_strict_mode_reads_the_json_forms_too(annotation: Any, sent: Any, expected: Any) -> None:
    ret = call(annotation, sent, validation="strict")
    assert (ret.state, ret.errmsg, ret.result[0]["content"]) == (0, None, repr(expected))


def test_strict_mode_refuses_what_coerce_mode_refuses() -> None:
    ret = call(datetime.date, 20240102, validation="strict")
    assert ret.errmsg == "f: 'v' expected " + iso("date", "2024-01-02") + ", got integer 20240102"


def test_mode_off_passes_the_value_as_sent() -> None:
    ret = call(datetime.datetime, "tomorrow", validation="off")
    assert (ret.state, ret.result[0]["content"]) == (0, "'tomorrow'")


@pytest.mark.parametrize(
    ("annotation", "value"),
    [
        pytest.param(datetime.datetime, datetime.datetime(2024, 1, 2, tzinfo=UTC), id="datetime"),
        pytest.param(datetime.date, datetime.datetime(2024, 1, 2), id="date-given-a-datetime"),
        pytest.param(datetime.timedelta, datetime.timedelta(days=1), id="timedelta"),
        pytest.param(decimal.Decimal, decimal.Decimal("1.10"), id="decimal"),
        pytest.param(uuid.UUID, uuid.UUID(AN_ID), id="uuid"),
        pytest.param(pathlib.Path, pathlib.Path("a"), id="path"),
        pytest.param(bytes, b"\xff", id="bytes"),
    ],
)
def test_a_python_caller_s_instance_passes_unchanged(annotation: Any, value: Any) -> None:
    assert compile_check(annotation)(value) is value
    executor = ActionExecutor([tool_of(annotation)])
    assert executor("f", {"v": value}).result[0]["content"] == repr(value)


class Slot(TypedDict):
    start: datetime.datetime
    length: datetime.timedelta


@dataclasses.dataclass
class Price:
    amount: decimal.Decimal
    on: Optional[datetime.date] = None


@pytest.mark.parametrize(
    ("annotation", "sent", "expected"),
    [
        pytest.param(
            list[datetime.date], ["2024-01-02", "2024-02-03"],
            [datetime.date(2024, 1, 2), datetime.date(2024, 2, 3)], id="list",
        ),
        pytest.param(Optional[datetime.date], None, None, id="optional-null"),
        pytest.param(Optional[datetime.date], "2024-01-02", datetime.date(2024, 1, 2), id="optional-value"),
        pytest.param(
            dict[str, decimal.Decimal], {"a": 1.5, "b": "2"},
            {"a": decimal.Decimal("1.5"), "b": decimal.Decimal("2")}, id="dict-values",
        ),
        pytest.param(
            Slot, {"start": "2024-01-02T09:00:00", "length": "PT30M"},
            {"start": datetime.datetime(2024, 1, 2, 9), "length": datetime.timedelta(minutes=30)},
            id="typeddict-fields",
        ),
        pytest.param(
            Price, {"amount": "9.99", "on": "2024-01-02"},
            Price(decimal.Decimal("9.99"), datetime.date(2024, 1, 2)), id="dataclass-fields",
        ),
        pytest.param(Union[int, datetime.date], "2024-01-02", datetime.date(2024, 1, 2), id="union-member"),
        pytest.param(Union[int, datetime.date], 5, 5, id="union-other-member"),
    ],
)  # fmt: skip
def test_value_classes_are_read_inside_other_types(annotation: Any, sent: Any, expected: Any) -> None:
    ret = call(annotation, sent)
    assert (ret.state, ret.errmsg, ret.result[0]["content"]) == (0, None, repr(expected))


@pytest.mark.parametrize(
    ("annotation", "sent", "errmsg"),
    [
        pytest.param(
            list[datetime.date], ["2024-01-02", "soon"],
            "f: 'v[1]' expected " + iso("date", "2024-01-02") + ", got string 'soon'", id="list-item",
        ),
        pytest.param(
            Slot, {"start": "2024-01-02T09:00:00", "length": "P1Y"},
            f"f: 'v.length' expected {DURATION}, got string 'P1Y'", id="typeddict-field",
        ),
    ],
)  # fmt: skip
def test_a_refused_value_inside_another_type_names_its_place(annotation: Any, sent: Any, errmsg: str) -> None:
    assert call(annotation, sent).errmsg == errmsg


@pytest.mark.parametrize(
    ("annotation", "sent", "recorded"),
    [
        pytest.param(datetime.datetime, "2024-01-02T03:04:05Z", "2024-01-02T03:04:05+00:00", id="datetime"),
        pytest.param(datetime.timedelta, "P1DT2H30M", "P1DT2H30M", id="duration"),
        pytest.param(datetime.timedelta, 90.5, "PT1M30.5S", id="duration-seconds"),
        pytest.param(bytes, "hé", "hé", id="bytes"),
        pytest.param(decimal.Decimal, "2.50", "2.50", id="decimal"),
    ],
)
def test_a_record_holds_the_json_form_its_class_reads_back(annotation: Any, sent: Any, recorded: str) -> None:
    ret = call(annotation, sent)
    assert ret.args == {"v": recorded}
    assert call(annotation, recorded).result == ret.result


@pytest.mark.parametrize(
    ("text", "readable"),
    [
        pytest.param("2024-01-02T03:04:05Z", "2024-01-02T03:04:05+00:00", id="Z"),
        pytest.param("2024-01-02T03:04:05.5", "2024-01-02T03:04:05.500000", id="short-fraction"),
        pytest.param("2024-01-02T03:04:05.1234567", "2024-01-02T03:04:05.123456", id="long-fraction"),
        pytest.param(
            "2024-01-02T03:04:05,5+0100", "2024-01-02T03:04:05.500000+01:00", id="comma-compact-offset"
        ),
        pytest.param("2024-01-02T03:04:05-05", "2024-01-02T03:04:05-05:00", id="hour-offset"),
        pytest.param("2024-01-02", "2024-01-02", id="date-unchanged"),
        pytest.param("03:04:05z", "03:04:05+00:00", id="time-z"),
    ],
)
def test_iso_text_is_spelled_as_python_3_9_reads_it(text: str, readable: str) -> None:
    # Python 3.9's fromisoformat reads only isoformat()'s own output; 3.11 reads these as given.
    assert _iso_text(text) == readable
