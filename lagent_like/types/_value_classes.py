"""Standard-library value classes as parameters: ``datetime``, ``Decimal``, ``UUID``, ``Path``, IPs...

A model sends JSON, which has no date, decimal, UUID or path; each of these classes has
a JSON form instead (an ISO 8601 string, a number or numeric string, a string), which
the peers (pydantic, behind the OpenAI Agents SDK and LangChain) read into the class.
:data:`VALUE_CLASSES` is the one table of them: per class, the JSON Schema fragment the
exports show, the Lagent type word, the form a refusal names, and the reader that builds
the value from its JSON form. The checks are the same in modes ``"coerce"`` and
``"strict"``: an ISO string *is* a ``datetime`` in JSON, not a conversion of one.

Numbers are refused for ``datetime`` and ``date`` (a deliberate difference from
pydantic): a Unix time is ambiguous (seconds or milliseconds?). A value's way back to
JSON (a record's ``args``) is ``lagent_like._private.json_values``.

The classes are found by module and name, so that importing the package imports none
of ``datetime``, ``decimal`` or ``uuid``: an annotation naming one has imported it.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any, Callable, NamedTuple, Optional

from .._private.lazy import lazy_pattern
from . import _families as fam
from ._families import Check

__all__ = ["VALUE_CLASSES", "ValueClass", "value_check", "value_class_of"]


def _iso_text(value: Any) -> str:
    """``value`` as an ISO 8601 date or time Python 3.9 reads as 3.11 does (``Z``, any fraction)."""
    if type(value) is not str:
        raise ValueError
    match = _ISO_TIME().fullmatch(value)
    if match is None:
        return value
    head, fraction, zone = match.group("head", "fraction", "zone")
    text = head
    if fraction is not None:  # 3.9 reads exactly 3 or 6 digits; 3.11 any number, keeping 6
        text += "." + fraction[:6].ljust(6, "0")
    if zone is not None:  # 3.9 reads only "+HH:MM"
        text += "+00:00" if zone in ("Z", "z") else f"{zone[:3]}:{zone[3:].lstrip(':') or '00'}"
    return text


#: An ISO 8601 (date and) time of the common forms, split where Python 3.9 needs help.
_ISO_TIME = lazy_pattern(
    r"(?P<head>(?:[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ])?[0-9]{2}(?::[0-9]{2}){0,2})"
    r"(?:[.,](?P<fraction>[0-9]+))?(?P<zone>[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?"
)


def _read_iso(cls: Any, value: Any) -> Any:
    return cls.fromisoformat(_iso_text(value))


def _read_date(cls: Any, value: Any) -> Any:
    if type(value) is not str:
        raise ValueError
    return cls.fromisoformat(value)


_NUMBER = r"[0-9]+(?:[.,][0-9]+)?"
#: An ISO 8601 duration of weeks, days, hours, minutes and seconds (years and months
#: have no fixed length); at least one part, and a "T" only before a time part.
_DURATION = lazy_pattern(
    rf"(?P<sign>[+-])?P(?!$)(?:(?P<weeks>{_NUMBER})W)?(?:(?P<days>{_NUMBER})D)?"
    rf"(?:T(?=[0-9])(?:(?P<hours>{_NUMBER})H)?(?:(?P<minutes>{_NUMBER})M)?(?:(?P<seconds>{_NUMBER})S)?)?",
    re.IGNORECASE,
)


def _read_duration(cls: Any, value: Any) -> Any:
    if fam.is_number(value):
        if not math.isfinite(value):
            raise ValueError
        return cls(seconds=value)
    if type(value) is not str:
        raise ValueError
    match = _DURATION().fullmatch(value)
    if match is None:
        raise ValueError
    parts = {
        unit: float(amount.replace(",", "."))
        for unit, amount in match.groupdict().items()
        if unit != "sign" and amount is not None
    }
    duration = cls(**parts)
    return -duration if match.group("sign") == "-" else duration


#: A decimal number's text: ASCII digits, one optional sign, point and exponent (no "1_000").
_DECIMAL = lazy_pattern(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")


def _read_decimal(cls: Any, value: Any) -> Any:
    if fam.is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError
        # The float's shortest text, not its binary expansion: 2.5 -> Decimal('2.5').
        return cls(repr(float(value))) if isinstance(value, float) else cls(int(value))
    if type(value) is not str or _DECIMAL().fullmatch(value) is None:
        raise ValueError
    return cls(value.strip())


def _read_string(cls: Any, value: Any) -> Any:
    if type(value) is not str:
        raise ValueError
    return cls(value)


def _read_bytes(cls: Any, value: Any) -> Any:
    if type(value) is not str:
        raise ValueError
    encoded = value.encode("utf-8")
    return encoded if cls is bytes else cls(encoded)


class ValueClass(NamedTuple):
    """One row of :data:`VALUE_CLASSES`: a class a model sends in a JSON form.

    Attributes:
        module: the module defining the class (found in ``sys.modules``, never imported).
        name: the class's name in that module; its subclasses are found along their MRO.
        schema: its JSON Schema fragment in the exports.
        lagent: the type word of Lagent's descriptions (Lagent's own: ``STRING`` for each).
        form: its JSON form, as a refusal names it.
        read: builds a value of the class (the annotated one) from its JSON form; raises
            ``ValueError`` (also for a value of another JSON type), ``TypeError``,
            ``OverflowError`` or ``ArithmeticError`` (``decimal``'s errors) when it cannot.
    """

    module: str
    name: str
    schema: dict[str, Any]
    lagent: str
    form: str
    read: Callable[[Any, Any], Any]


_STRING = fam.STRING.lagent

#: The one table of standard-library value classes, by class name.
VALUE_CLASSES: dict[str, ValueClass] = {
    row.name: row
    for row in (
        ValueClass("datetime", "datetime", {"type": "string", "format": "date-time"}, _STRING,
                   "an ISO 8601 string such as '2024-01-02T03:04:05'", _read_iso),
        ValueClass("datetime", "date", {"type": "string", "format": "date"}, _STRING,
                   "an ISO 8601 string such as '2024-01-02'", _read_date),
        ValueClass("datetime", "time", {"type": "string", "format": "time"}, _STRING,
                   "an ISO 8601 string such as '03:04:05'", _read_iso),
        ValueClass("datetime", "timedelta", {"type": "string", "format": "duration"}, _STRING,
                   "an ISO 8601 duration in weeks, days, hours, minutes and seconds such as "
                   "'P1DT2H30M', or a number of seconds", _read_duration),
        ValueClass("decimal", "Decimal", {"type": ["number", "string"]}, _STRING,
                   "a number, or its text such as '2.50'", _read_decimal),
        ValueClass("uuid", "UUID", {"type": "string", "format": "uuid"}, _STRING,
                   "a string such as '12345678-1234-5678-1234-567812345678'", _read_string),
        ValueClass("pathlib", "PurePath", {"type": "string", "format": "path"}, _STRING,
                   "a string", _read_string),
        ValueClass("builtins", "bytes", {"type": "string"}, _STRING, "a string", _read_bytes),
        ValueClass("ipaddress", "IPv4Address", {"type": "string", "format": "ipv4"}, _STRING,
                   "a string such as '192.0.2.1'", _read_string),
        ValueClass("ipaddress", "IPv6Address", {"type": "string", "format": "ipv6"}, _STRING,
                   "a string such as '2001:db8::1'", _read_string),
        ValueClass("ipaddress", "IPv4Network", {"type": "string", "format": "ipv4network"}, _STRING,
                   "a string such as '192.0.2.0/24'", _read_string),
        ValueClass("ipaddress", "IPv6Network", {"type": "string", "format": "ipv6network"}, _STRING,
                   "a string such as '2001:db8::/32'", _read_string),
        ValueClass("ipaddress", "IPv4Interface", {"type": "string", "format": "ipv4interface"}, _STRING,
                   "a string such as '192.0.2.1/24'", _read_string),
        ValueClass("ipaddress", "IPv6Interface", {"type": "string", "format": "ipv6interface"}, _STRING,
                   "a string such as '2001:db8::1/32'", _read_string),
    )
}  # fmt: skip


def value_class_of(cls: type) -> Optional[ValueClass]:
    """The row of :data:`VALUE_CLASSES` of ``cls`` or its nearest base; ``None`` if none."""
    for klass in cls.__mro__:
        row = VALUE_CLASSES.get(klass.__name__)
        if row is not None and getattr(sys.modules.get(row.module), row.name, None) is klass:
            return row
    return None


def value_check(cls: type, mode: str) -> Check:
    """The check of a parameter of value class ``cls``: an instance as is, else one read from JSON.

    The same in modes ``"coerce"`` and ``"strict"`` (a class's JSON form is no conversion);
    mode ``"off"`` checks nothing.
    """
    if mode == fam.OFF:
        return fam.accept
    row = value_class_of(cls)
    if row is None:
        raise ValueError(f"{cls!r} is not a value class")
    read = row.read
    refusal = fam.refusal(f"{cls.__name__} ({row.form})")

    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        try:
            return read(cls, value)
        except (ValueError, TypeError, OverflowError, ArithmeticError):
            return refusal

    return check
