"""Read a function's parameters quickly.

``inspect.signature`` handles every kind of callable and costs about as much as all
the rest of describing an API. Plain functions (what ``tool_api`` decorates almost
always) carry the same facts on their code object, read here directly; every other
callable goes through ``inspect.signature``. ``tests/test_signature.py`` checks the
two agree.
"""

from __future__ import annotations

import inspect
import types
from typing import Any, Callable, NamedTuple

_P = inspect.Parameter
EMPTY: Any = _P.empty
_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS


class Param(NamedTuple):
    """One parameter, with ``inspect.Parameter``'s attribute names and kinds.

    Attributes:
        name: the parameter name.
        kind: an ``inspect.Parameter`` kind constant.
        default: the default value, or ``EMPTY``.
    """

    name: str
    kind: Any
    default: Any


def _from_code(func: types.FunctionType) -> list[Param]:
    code = func.__code__
    names = code.co_varnames
    positional = code.co_argcount
    positional_only = code.co_posonlyargcount
    keyword_only = code.co_kwonlyargcount
    defaults = func.__defaults__ or ()
    kwdefaults = func.__kwdefaults__ or {}
    first_default = positional - len(defaults)
    params = [
        Param(
            name,
            _P.POSITIONAL_ONLY if index < positional_only else _P.POSITIONAL_OR_KEYWORD,
            defaults[index - first_default] if index >= first_default else EMPTY,
        )
        for index, name in enumerate(names[:positional])
    ]
    index = positional + keyword_only
    if code.co_flags & _CO_VARARGS:
        params.append(Param(names[index], _P.VAR_POSITIONAL, EMPTY))
        index += 1
    params += [
        Param(n, _P.KEYWORD_ONLY, kwdefaults.get(n, EMPTY))
        for n in names[positional : positional + keyword_only]
    ]
    if code.co_flags & _CO_VARKEYWORDS:
        params.append(Param(names[index], _P.VAR_KEYWORD, EMPTY))
    return params


def read_parameters(func: Callable[..., Any]) -> list[Param]:
    """The parameters of ``func`` in signature order.

    Raises:
        TypeError, ValueError: ``func`` has no signature (from ``inspect.signature``).
    """
    if (
        type(func) is types.FunctionType
        and not hasattr(func, "__wrapped__")
        and "__signature__" not in vars(func)
    ):
        return _from_code(func)
    return [Param(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]
