"""Turn a function into an API description: the engine behind ``tool_api``.

Everything is read once, when the function is decorated or its class defined: the
signature, the resolved type hints, the docstring. The result is an :class:`ApiSpec`
holding the Lagent description dict plus what the parsers need at call time. All
problems in one definition are collected and raised together.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import inspect
import sys
import types
import typing
import warnings
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any, Callable, Optional, TypeVar

from .._private.typing_compat import LITERAL_ORIGINS, Annotated, get_args, get_type_hints, strip_annotated
from ..context import ToolContext
from ..exceptions import DefinitionWarning, ToolDefinitionError
from ..types._json_schema import hoist_definitions, object_shape, opaque_note
from ..types._pydantic import annotated_problems, field_default_problems, field_description
from . import _docstrings as docstrings
from ._api_spec import (
    DEFAULT_OPTIONS,
    NO_DEFAULT,
    ApiSpec,
    DescribeOptions,
    Param,
    copy_description,
    lagent_description,
)
from ._type_names import (
    PLAIN_TYPES,
    SHAPED_WORDS,
    alias_origin,
    declared_class_of_word,
    describe_annotation,
    describe_type_word,
    is_plain,
)

# The spec's types, importable from here as before the spec had its own module.
__all__ = [
    "DEFAULT_OPTIONS",
    "NO_DEFAULT",
    "ApiSpec",
    "DescribeOptions",
    "Param",
    "build_api_spec",
    "copy_description",
    "definition_stacklevel",
]

_T = TypeVar("_T")
_EMPTY: Any = NO_DEFAULT  # inspect.Parameter.empty
#: One parameter as ``(name, kind, default)``, from ``inspect.signature``.
ParamTuple = tuple[str, Any, Any]

_POSITIONAL_ONLY = inspect.Parameter.POSITIONAL_ONLY
_POSITIONAL_OR_KEYWORD = inspect.Parameter.POSITIONAL_OR_KEYWORD
_KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY
_VAR_POSITIONAL = inspect.Parameter.VAR_POSITIONAL
_VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD
_SELF_NAMES = ("self",)
#: What ``inspect.markcoroutinefunction`` (Python 3.12) sets on a function.
_COROUTINE_MARKER = "_is_coroutine_marker"
#: Whether ``get_type_hints`` wraps the hint of a parameter that defaults to ``None`` in ``Optional``.
_ADDS_OPTIONAL = sys.version_info < (3, 11)
_BUILTIN_NAMES = vars(builtins)
_MISSING = object()  # a name no namespace has (inspect's empty is a class)
#: What the docstring says about a parameter it does not describe.
_UNDOCUMENTED: tuple[Optional[str], str] = (None, "")


class _Hints:
    """Stand-in that lets ``get_type_hints`` resolve one annotation in a function's globals."""

    def __init__(self, name: str, annotation: Any, func: Callable[..., Any]) -> None:
        self.__annotations__ = {name: annotation}
        self.__globals__ = getattr(func, "__globals__", {})


def _plain_hints(func: types.FunctionType) -> Optional[dict[str, Any]]:
    """What ``get_type_hints(func)`` returns when every annotation is the name of a plain class.

    That is a string naming a class whose metaclass is ``type`` (``'int'``, ``'str'``)
    or ``'None'``, found in the function's globals or its builtins, as ``eval`` finds
    it. ``None`` for anything else, which ``get_type_hints`` then resolves.

    Speed (the define benchmark): ``get_type_hints`` compiles and evaluates each string
    (a third of describing a function of three ``int`` parameters); a dictionary
    lookup finds the same class.
    """
    if _ADDS_OPTIONAL and _has_none_default(func):
        return None  # get_type_hints of Python < 3.11 makes these Optional[...]
    namespace = func.__globals__
    builtin_names = namespace.get("__builtins__", builtins)
    if builtin_names is builtins:
        builtin_names = _BUILTIN_NAMES
    elif builtin_names is not _BUILTIN_NAMES:
        return None  # a namespace with its own builtins: let eval read them
    resolved: dict[str, Any] = {}
    for name, annotation in func.__annotations__.items():
        if type(annotation) is not str:
            return None
        value = namespace.get(annotation, _MISSING)
        if value is _MISSING:
            value = builtin_names.get(annotation, _MISSING)
        if value is None:
            value = type(None)
        elif type(value) is not type or value.__module__ == "typing":  # typing.Generic is refused
            return None
        resolved[name] = value
    return resolved


def _has_none_default(func: types.FunctionType) -> bool:
    """Whether a parameter of ``func`` defaults to ``None``."""
    defaults = (*(func.__defaults__ or ()), *(func.__kwdefaults__ or {}).values())
    return any(default is None for default in defaults)


def _resolve_hints(func: Callable[..., Any], problems: list[str]) -> dict[str, Any]:
    """Resolve string annotations (``from __future__ import annotations``).

    Resolved one by one so that a return type naming the class being defined (not yet
    bound) does not prevent reading the parameters.
    """
    if type(func) is types.FunctionType and "__wrapped__" not in func.__dict__:
        plain = _plain_hints(func)
        if plain is not None:
            return plain
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


def _selected(params: list[ParamTuple], opts: DescribeOptions, problems: list[str]) -> list[ParamTuple]:
    if opts.include_arguments is None and opts.exclude_arguments is None:
        return params
    names = [p[0] for p in params]
    for option in ("include_arguments", "exclude_arguments"):
        chosen = getattr(opts, option)
        unknown = [n for n in chosen or () if n not in names]
        if unknown:
            problems.append(f"{option} names {unknown}, which are not parameters; parameters are {names}")
    if opts.include_arguments is not None:
        hidden = {n for n in names if n not in opts.include_arguments}
    else:
        hidden = set(opts.exclude_arguments or ())
    for name, _, default in params:
        if name in hidden and default is _EMPTY:
            problems.append(
                f"parameter {name!r} is left out of the description but has no default, "
                "so no call could supply it"
            )
    return [p for p in params if p[0] not in hidden]


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


def _is_context(hint: Any) -> bool:
    """Whether an annotation is ``ToolContext`` (also inside ``Optional``/``Annotated``)."""
    if type(hint) is types.GenericAlias and hint.__origin__ in PLAIN_TYPES:
        return ToolContext in hint.__args__  # list[str], dict[str, int]: no other way in
    # Only classes are plain (typing's aliases, whose hash is computed in Python, are not).
    if hint is None or (isinstance(hint, type) and is_plain(hint)):
        return False
    if alias_origin(hint) is None:
        hint, _ = strip_annotated(hint)
        if hint is ToolContext:
            return True
    return any(a is ToolContext for a in get_args(hint))


#: What describing needs from a signature: every parameter's name (``self`` too), the
#: parameters a call can pass as ``(name, kind, default)``, their annotations (``None``
#: when any annotation is a string, ``from __future__ import annotations``, that the
#: short path did not resolve: resolved by ``_resolve_hints``) and the name of its
#: ``**kwargs`` (``None`` without).
#: A plain tuple: a NamedTuple's constructor would cost a tenth of reading the signature.
_Signature = tuple[AbstractSet[str], list[ParamTuple], Optional[dict[str, Any]], Optional[str]]
#: Attributes by which a function asks ``inspect.signature`` for another signature
#: than its code's: only functions without them are read off their code.
_SIGNATURE_ATTRS = frozenset({"__wrapped__", "__signature__", "_partialmethod", "__partialmethod__"})


def _any_string(values: Iterable[Any]) -> bool:
    """Whether any of ``values`` is a string."""
    for value in values:  # noqa: SIM110 - a plain loop costs half what any() with a generator does
        if isinstance(value, str):
            return True
    return False


def _annotations(signature: inspect.Signature) -> dict[str, Any]:
    """The annotations a signature reports, by name (``'return'`` for the return type)."""
    found = {name: p.annotation for name, p in signature.parameters.items() if p.annotation is not _EMPTY}
    if signature.return_annotation is not _EMPTY:
        found["return"] = signature.return_annotation
    return found


def _code_parameters(func: types.FunctionType) -> list[ParamTuple]:
    """``(name, kind, default)`` of each parameter, in order, as ``inspect.signature`` reports them.

    Speed (the define benchmark): read off the code object, without building the
    ``Parameter`` and ``Signature`` objects (a fifth of describing a function).
    """
    code = func.__code__
    positional, keyword_only = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames
    defaults = func.__defaults__ or ()
    keyword_defaults = func.__kwdefaults__ or {}
    first_default = positional - len(defaults)
    found: list[ParamTuple] = [
        (
            names[i],
            _POSITIONAL_ONLY if i < code.co_posonlyargcount else _POSITIONAL_OR_KEYWORD,
            defaults[i - first_default] if i >= first_default else _EMPTY,
        )
        for i in range(positional)
    ]
    index = positional + keyword_only
    if code.co_flags & inspect.CO_VARARGS:
        found.append((names[index], _VAR_POSITIONAL, _EMPTY))
        index += 1
    found += [
        (name, _KEYWORD_ONLY, keyword_defaults.get(name, _EMPTY))
        for name in names[positional : positional + keyword_only]
    ]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        found.append((names[index], _VAR_KEYWORD, _EMPTY))
    return found


def _parameters(func: Callable[..., Any], owner: str) -> tuple[list[ParamTuple], dict[str, Any]]:
    """``func``'s parameters as ``(name, kind, default)`` and its annotations by name.

    Raises:
        ToolDefinitionError: ``func`` is not callable or has no readable signature.
    """
    if type(func) is types.FunctionType and _SIGNATURE_ATTRS.isdisjoint(func.__dict__):
        return _code_parameters(func), func.__annotations__
    if not callable(func):
        raise ToolDefinitionError(owner, [f"tool_api needs a function, got {type(func).__name__}"])
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(owner, [f"has no readable signature: {exc}"]) from None
    every = [(name, p.kind, p.default) for name, p in signature.parameters.items()]
    return every, _annotations(signature)


#: Code flags of a signature that the short path of :func:`_read_signature` does not read.
_STARRED = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def _plain_signature(func: types.FunctionType) -> Optional[_Signature]:
    """What :func:`_read_signature` returns, for the commonest signature; ``None`` for any other.

    That is a plain function whose parameters are all positional-or-keyword (no ``/``,
    ``*``, ``*args`` or ``**kwargs``). Speed (bench_scale's define row): read off the
    code object in one pass, without the ``(name, kind, default)`` of every parameter,
    and string annotations that name plain classes resolved at once (as
    :func:`_resolve_hints` would resolve them).
    """
    code = func.__code__
    if code.co_flags & _STARRED or code.co_posonlyargcount or code.co_kwonlyargcount:
        return None
    if not _SIGNATURE_ATTRS.isdisjoint(func.__dict__):
        return None
    count = code.co_argcount
    names = code.co_varnames[:count]
    defaults = func.__defaults__ or ()
    first_default = count - len(defaults)
    start = 1 if count and names[0] in _SELF_NAMES else 0
    kept: list[ParamTuple] = [
        (names[i], _POSITIONAL_OR_KEYWORD, defaults[i - first_default] if i >= first_default else _EMPTY)
        for i in range(start, count)
    ]
    annotations = func.__annotations__
    if _any_string(annotations.values()):
        # Names of plain classes (``from __future__ import annotations``) are resolved
        # here; anything else is left to _resolve_hints.
        resolved = _plain_hints(func)
        if resolved is None:
            return frozenset(names), kept, None, None
        annotations = resolved
    hints = {name: annotations[name] for name in names[start:] if name in annotations}
    return frozenset(names), kept, hints, None


def _read_signature(func: Callable[..., Any], owner: str, problems: list[str]) -> _Signature:
    """Read ``func``'s signature (as ``inspect.signature`` does).

    Raises:
        ToolDefinitionError: ``func`` is not callable or has no readable signature.
    """
    if type(func) is types.FunctionType:
        plain = _plain_signature(func)
        if plain is not None:
            return plain
    every, annotations = _parameters(func, owner)
    kept: list[ParamTuple] = []
    hints: dict[str, Any] = {}
    var_keyword = None
    for position, (name, kind, default) in enumerate(every):
        if not position and name in _SELF_NAMES and kind is not _KEYWORD_ONLY:
            continue
        if kind is _VAR_KEYWORD:
            var_keyword = name
        elif kind is _VAR_POSITIONAL:
            # A model sends arguments by name: nothing could ever reach *args.
            problems.append(
                f"parameter '*{name}' cannot be given by a model, which sends arguments by name; "
                f"take a list instead ({name}: list[...]) or leave it out"
            )
        else:
            if kind is _POSITIONAL_ONLY:
                problems.append(f"parameter {name!r} is positional-only; tools receive keyword arguments")
            kept.append((name, kind, default))
            if name in annotations:
                hints[name] = annotations[name]
    if var_keyword is not None and var_keyword in annotations:
        hints[var_keyword] = annotations[var_keyword]  # read (and resolved) with the others
    # A string annotation (``from __future__ import annotations``) anywhere, the return
    # type's too: get_type_hints reads them all (see _resolve_hints).
    names = {entry[0] for entry in every}
    return names, kept, None if _any_string(annotations.values()) else hints, var_keyword


_NOTHING_BOUND: frozenset[str] = frozenset()


def _doc_of(func: Callable[..., Any]) -> tuple[Optional[str], frozenset[str]]:
    """The docstring that describes ``func``, and the parameters a partial has bound.

    A ``functools.partial`` carries the class's docstring ("partial(func, *args,
    **keywords) - new function ..."), not its function's; a callable object's own
    docstring is its class's, while its ``__call__`` says what a call does. The
    function's docstring may still describe what the partial has bound: those
    entries are not strays.
    """
    if isinstance(func, functools.partial):
        inner: Any = func
        while isinstance(inner, functools.partial):
            inner = inner.func
        bound = frozenset(getattr(inspect.signature(inner, follow_wrapped=False), "parameters", ()))
        return _doc_of(inner)[0], bound
    if not isinstance(func, (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type)):
        call = inspect.getattr_static(type(func), "__call__", None)
        if getattr(call, "__doc__", None):
            return call.__doc__, _NOTHING_BOUND
    return func.__doc__, _NOTHING_BOUND


def _stray_note(documented: dict[str, Any], every: AbstractSet[str], kept: list[ParamTuple]) -> Optional[str]:
    """The note for docstring entries that name no parameter, or ``None``."""
    if documented.keys() <= every:
        return None
    stray = [n for n in documented if n.lstrip("*") not in every]
    if not stray:
        return None
    return (
        f"the docstring describes {stray}, which the signature does not have "
        f"(left out); parameters are {[p[0] for p in kept]}"
    )


def _context_params(hints: dict[str, Any]) -> tuple[str, ...]:
    """The parameters annotated ``ToolContext``, from the annotations of the kept ones."""
    context = []
    for name, hint in hints.items():
        # A plain class (the common case) is settled without a call.
        if (hint is ToolContext) if type(hint) is type else _is_context(hint):
            context.append(name)
    return tuple(context)


def _frozen(cls: type[_T], values: dict[str, Any]) -> _T:
    """A frozen dataclass instance with ``values`` (every field, perhaps a cached view) as its attributes.

    Speed (the define benchmark): a frozen dataclass's ``__init__`` sets each field
    through ``object.__setattr__``, about 1 us for a :class:`Param` and 1.4 us for an
    :class:`ApiSpec`; filling ``__dict__`` at once costs a third of that. Only
    ``build_api_spec`` builds them this way, always giving every field
    (``tests/test_api_spec.py`` checks it).
    """
    instance: _T = object.__new__(cls)
    instance.__dict__.update(values)
    return instance


#: The classes of ``Annotated[X, ...]`` (``typing``'s and, on old Pythons, ``typing_extensions``'s):
#: a set lookup of the annotation's class costs other annotations nothing.
_ANNOTATED = frozenset({type(Annotated[int, ""]), type(typing.Annotated[int, ""])})


def _param(name: str, default: Any, documented: tuple[Optional[str], str], hint: Any) -> Param:
    """One described parameter, from its default, docstring entry and annotation."""
    doc_type, text = documented
    shape = None
    if hint is _EMPTY:  # described and checked by the docstring's type, if any
        checked_as = declared_class_of_word(doc_type)
        type_name, enum = describe_type_word(doc_type) or "STRING", None
        declared = hint if checked_as is None else checked_as
    else:
        type_info = PLAIN_TYPES.get(hint) if type(hint) is type else None
        if type_info is None:
            type_info = describe_annotation(hint)
        type_name, enum, declared = type_info.name, type_info.enum, hint
        if type_info.label is not None:
            text = type_info.label
        elif not text and type(hint) in _ANNOTATED:
            text = field_description(hint) or text
        if type_name in SHAPED_WORDS and not is_plain(hint):
            shape = object_shape(hint)
    return _frozen(
        Param,
        {
            "name": name,
            "type": type_name,
            "description": text,
            "required": default is _EMPTY,
            "default": default,
            "annotation": hint,
            "declared": declared,
            "enum": None if enum is None else tuple(enum),
            "check": None,
            "exact": None,
            "shape": shape,
        },
    )


def build_api_spec(func: Callable[..., Any], opts: DescribeOptions) -> ApiSpec:  # noqa: C901 - the steps of a spec, in order
    """Read ``func`` into an :class:`ApiSpec`.

    Raises:
        ToolDefinitionError: listing every problem found, naming the function.
    """
    owner = getattr(func, "__qualname__", None) or repr(func)
    problems: list[str] = []
    every, kept, hints, var_keyword = _read_signature(func, owner, problems)
    doc, bound = (func.__doc__, _NOTHING_BOUND) if type(func) is types.FunctionType else _doc_of(func)
    info = docstrings.parse_docstring(doc)
    notes = info.warnings  # shared with every docstring of the text: copied before adding to it
    choices = None
    if info.params and doc is not None and "hoices" in doc:  # Hugging Face's "(choices: [...])"; any case
        from ._choices import split_choices  # import time: only docstrings that use it

        info = dataclasses.replace(info, params=dict(info.params))  # split_choices edits them
        choices, choice_notes = split_choices(info)
        notes = [*notes, *choice_notes]
    documented = info.params
    # A docstring that describes only parameters of the signature (the common case) has no stray note.
    stray = None if documented.keys() <= every else _stray_note(documented, every | bound, kept)
    if stray is not None:
        notes = [*notes, stray]
    if hints is None:
        resolved = _resolve_hints(func, problems)
        hints = {name: resolved[name] for name, _, _ in kept if name in resolved}
        if var_keyword in resolved:
            hints[var_keyword] = resolved[var_keyword]
    extra = _EMPTY if var_keyword is None else hints.pop(var_keyword, _EMPTY)
    problems.extend(field_default_problems(kept))
    unsure = []  # annotations that may hold a class no JSON value is (see _warn_opaque)
    for name, hint in hints.items():
        if type(hint) is type:  # the common case, settled without a call
            if hint not in _JSON_HINTS:
                unsure.append(name)
            continue
        if type(hint) in _ANNOTATED:
            problems.extend(annotated_problems(name, hint))
        if not _json_generic(hint):
            unsure.append(name)
    context_params = _context_params(hints)
    described = kept if opts is DEFAULT_OPTIONS else _selected(kept, opts, problems)
    if context_params:
        described = [p for p in described if p[0] not in context_params]
    return_data = _return_data(info, opts, problems) if opts is not DEFAULT_OPTIONS else []
    api_name = opts.name or getattr(func, "__name__", None)
    if opts.name is not None and (not isinstance(opts.name, str) or not opts.name):
        problems.append(f"the name must be a non-empty string, got {opts.name!r}")
        api_name = ""
    elif not isinstance(api_name, str) or not api_name:
        problems.append(
            "has no __name__ to call the API by; give one: tool_api(name=...) or "
            f"FunctionTool(func, name=...), got {api_name!r}"
        )
        api_name = ""
    if problems:
        raise ToolDefinitionError(owner, problems)
    for note in notes:
        warnings.warn(f"{owner}: {note}", DefinitionWarning, stacklevel=definition_stacklevel())
    params = [
        _param(name, default, documented.get(name, _UNDOCUMENTED), hints.get(name, _EMPTY))
        for name, _, default in described
    ]
    if choices:
        from ._choices import choice_annotations

        literal = choice_annotations(owner, params, choices)
        params = [
            p if p.name not in literal else _param(p.name, p.default, (None, p.description), literal[p.name])
            for p in params
        ]
    if unsure:
        _warn_opaque(owner, [p for p in params if p.name in unsure])
    shapes = [p.shape for p in params if p.shape is not None]
    if len(shapes) > 1 and sum("$defs" in shape for shape in shapes) > 1:
        _check_definitions(owner, params)
    summary, param_tuple, return_tuple = info.description, tuple(params), tuple(return_data)
    return _frozen(
        ApiSpec,
        {
            "name": api_name,
            "summary": summary,
            "params": param_tuple,
            "return_data": return_tuple,
            "func": func,
            "options": opts,
            "context_params": context_params,
            "accepts_any_kwargs": var_keyword is not None,
            "extra": extra,
            "is_async": _is_coroutine_function(func),
            "schema": None,
            "whole": None,
            "doc_warnings": tuple(notes),
            # The view every described function shows at once (its api_description),
            # filled here rather than through the cached property's lock.
            "description": lagent_description(api_name, summary, param_tuple, return_tuple),
        },
    )


#: Classes and generic origins every JSON value of their type fits: no walk needed
#: (the define benchmark: hashing a ``typing`` annotation to find its cached walk costs a microsecond).
_JSON_HINTS = frozenset({str, int, float, bool, type(None), dict, list})
_JSON_ORIGINS = frozenset({list, dict, typing.Union})


def _json_generic(hint: Any) -> bool:
    """Whether ``hint`` is a ``Literal``, or ``list``, ``dict``, ``Optional`` or ``Union`` of JSON classes."""
    origin = getattr(hint, "__origin__", None)
    if origin in LITERAL_ORIGINS:
        return True
    args = getattr(hint, "__args__", ())  # bare typing.List has none
    return origin in _JSON_ORIGINS and all(type(arg) is type and arg in _JSON_HINTS for arg in args)


def _warn_opaque(owner: str, params: list[Param]) -> None:
    """Warn of parameters no JSON value fits (``lagent-like lint`` reports them as ``no-json-value``).

    The API stays definable: Python callers may pass such objects; a model never can.
    """
    for param in params:
        note = opaque_note(param.name, param.annotation)
        if note is not None:
            warnings.warn(f"{owner}: {note}", DefinitionWarning, stacklevel=definition_stacklevel())


def _check_definitions(owner: str, params: list[Param]) -> None:
    """Refuse parameters whose models define different schemas under one name (one ``$defs`` holds all).

    Raises:
        ToolDefinitionError: naming the shared name.
    """
    try:
        hoist_definitions({p.name: p.shape for p in params})
    except ValueError as exc:
        raise ToolDefinitionError(owner, [str(exc)]) from None


def definition_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the user's definition.

    That is the decorator line or the ``class`` statement, past this package's own frames.
    """
    frame = inspect.currentframe()
    level = 0  # this frame; 1 is the caller of warnings.warn
    package = __name__.rsplit(".", 2)[0] + "."
    while frame is not None and (frame.f_globals.get("__name__") or "").startswith(package):
        frame = frame.f_back
        level += 1
    return level


def _is_coroutine_function(func: Callable[..., Any]) -> bool:
    """``inspect.iscoroutinefunction``, read off the code object for plain functions."""
    if type(func) is types.FunctionType and _COROUTINE_MARKER not in func.__dict__:
        return bool(func.__code__.co_flags & inspect.CO_COROUTINE)
    return inspect.iscoroutinefunction(func)
