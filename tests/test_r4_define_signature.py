"""The short path for the commonest signature reads what the general path reads.

No ``from __future__ import annotations`` here: the annotations are classes, except
where a test writes them as text.
"""

import functools
import typing
from typing import Any, Callable, Optional

import pytest

from lagent_like.spec import _describe


def plain(a: int, b: str = "x", c: Optional[float] = None) -> int:
    """Take three."""
    return a


def with_self(self: Any, a: int, b: int = 2) -> int:
    """Be a method."""
    return a


def unannotated(a, b=3):  # type: ignore[no-untyped-def]
    """Take untyped parameters."""
    return a


def nothing() -> None:
    """Take nothing."""


def self_only(self: Any) -> str:
    """Take only self."""
    return ""


def self_not_first(a: int, self: int) -> int:
    """Name a later parameter self."""
    return a


def texts(a: int, b: list[str]) -> int:
    """Annotate with strings (as ``from __future__ import annotations`` does)."""
    return a


texts.__annotations__ = {"a": "int", "b": "list[str]", "return": "int"}


def _general(func: Callable[..., Any]) -> Any:
    """What the general path reads: the same function behind ``functools.wraps`` (read by inspect)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return _describe._read_signature(wrapper, func.__qualname__, [])


@pytest.mark.parametrize(
    "function",
    [
        pytest.param(plain, id="defaults"),
        pytest.param(with_self, id="self-first"),
        pytest.param(unannotated, id="unannotated"),
        pytest.param(nothing, id="no-parameters"),
        pytest.param(self_only, id="self-only"),
        pytest.param(self_not_first, id="self-not-first"),
        pytest.param(texts, id="string-annotations"),
    ],
)
def test_the_commonest_signature_is_read_as_the_general_path_reads_it(function: Callable[..., Any]) -> None:
    assert _describe._plain_signature(function) is not None
    names, kept, hints, var_keyword = _describe._read_signature(function, function.__qualname__, [])
    general_names, general_kept, general_hints, general_var_keyword = _general(function)
    assert set(names) == set(general_names)
    assert kept == general_kept
    assert hints == general_hints
    assert var_keyword == general_var_keyword is None


def positional_only(a: int, /, b: int) -> int:
    """Take a positional-only parameter."""
    return a


def keyword_only(a: int, *, b: int) -> int:
    """Take a keyword-only parameter."""
    return a


def var_keyword(a: int, **rest: int) -> int:
    """Take more keywords."""
    return a


def var_positional(a: int, *more: int) -> int:
    """Take more positional arguments."""
    return a


@pytest.mark.parametrize(
    "function",
    [
        pytest.param(positional_only, id="positional-only"),
        pytest.param(keyword_only, id="keyword-only"),
        pytest.param(var_keyword, id="var-keyword"),
        pytest.param(var_positional, id="var-positional"),
        pytest.param(functools.wraps(plain)(lambda *a, **k: 0), id="wrapped"),
    ],
)
def test_other_signatures_take_the_general_path(function: Callable[..., Any]) -> None:
    assert _describe._plain_signature(function) is None


def plain_texts(self: Any, a: int, c: None, b: str = "x") -> bool:
    """Annotate with the names of plain classes, as text.

    No ``None`` default: before Python 3.11 ``get_type_hints`` makes such a parameter
    ``Optional``, so the general path reads it.
    """
    return True


plain_texts.__annotations__ = {"a": "int", "c": "None", "b": "str", "return": "bool"}


def test_plain_class_names_as_text_are_resolved_as_get_type_hints_resolves_them() -> None:
    _, kept, hints, _ = _describe._read_signature(plain_texts, "plain_texts", [])
    expected = typing.get_type_hints(plain_texts)
    assert hints == {"a": expected["a"], "b": expected["b"], "c": expected["c"]}
    assert hints == {"a": int, "b": str, "c": type(None)}
    assert [p[0] for p in kept] == ["a", "c", "b"]
