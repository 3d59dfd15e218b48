"""Read a function's parameters quickly.

``inspect.signature`` handles every kind of callable and costs about as much as all
the rest of describing an API. Plain functions (what ``tool_api`` decorates almost
always) carry the same facts on their code object, read here directly; every other
callable goes through ``inspect.signature``. ``tests/test_signature.py`` checks the
two agree.
"""

from __future__ import annotations

import inspect
import itertools
import types
from typing import Any, Callable, NamedTuple

_P = inspect.Parameter
EMPTY: Any = _P.empty
_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS
_CO_VAR_ANY = _CO_VARARGS | _CO_VARKEYWORDS


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


#: What :func:`read_parameters` returns per parameter: ``(name, kind, default)``.
ParamTuple = tuple[str, Any, Any]


def _from_code(func: types.FunctionType) -> list[ParamTuple]:
    code = func.__code__
    names = code.co_varnames
    positional = code.co_argcount
    positional_only = code.co_posonlyargcount
    keyword_only = code.co_kwonlyargcount
    defaults = func.__defaults__ or ()
    if len(defaults) > positional:
        defaults = defaults[len(defaults) - positional :]  # the last ones apply
    # Plain tuples, built by zip in C: a NamedTuple per parameter costs more than the
    # rest of reading the signature.
    if positional_only:
        kinds: Any = (_P.POSITIONAL_ONLY,) * positional_only + (_P.POSITIONAL_OR_KEYWORD,) * (
            positional - positional_only
        )
    else:
        kinds = itertools.repeat(_P.POSITIONAL_OR_KEYWORD)
    params: list[ParamTuple] = list(
        zip(names[:positional], kinds, (EMPTY,) * (positional - len(defaults)) + defaults)
    )
    flags = code.co_flags
    if not (keyword_only or flags & _CO_VAR_ANY):
        return params
    index = positional + keyword_only
    if flags & _CO_VARARGS:
        params.append((names[index], _P.VAR_POSITIONAL, EMPTY))
        index += 1
    if keyword_only:
        kwdefaults = func.__kwdefaults__ or {}
        params += [
            (n, _P.KEYWORD_ONLY, kwdefaults.get(n, EMPTY))
            for n in names[positional : positional + keyword_only]
        ]
    if flags & _CO_VARKEYWORDS:
        params.append((names[index], _P.VAR_KEYWORD, EMPTY))
    return params


def read_parameters(func: Callable[..., Any]) -> list[ParamTuple]:
    """The parameters of ``func`` in signature order, as ``(name, kind, default)`` tuples.

    They compare equal to :class:`Param` tuples; plain functions get plain tuples
    (cheaper to build), so unpack them rather than reading attributes.

    Raises:
        TypeError, ValueError: ``func`` has no signature (from ``inspect.signature``).
    """
    if (
        type(func) is types.FunctionType
        and not hasattr(func, "__wrapped__")
        and "__signature__" not in vars(func)
    ):
        return _from_code(func)
    return [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]
