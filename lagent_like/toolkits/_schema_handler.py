"""How a schema tool calls its handler: the schema's defaults, a ``ToolContext``, raw arguments.

A tool defined by a JSON schema has no signature of its own to describe, but its
handler has one, and it must be honoured as a function tool's is: the schema's
``default`` of an omitted argument is what the handler receives (the model was told
so), a parameter annotated ``ToolContext`` receives the call's context, and a handler
taking ``raw_arguments`` (LiveKit's ``raw_schema`` tools) receives the checked
arguments as one dict. ``schema_tool.py`` reads the handler here once, when the tool
is built; what is wrong with it is reported then.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from typing import Any, Callable, NamedTuple

from .._private.text import preview
from ..spec._describe import _is_context, _resolve_hints

__all__ = ["RAW_ARGUMENTS", "HandlerPlan", "plan_handler", "runner", "schema_defaults"]

#: The parameter of a handler that takes every argument as one dict (LiveKit's name).
RAW_ARGUMENTS = "raw_arguments"

#: Defaults of these classes are shared between calls; others are copied for each call.
_IMMUTABLE = (str, int, float, bool, type(None))

_Params = Mapping[str, inspect.Parameter]


class HandlerPlan(NamedTuple):
    """How the handler is called (see :func:`plan_handler`).

    Attributes:
        context: its parameters annotated ``ToolContext``.
        raw: it takes the arguments as one dict, ``raw_arguments``.
        problems: what keeps it from working for every valid call.
    """

    context: tuple[str, ...] = ()
    raw: bool = False
    problems: tuple[str, ...] = ()


def plan_handler(
    handler: Any, props: Mapping[str, Any], required: list[str], open_: bool, any_extra: bool
) -> HandlerPlan:
    """How ``handler`` is called with the arguments of the schema whose properties are ``props``.

    Args:
        handler: the tool's handler.
        props: the schema's properties.
        required: the required property names.
        open_: arguments other than the properties may arrive.
        any_extra: ``additionalProperties`` is ``true`` (for the message).
    """
    if handler is None or not callable(handler):
        got = f"{type(handler).__name__} {preview(handler)}"
        return HandlerPlan(problems=(f"the handler must be a function, got {got}",))
    try:
        params = inspect.signature(handler).parameters
    except (TypeError, ValueError):  # builtins without a signature: trust them
        return HandlerPlan()
    context = _context_params(handler, params)
    problems = [
        f"the handler's parameter {n!r} is annotated ToolContext but is also a property of the schema"
        for n in context
        if n in props
    ]
    raw = RAW_ARGUMENTS in params and RAW_ARGUMENTS not in props and RAW_ARGUMENTS not in context
    if raw:
        problems += _raw_problems(params, context)
    else:
        problems += _keyword_problems(params, props, open_, any_extra)
        problems += _default_problems(params, props, required, context)
    return HandlerPlan(context, raw, tuple(problems))


def _context_params(handler: Any, params: _Params) -> tuple[str, ...]:
    """The handler's parameters annotated ``ToolContext`` (string annotations resolved)."""
    hints: dict[str, Any] = {}
    if any(isinstance(p.annotation, str) for p in params.values()):
        function = handler if inspect.isroutine(handler) else getattr(handler, "__call__", handler)  # noqa: B004
        hints = _resolve_hints(function, [])  # an unresolvable annotation is no ToolContext
    found = []
    for name, param in params.items():
        hint = hints.get(name, param.annotation)
        if hint is not param.empty and not isinstance(hint, str) and _is_context(hint):
            found.append(name)
    return tuple(found)


def _raw_problems(params: _Params, context: tuple[str, ...]) -> list[str]:
    """What keeps a ``raw_arguments`` handler from being called with the arguments and context only."""
    problems = []
    if params[RAW_ARGUMENTS].kind is inspect.Parameter.POSITIONAL_ONLY:
        problems.append(f"the handler's parameter {RAW_ARGUMENTS!r} is positional-only; it comes by keyword")
    for name, param in params.items():
        if name == RAW_ARGUMENTS or name in context or param.default is not param.empty:
            continue
        if param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            problems.append(
                f"the handler's parameter {name!r} has no default; a handler taking "
                f"{RAW_ARGUMENTS!r} receives only it and ToolContext parameters"
            )
    return problems


def _keyword_problems(params: _Params, props: Mapping[str, Any], open_: bool, any_extra: bool) -> list[str]:
    """What keeps ``handler(**arguments)`` from taking every argument the schema lets through."""
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if takes_any:
        return []
    named = {n for n, p in params.items() if p.kind is not p.VAR_POSITIONAL}  # positional-only: below
    missing = [n for n in props if n not in named]
    problems = []
    if missing:
        problems.append(f"the handler has no parameter for the properties {missing}; add them or **kwargs")
    if open_ and any_extra:
        problems.append("'additionalProperties' is true but the handler takes no **kwargs")
    elif open_:
        problems.append(
            "'additionalProperties' or 'patternProperties' let more arguments through "
            "but the handler takes no **kwargs"
        )
    return problems


def _default_problems(
    params: _Params, props: Mapping[str, Any], required: list[str], context: tuple[str, ...]
) -> list[str]:
    """The handler's parameters a valid call may leave without a value."""
    problems = []
    filled = {*required, *context, *schema_defaults(props, [])}
    for name, param in params.items():
        if param.default is not param.empty or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.kind is param.POSITIONAL_ONLY:
            problems.append(f"the handler's parameter {name!r} is positional-only; arguments come by keyword")
        elif name not in filled:
            problems.append(
                f"the handler's parameter {name!r} has no default; the schema does not require it"
            )
    return problems


def schema_defaults(props: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    """The ``default`` of each property that is not required (an omitted argument takes it)."""
    return {
        name: prop["default"]
        for name, prop in props.items()
        if isinstance(prop, Mapping) and "default" in prop and name not in required
    }


def runner(handler: Callable[..., Any], plan: HandlerPlan, defaults: Mapping[str, Any]) -> Callable[..., Any]:
    """What a call runs: ``handler`` with the omitted arguments' defaults, as ``plan`` says.

    The handler itself when there is nothing to add (a call costs no extra frame).
    """
    run = _bind(handler)
    if not defaults and not plan.raw:
        return run
    fills = [(name, value, isinstance(value, _IMMUTABLE)) for name, value in defaults.items()]
    context = plan.context if plan.raw else ()

    def keywords(given: dict[str, Any]) -> dict[str, Any]:
        passed = {name: given.pop(name) for name in context if name in given}
        for name, value, shared in fills:
            if name not in given:
                given[name] = value if shared else copy.deepcopy(value)  # one call's change stays its own
        return {RAW_ARGUMENTS: given, **passed} if plan.raw else given

    if inspect.iscoroutinefunction(run):

        async def acall(**given: Any) -> Any:
            return await run(**keywords(given))

        return acall

    def call(**given: Any) -> Any:
        return run(**keywords(given))

    return call


def _bind(handler: Callable[..., Any]) -> Callable[..., Any]:
    """The handler in a form whose sync/async nature ``inspect`` can see."""
    if inspect.iscoroutinefunction(handler) or not inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 - an object with an async __call__
    ):
        return handler

    async def call(**arguments: Any) -> Any:
        return await handler(**arguments)

    return call
