"""Any value as JSON data, for records that must survive a JSON round trip equal.

Records (``ActionReturn``), traces and the inspector's answers are data: saved,
sent and compared after a reload. What a tool receives or builds may be richer
(an ``Enum`` member, a dataclass, a pydantic model, a tuple); :func:`json_value` is
the one place that says what such a value is as JSON.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["PLAIN", "json_value"]

#: Classes whose values are JSON as they are (not subclasses: an ``IntEnum`` is not).
PLAIN = frozenset({str, int, float, bool, type(None)})


def json_value(value: Any) -> Any:
    """``value`` as JSON data: what a JSON round trip gives back equal.

    An ``Enum`` is its value, a dataclass or a pydantic model its dict, a tuple or set
    a list, a mapping's keys strings; a ``datetime``, ``date`` or ``time`` its ISO 8601
    text, a ``timedelta`` its ISO 8601 duration, ``bytes`` their UTF-8 text (the JSON
    forms ``lagent_like.types._value_classes`` reads back); anything else without a
    JSON form (a ``Path``, a ``Decimal``, a ``UUID``) its ``str``.
    """
    kind = type(value)
    if kind in PLAIN:
        return value
    if kind is dict or isinstance(value, Mapping):
        return {_key(k): json_value(v) for k, v in value.items()}
    if kind is list or isinstance(value, (list, tuple, set, frozenset, collections.deque)):
        return [json_value(v) for v in value]
    if isinstance(value, enum.Enum):
        return json_value(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return json_value(dump(mode="json"))
    as_list = getattr(value, "tolist", None)  # NumPy scalars and arrays
    if callable(as_list) and not isinstance(value, type):
        return json_value(as_list())
    for base in (bool, int, float, str):
        if isinstance(value, base):  # a subclass of a JSON class: the plain value
            return base(value)
    return _text(value)


def _text(value: Any) -> str:
    """A value without a JSON form as text: the one its class reads back, else its ``str``."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "backslashreplace")
    iso = getattr(value, "isoformat", None)
    if callable(iso) and not isinstance(value, type):  # datetime, date, time
        return str(iso())
    # Only a program that imported datetime has a timedelta: looked up, never imported.
    timedelta = getattr(sys.modules.get("datetime"), "timedelta", None)
    if timedelta is not None and isinstance(value, timedelta):
        return _iso_duration(value, timedelta)
    return str(value)


def _iso_duration(value: Any, timedelta: type) -> str:
    """``timedelta(days=1, hours=2, minutes=30)`` as ``'P1DT2H30M'``."""
    sign = "-" if value < timedelta(0) else ""
    value = abs(value)
    hours, rest = divmod(value.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    second_text = f"{seconds}.{value.microseconds:06d}".rstrip("0") if value.microseconds else str(seconds)
    clock = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M")) if n)
    if seconds or value.microseconds:
        clock += f"{second_text}S"
    text = (f"{value.days}D" if value.days else "") + (f"T{clock}" if clock else "")
    return f"{sign}P{text}" if text else "PT0S"


def _key(key: Any) -> str:
    if type(key) is str:
        return key
    plain = json_value(key)
    # As json.dumps writes them: true, false, null, numbers as their JSON text.
    if isinstance(plain, bool) or plain is None:
        return {True: "true", False: "false", None: "null"}[plain]
    return plain if isinstance(plain, str) else str(plain)
