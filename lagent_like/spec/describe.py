"""Turn a function into an API description: the engine behind ``tool_api``.

Everything is read once, when the function is decorated or its class defined: the
signature, the resolved type hints, the docstring. The result is an :class:`ApiSpec`
holding the Lagent description dict plus what the parsers need at call time. All
problems in one definition are collected and raised together.
"""

from __future__ import annotations

import inspect
import itertools
import types
import warnings
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, Callable, Optional

from .._private.typing_compat import get_args, get_type_hints
from ..exceptions import DefinitionWarning, ToolDefinitionError
from ..runtime.context import ToolContext
from ..types.families import COERCE, OFF
from ..types.json_schema import parameter_schema
from ..types.validation import compile_validator, exact_type, validator_of
from . import docstrings
from .type_names import (
    PLAIN_TYPES,
    alias_origin,
    declared_class_of_word,
    describe_annotation,
    describe_type_word,
    is_plain,
    strip_annotated,
)

_EMPTY: Any = inspect.Parameter.empty
#: One parameter as ``(name, kind, default)``, from ``inspect.signature``.
ParamTuple = tuple[str, Any, Any]

_POSITIONAL_ONLY = inspect.Parameter.POSITIONAL_ONLY
_KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY
_VAR_POSITIONAL = inspect.Parameter.VAR_POSITIONAL
_VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD
_SELF_NAMES = ("self",)
#: What ``inspect.markcoroutinefunction`` (Python 3.12) sets on a function.
_COROUTINE_MARKER = "_is_coroutine_marker"
#: What the docstring says about a parameter it does not describe.
_UNDOCUMENTED: tuple[Optional[str], str] = (None, "")


@dataclass(frozen=True)
class DescribeOptions:
    """The options of ``tool_api``; see its docstring.

    Frozen, so that every bare ``@tool_api`` can share :data:`DEFAULT_OPTIONS`.
    """

    name: Optional[str] = None
    explode_return: bool = False
    returns_named_value: bool = False
    include_arguments: Optional[list[str]] = None
    exclude_arguments: Optional[list[str]] = None
    validation: Optional[str] = None
    #: MCP display name and hints (``lagent_like.mcp._metadata``); not in the description.
    title: Optional[str] = None
    annotations: Optional[dict[str, bool]] = None


#: The options of a bare ``@tool_api``.
DEFAULT_OPTIONS = DescribeOptions()


#: ``type``, under a name that ``Param.type`` does not shadow.
_Class = type

#: The default of a parameter that has none (``Param.default``).
NO_DEFAULT: Any = _EMPTY


@dataclass(frozen=True, eq=False)
class Param:
    """One described parameter of an API.

    Attributes:
        name: the keyword the tool receives.
        type: the Lagent type word (``STRING``, ``NUMBER``, ``FLOAT``, ``BOOLEAN``,
            ``Array``, ``OBJECT``).
        description: the text shown to the model.
        required: the call must give it.
        default: the default value, or :data:`NO_DEFAULT`.
        annotation: the resolved annotation, or :data:`NO_DEFAULT` when unannotated.
        declared: what the argument is checked against (its annotation, or the class
            its docstring type names), or :data:`NO_DEFAULT` when nothing says.
        enum: the allowed values, when the type lists them.
        check: a validator given with the parameter (tools described by JSON Schema);
            ``None`` to compile one from ``declared``.
        exact: with ``check``: the one class whose values need no check, or ``None``.
    """

    name: str
    type: str = "STRING"
    description: str = ""
    required: bool = True
    default: Any = NO_DEFAULT
    annotation: Any = NO_DEFAULT
    declared: Any = NO_DEFAULT
    enum: Optional[tuple[Any, ...]] = None
    check: Optional[Callable[[Any], Any]] = None
    exact: Optional[_Class] = None

    def entry(self) -> dict[str, Any]:
        """This parameter in Lagent's description format."""
        entry: dict[str, Any] = {"name": self.name, "type": self.type, "description": self.description}
        if self.enum is not None:
            entry["enum"] = list(self.enum)
        return entry


#: ``(validators, exact classes, check of the arguments together)`` of one API in one mode.
_ModeChecks = tuple[dict[str, Any], dict[str, Any], Optional[Callable[[Any], Any]]]


@dataclass(frozen=True, eq=False)
class ApiSpec:
    """Everything known about one API: what describing produces and everything else reads.

    The Lagent description dict (:attr:`description`), the JSON Schema of the
    arguments (:meth:`json_schema`), the argument checks (:attr:`checks`) and the
    parsers' readers are views of it. Frozen: a spec is built once, whole; the views
    are computed on first use and shared by every instance of the tool.

    Attributes:
        name: the API name a model uses.
        summary: what the API does (the description's ``description``).
        params: the described parameters, in signature order.
        return_data: Lagent's ``return_data`` items (empty when not described).
        func: what a call runs: the function as defined (unbound for methods, which
            the tool binds), or any callable taking the arguments as keywords.
        options: the ``tool_api`` options it was described with (reused for overrides).
        context_params: parameters annotated ``ToolContext``, filled by the executor
            and never described.
        accepts_any_kwargs: arguments that are not parameters are passed on.
        is_async: ``func`` is a coroutine function.
        schema: the JSON Schema of the arguments as given (tools described by a
            schema), or ``None`` to derive it from the parameters.
        whole: with ``schema``: the check of the arguments together (what the schema says
            beyond each parameter: pattern properties, dependencies, conditions), or ``None``.
        doc_warnings: what was doubtful in the definition and how it was read (also
            issued as ``DefinitionWarning`` and reported by ``lagent-like lint``).
    """

    name: str
    summary: str = ""
    params: tuple[Param, ...] = ()
    return_data: tuple[dict[str, Any], ...] = ()
    func: Optional[Callable[..., Any]] = None
    options: DescribeOptions = DEFAULT_OPTIONS
    context_params: tuple[str, ...] = ()
    accepts_any_kwargs: bool = False
    is_async: bool = False
    schema: Optional[dict[str, Any]] = None
    whole: Optional[Callable[[Any], Any]] = None
    doc_warnings: tuple[str, ...] = ()

    @cached_property
    def description(self) -> dict[str, Any]:
        """The Lagent description dict (shared: copy it before changing it)."""
        described: dict[str, Any] = {
            "name": self.name,
            "description": self.summary,
            "parameters": [p.entry() for p in self.params],
            "required": [p.name for p in self.params if p.required],
        }
        if self.return_data:
            described["return_data"] = [dict(item) for item in self.return_data]
        return described

    @property
    def hints(self) -> dict[str, Any]:
        """Resolved annotation of each annotated parameter."""
        return {p.name: p.annotation for p in self.params if p.annotation is not NO_DEFAULT}

    @property
    def declared(self) -> dict[str, Any]:
        """What each parameter that has a declared type is checked against."""
        return {p.name: p.declared for p in self.params if p.declared is not NO_DEFAULT}

    @property
    def defaults(self) -> dict[str, Any]:
        """Default value of each parameter that has one."""
        return {p.name: p.default for p in self.params if p.default is not NO_DEFAULT}

    @cached_property
    def checks(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(validators, exact classes)`` of the checked parameters (see ``BaseAction.argument_checks``)."""
        validators: dict[str, Any] = {}
        exact: dict[str, Any] = {}
        for p in self.params:
            if p.check is not None:
                validators[p.name] = p.check
                if p.exact is not None:
                    exact[p.name] = p.exact
            elif p.declared is not NO_DEFAULT:
                validators[p.name] = compile_validator(p.declared)
                kind = exact_type(p.declared)
                if kind is not None:
                    exact[p.name] = kind
        return validators, exact

    def checks_in(self, mode: str) -> _ModeChecks:
        """``(validators, exact classes, check of the arguments together)`` in validation ``mode``."""
        if mode == OFF:
            return {}, {}, None
        if mode == COERCE:
            return (*self.checks, self.whole)
        known = self._other_modes.get(mode)
        if known is None:
            known = self._other_modes[mode] = self._compile_checks(mode)
        return known

    @cached_property
    def _other_modes(
        self,
    ) -> dict[str, tuple[dict[str, Any], dict[str, Any], Optional[Callable[[Any], Any]]]]:
        return {}

    def _compile_checks(
        self, mode: str
    ) -> tuple[dict[str, Any], dict[str, Any], Optional[Callable[[Any], Any]]]:
        validators, exact = dict(self.checks[0]), dict(self.checks[1])
        whole = None
        if self.schema is not None:  # described by a schema: compiled again from it
            from ..types.schema_validation import SchemaCompiler  # import time: schema tools only

            compiler = SchemaCompiler(self.schema, mode)
            props = self.schema.get("properties", {})
            for p in self.params:
                if p.name in props:
                    validators[p.name] = validator_of(compiler.compile(props[p.name], p.name))
            if self.whole is not None:
                whole = compiler.compile(self.schema, "parameters", top=True)
        for p in self.params:
            if p.check is None and p.declared is not NO_DEFAULT:
                validators[p.name] = compile_validator(p.declared, mode)
        return validators, exact, whole

    @cached_property
    def _schema(self) -> dict[str, Any]:
        if self.schema is not None:
            return self.schema
        properties = {
            p.name: parameter_schema(
                None if p.annotation is NO_DEFAULT else p.annotation,
                p.type,
                p.description,
                None if p.default is NO_DEFAULT else p.default,
                p.default is not NO_DEFAULT,
            )
            for p in self.params
        }
        return {
            "type": "object",
            "properties": properties,
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": self.accepts_any_kwargs,
        }

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, for function calling; a fresh copy."""
        schema: dict[str, Any] = copy_description(self._schema)
        return schema

    def __getstate__(self) -> dict[str, Any]:
        # The views are rebuilt where the spec is unpickled (validators are closures).
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


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
    if not any(map(isinstance, annotations.values(), itertools.repeat(str))):
        objects = dict(annotations)
        objects.pop("return", None)
        return objects
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
    if hint is None or (type(hint) is type and hint in PLAIN_TYPES) or is_plain(hint):
        return False
    if alias_origin(hint) is None:
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
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(owner, [f"has no readable signature: {exc}"]) from None
    all_params: list[ParamTuple] = [(p.name, p.kind, p.default) for p in signature.parameters.values()]
    params = all_params
    if params and params[0][0] in _SELF_NAMES and params[0][1] is not _KEYWORD_ONLY:
        params = params[1:]
    problems: list[str] = []
    accepts_any_kwargs = False
    kept = []
    for param in params:
        kind = param[1]
        if kind is _VAR_KEYWORD:
            accepts_any_kwargs = True
        elif kind is not _VAR_POSITIONAL:
            if kind is _POSITIONAL_ONLY:
                problems.append(f"parameter {param[0]!r} is positional-only; tools receive keyword arguments")
            kept.append(param)

    info = docstrings.parse_docstring(func.__doc__)
    notes = info.warnings
    if info.params:
        known = set(next(zip(*all_params), ()))
        stray = [n for n in info.params if n.lstrip("*") not in known] if info.params.keys() - known else []
        if stray:
            notes.append(
                f"the docstring describes {stray}, which the signature does not have "
                f"(left out); parameters are {[p[0] for p in kept]}"
            )
    hints = _resolve_hints(func, problems)
    context: list[str] = []
    for name, _, _ in kept:
        hint = hints.get(name)
        # Plain classes (the common case) settled without a call.
        if hint is not None and not (type(hint) is type and hint in PLAIN_TYPES) and _is_context(hint):
            context.append(name)
    context_params = tuple(context)
    described = kept if opts is DEFAULT_OPTIONS else _selected(kept, opts, problems)
    if context_params:
        described = [p for p in described if p[0] not in context_params]
    return_data = _return_data(info, opts, problems) if opts is not DEFAULT_OPTIONS else []
    if problems:
        raise ToolDefinitionError(owner, problems)
    for note in notes:
        warnings.warn(f"{owner}: {note}", DefinitionWarning, stacklevel=definition_stacklevel())

    described_params: list[Param] = []
    for name, _, default in described:
        doc_type, text = info.params.get(name, _UNDOCUMENTED)
        hint = hints.get(name, _EMPTY)
        declared = hint
        if hint is _EMPTY:
            word = describe_type_word(doc_type)
            checked_as = declared_class_of_word(doc_type)
            if checked_as is not None:
                declared = checked_as
            type_name, enum, label = word or "STRING", None, None
        else:
            type_info = PLAIN_TYPES.get(hint) if type(hint) is type else None
            if type_info is None:
                type_info = describe_annotation(hint)
            type_name, enum, label = type_info.name, type_info.enum, type_info.label
        described_params.append(
            Param(
                name,
                type_name,
                text if label is None else label,
                default is _EMPTY,
                default,
                hint,
                declared,
                None if enum is None else tuple(enum),
            )
        )
    return ApiSpec(
        opts.name or func.__name__,
        info.description,
        tuple(described_params),
        tuple(return_data),
        func,
        opts,
        context_params,
        accepts_any_kwargs,
        _is_coroutine_function(func),
        doc_warnings=tuple(notes),
    )


def definition_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the user's definition (the decorator
    line or the ``class`` statement), past this package's own frames."""
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
