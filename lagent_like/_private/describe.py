"""Turn a function into an API description: the engine behind ``tool_api``.

Everything is read once, when the function is decorated or its class defined: the
signature, the resolved type hints, the docstring. The result is an :class:`ApiSpec`
holding the Lagent description dict plus what the parsers need at call time. All
problems in one definition are collected and raised together.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..context import ToolContext
from ..exceptions import ToolDefinitionError
from . import docstrings
from .signature import EMPTY as _EMPTY
from .signature import Param, read_parameters
from .types import LAGENT_CLASSES, describe_annotation, describe_type_word, strip_annotated
from .typing_compat import get_args, get_type_hints

_VAR_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_SELF_NAMES = ("self",)


@dataclass
class DescribeOptions:
    """The options of ``tool_api``; see its docstring."""

    name: Optional[str] = None
    explode_return: bool = False
    returns_named_value: bool = False
    include_arguments: Optional[list[str]] = None
    exclude_arguments: Optional[list[str]] = None


@dataclass
class ApiSpec:
    """Everything known about one API after reading its definition.

    Attributes:
        name: the API name a model uses.
        func: the function as defined (unbound for methods).
        description: the Lagent description dict (never mutated after creation).
        hints: resolved annotation of each described parameter (absent when unannotated).
        declared: what each described parameter is checked against: its annotation, or
            the class its docstring type names; absent when neither says anything.
        defaults: default value of each described parameter that has one.
        context_params: parameters annotated ``ToolContext``, filled by the executor
            and never described.
        checks: the compiled ``(validators, exact types)`` of ``declared``, filled on
            first use and shared by every instance.
        accepts_any_kwargs: the function takes ``**kwargs``.
        is_async: the function is a coroutine function.
        options: the ``tool_api`` options it was described with (reused for overrides).
    """

    name: str
    func: Callable[..., Any]
    description: dict[str, Any]
    options: DescribeOptions
    hints: dict[str, Any] = field(default_factory=dict)
    declared: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    checks: Optional[tuple[dict[str, Any], dict[str, Any]]] = None
    context_params: tuple[str, ...] = ()
    accepts_any_kwargs: bool = False
    is_async: bool = False


class _Hints:
    """Stand-in that lets ``get_type_hints`` resolve one annotation in a function's globals."""

    def __init__(self, name: str, annotation: Any, func: Callable[..., Any]) -> None:
        self.__annotations__ = {name: annotation}
        self.__globals__ = getattr(func, "__globals__", {})


def _resolve_hints(func: Callable[..., Any], problems: list[str]) -> dict[str, Any]:
    """Resolve string annotations (``from __future__ import annotations``).

    Resolved one by one so that a return type naming the class being defined (not yet
    bound) does not prevent reading the parameters.
    """
    annotations = getattr(func, "__annotations__", None) or {}
    if not any(isinstance(a, str) for a in annotations.values()):
        return {k: v for k, v in annotations.items() if k != "return"}
    try:
        return get_type_hints(func, include_extras=True)
    except Exception:  # noqa: BLE001 - retried per parameter below to find the culprit
        pass
    hints: dict[str, Any] = {}
    for name, annotation in getattr(func, "__annotations__", {}).items():
        if name == "return":
            continue
        try:
            hints[name] = get_type_hints(_Hints(name, annotation, func), include_extras=True)[name]
        except Exception as exc:  # noqa: BLE001 - any failure is a definition problem
            problems.append(
                f"cannot resolve the annotation {annotation!r} of parameter {name!r}: "
                f"{type(exc).__name__}: {exc}"
            )
    return hints


def _selected(params: list[Param], opts: DescribeOptions, problems: list[str]) -> list[Param]:
    if opts.include_arguments is None and opts.exclude_arguments is None:
        return params
    names = [p.name for p in params]
    for option in ("include_arguments", "exclude_arguments"):
        chosen = getattr(opts, option)
        unknown = [n for n in chosen or () if n not in names]
        if unknown:
            problems.append(f"{option} names {unknown}, which are not parameters; parameters are {names}")
    if opts.include_arguments is not None:
        hidden = {n for n in names if n not in opts.include_arguments}
    else:
        hidden = set(opts.exclude_arguments or ())
    for param in params:
        if param.name in hidden and param.default is _EMPTY:
            problems.append(
                f"parameter {param.name!r} is left out of the description but has no default, "
                "so no call could supply it"
            )
    return [p for p in params if p.name not in hidden]


def _return_data(
    info: docstrings.DocInfo, opts: DescribeOptions, problems: list[str]
) -> list[dict[str, Any]]:
    if opts.explode_return:
        items = docstrings.exploded_return_items(info)
        if not items:
            problems.append(
                "explode_return=True needs a Returns: entry whose indented lines list "
                "the members, e.g. '- name (str): description'"
            )
    elif opts.returns_named_value:
        items = docstrings.named_return_items(info)
        if not items:
            problems.append(
                "returns_named_value=True needs Returns: entries of the form 'name (type): description'"
            )
    else:
        return []
    data = []
    for item in items:
        entry: dict[str, Any] = {"name": item.name, "description": item.description}
        type_name = describe_type_word(item.type)
        if type_name is not None:
            entry["type"] = type_name
        data.append(entry)
    return data


def _parameter(param: Param, hint: Any, doc: tuple[Optional[str], str]) -> dict[str, Any]:
    doc_type, text = doc
    entry: dict[str, Any] = {"name": param.name}
    if hint is _EMPTY:
        entry["type"] = describe_type_word(doc_type) or "STRING"
        entry["description"] = text
        return entry
    info = describe_annotation(hint)
    entry["type"] = info.name
    entry["description"] = text if info.label is None else info.label
    if info.enum is not None:
        entry["enum"] = info.enum
    return entry


def _is_context(hint: Any) -> bool:
    """Whether an annotation is ``ToolContext`` (also inside ``Optional``/``Annotated``)."""
    if hint is None:
        return False
    hint, _ = strip_annotated(hint)
    if hint is ToolContext:
        return True
    return any(a is ToolContext for a in get_args(hint))


def copy_description(value: Any) -> Any:
    """Deep-copy a description: dicts and lists are rebuilt, everything else shared.

    Descriptions hold dicts, lists and immutable scalars (enum values are shared as
    they are), so this is a deep copy at a fraction of ``copy.deepcopy``'s cost. Dict
    and list subclasses come back as plain dicts and lists.
    """
    if isinstance(value, dict):
        return {k: copy_description(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_description(v) for v in value]
    return value


def build_api_spec(func: Callable[..., Any], opts: DescribeOptions) -> ApiSpec:
    """Read ``func`` into an :class:`ApiSpec`.

    Raises:
        ToolDefinitionError: listing every problem found, naming the function.
    """
    owner = getattr(func, "__qualname__", None) or repr(func)
    if not callable(func):
        raise ToolDefinitionError(owner, [f"tool_api needs a function, got {type(func).__name__}"])
    problems: list[str] = []
    try:
        all_params = read_parameters(func)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(owner, [f"has no readable signature: {exc}"]) from None
    params = all_params
    if params and params[0].name in _SELF_NAMES and params[0].kind is not inspect.Parameter.KEYWORD_ONLY:
        params = params[1:]
    accepts_any_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    params = [p for p in params if p.kind not in _VAR_KINDS]
    for param in params:
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            problems.append(f"parameter {param.name!r} is positional-only; tools receive keyword arguments")

    try:
        info = docstrings.parse_docstring(func.__doc__)
    except docstrings.DocstringSyntaxError as exc:
        problems.append(str(exc))
        info = docstrings.DocInfo()
    known = {p.name for p in all_params}
    stray = [n for n in info.params if n.lstrip("*") not in known]
    if stray:
        problems.append(
            f"the docstring describes {stray}, which the signature does not have; "
            f"parameters are {[p.name for p in params]}"
        )
    hints = _resolve_hints(func, problems)
    context_params = tuple(p.name for p in params if _is_context(hints.get(p.name)))
    described = [p for p in _selected(params, opts, problems) if p.name not in context_params]
    return_data = _return_data(info, opts, problems)
    if problems:
        raise ToolDefinitionError(owner, problems)

    parameters = [
        _parameter(p, hints.get(p.name, _EMPTY), info.params.get(p.name, (None, ""))) for p in described
    ]
    description: dict[str, Any] = {
        "name": opts.name or func.__name__,
        "description": info.description,
        "parameters": parameters,
        "required": [p.name for p in described if p.default is _EMPTY],
    }
    if return_data:
        description["return_data"] = return_data
    declared = {}
    for p in described:
        if p.name in hints:
            declared[p.name] = hints[p.name]
        else:
            doc_type = describe_type_word(info.params.get(p.name, (None, ""))[0])
            if doc_type is not None:
                declared[p.name] = LAGENT_CLASSES[doc_type]
    return ApiSpec(
        name=description["name"],
        func=func,
        description=description,
        options=opts,
        hints={p.name: hints[p.name] for p in described if p.name in hints},
        declared=declared,
        defaults={p.name: p.default for p in described if p.default is not _EMPTY},
        accepts_any_kwargs=accepts_any_kwargs,
        context_params=context_params,
        is_async=inspect.iscoroutinefunction(func),
    )
