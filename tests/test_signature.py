"""The code-object signature reader agrees with ``inspect.signature``."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import pytest

from lagent_like._private.signature import Param, read_parameters


def plain(a, b=1):  # type: ignore[no-untyped-def]
    return a


def kinds(p, /, q, r=2, *args, s, t=3, **kw):  # type: ignore[no-untyped-def]
    return p


def positional_only_defaults(a, b=1, /, c=2):  # type: ignore[no-untyped-def]
    return a


def only_keywords(*, x: int, y: str = "y") -> None:
    return None


def no_params() -> None:
    return None


async def coroutine(a: int, *rest: int) -> int:
    return a


class Holder:
    def method(self, x: int, y: int = 0) -> int:
        return x


@functools.wraps(plain)
def wrapped(*args: Any, **kwargs: Any) -> Any:
    return plain(*args, **kwargs)


def _expected(func: Callable[..., Any]) -> list[Param]:
    return [Param(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]


@pytest.mark.parametrize(
    "func",
    [
        pytest.param(plain, id="plain"),
        pytest.param(kinds, id="all-kinds"),
        pytest.param(positional_only_defaults, id="positional-only-defaults"),
        pytest.param(only_keywords, id="keyword-only"),
        pytest.param(no_params, id="none"),
        pytest.param(coroutine, id="async-varargs"),
        pytest.param(Holder.method, id="method"),
        pytest.param(wrapped, id="wrapped-uses-inspect"),
        pytest.param(functools.partial(plain, 1), id="partial-uses-inspect"),
        pytest.param(lambda x, *, y=2: x, id="lambda"),
    ],
)
def test_read_parameters_matches_inspect(func: Callable[..., Any]) -> None:
    assert read_parameters(func) == _expected(func)
