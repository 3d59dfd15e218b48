"""The spec of an API: what describing a tool produces and everything else reads.

:class:`ApiSpec` (with one :class:`Param` per described parameter) is built once,
whole, by ``spec.describe`` (from a function) or by whoever describes a tool another
way (a JSON Schema, an MCP server, a description dict). The Lagent description dict,
the JSON Schema of the arguments and the argument checks are views of it, computed on
first use.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, Callable, Optional

from .._private.frozen import frozen, thawed
from .._private.records import (
    field_eq,
    field_hash,
    field_repr,
    frozen_delattr,
    frozen_setattr,
    mark_frozen,
)
from ..types._families import COERCE, OFF, check_mode
from ..types._json_schema import hoist_definitions, parameter_schema
from ..types._validation import compile_check, compile_validator, exact_type, validator_of

__all__ = ["DEFAULT_OPTIONS", "NO_DEFAULT", "ApiSpec", "DescribeOptions", "Param", "copy_description"]


@mark_frozen
@dataclass(init=False, repr=False, eq=False)
class DescribeOptions:
    """The options of ``tool_api``, the one list of them; see ``tool_api``'s docstring.

    ``tool_api(**options)`` builds this from its keywords: an unknown keyword is
    refused by the constructor, and what a user may write loosely is made exact here
    (one name given as a string is a list of that name; a mapping of annotations is
    copied into a dict; a validation mode is checked). Frozen, so that every bare
    ``@tool_api`` can share ``DEFAULT_OPTIONS``.
    """

    name: Optional[str] = None
    explode_return: bool = False
    returns_named_value: bool = False
    include_arguments: Optional[list[str]] = None
    exclude_arguments: Optional[list[str]] = None
    validation: Optional[str] = None
    #: MCP display name and hints (``lagent_like.spec._metadata``); not in the description.
    title: Optional[str] = None
    annotations: Optional[dict[str, bool]] = None

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        name: Optional[str] = None,
        explode_return: bool = False,
        returns_named_value: bool = False,
        include_arguments: Optional[list[str]] = None,
        exclude_arguments: Optional[list[str]] = None,
        validation: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Optional[dict[str, bool]] = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "explode_return", explode_return)
        object.__setattr__(self, "returns_named_value", returns_named_value)
        object.__setattr__(self, "include_arguments", include_arguments)
        object.__setattr__(self, "exclude_arguments", exclude_arguments)
        object.__setattr__(self, "validation", validation)
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "annotations", annotations)
        self.__post_init__()

    __repr__ = field_repr
    __eq__ = field_eq
    __hash__ = field_hash
    # Frozen: as @dataclass(frozen=True) would make it, without compiling at import.
    __setattr__ = frozen_setattr
    __delattr__ = frozen_delattr

    def __post_init__(self) -> None:
        for key in ("include_arguments", "exclude_arguments"):
            value = getattr(self, key)
            if value is not None:
                # A single name given as a string means that name, not its characters.
                object.__setattr__(self, key, [value] if isinstance(value, str) else list(value))
        if isinstance(self.annotations, Mapping):
            object.__setattr__(self, "annotations", dict(self.annotations))
        if self.validation is not None:
            check_mode(self.validation, "tool_api")


#: The options of a bare ``@tool_api``.
DEFAULT_OPTIONS = DescribeOptions()


#: ``type``, under a name that ``Param.type`` does not shadow.
_Class = type

#: The default of a parameter that has none (``Param.default``).
NO_DEFAULT: Any = inspect.Parameter.empty


@mark_frozen
@dataclass(init=False, repr=False, eq=False)
class Param:
    """One described parameter of an API.

    Attributes:
        name: the keyword the tool receives.
        type: the Lagent type word (``STRING``, ``NUMBER``, ``FLOAT``, ``BOOLEAN``,
            ``Array``, ``OBJECT``).
        description: the text shown to the model.
        required: the call must give it.
        default: the default value, or ``NO_DEFAULT`` (``inspect.Parameter.empty``).
        annotation: the resolved annotation, or ``NO_DEFAULT`` when unannotated.
        declared: what the argument is checked against (its annotation, or the class
            its docstring type names), or ``NO_DEFAULT`` when nothing says.
        enum: the allowed values, when the type lists them.
        check: a validator given with the parameter (tools described by JSON Schema);
            ``None`` to compile one from ``declared``.
        exact: with ``check``: the one class whose values need no check, or ``None``.
        shape: the JSON Schema of an object parameter whose keys are known (a pydantic
            model, TypedDict, dataclass, or a list of them), shown in the Lagent
            description under ``schema`` after Lagent's own keys; else ``None``.
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
    shape: Optional[dict[str, Any]] = None

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        name: str,
        type: str = "STRING",
        description: str = "",
        required: bool = True,
        default: Any = NO_DEFAULT,
        annotation: Any = NO_DEFAULT,
        declared: Any = NO_DEFAULT,
        enum: Optional[tuple[Any, ...]] = None,
        check: Optional[Callable[[Any], Any]] = None,
        exact: Optional[_Class] = None,
        shape: Optional[dict[str, Any]] = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "required", required)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "annotation", annotation)
        object.__setattr__(self, "declared", declared)
        object.__setattr__(self, "enum", enum)
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "exact", exact)
        object.__setattr__(self, "shape", shape)

    __repr__ = field_repr
    # Frozen: as @dataclass(frozen=True) would make it, without compiling at import.
    __setattr__ = frozen_setattr
    __delattr__ = frozen_delattr

    def entry(self) -> dict[str, Any]:
        """This parameter in Lagent's description format (then its ``schema``, if it has keys)."""
        entry: dict[str, Any] = {"name": self.name, "type": self.type, "description": self.description}
        if self.enum is not None:
            entry["enum"] = list(self.enum)
        if self.shape is not None:
            entry["schema"] = self.shape
        return entry


#: ``(validators, exact classes, check of the arguments together)`` of one API in one mode.
_ModeChecks = tuple[dict[str, Any], dict[str, Any], Optional[Callable[[Any], Any]]]


@mark_frozen
@dataclass(init=False, repr=False, eq=False)
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
        extra: the annotation of ``**kwargs: T`` (``T``), against which each argument that
            is not a parameter is checked and described (``additionalProperties``), or
            ``NO_DEFAULT`` when they are taken as they come.
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
    extra: Any = NO_DEFAULT
    is_async: bool = False
    schema: Optional[dict[str, Any]] = None
    whole: Optional[Callable[[Any], Any]] = None
    doc_warnings: tuple[str, ...] = ()

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        name: str,
        summary: str = "",
        params: tuple[Param, ...] = (),
        return_data: tuple[dict[str, Any], ...] = (),
        func: Optional[Callable[..., Any]] = None,
        options: DescribeOptions = DEFAULT_OPTIONS,
        context_params: tuple[str, ...] = (),
        accepts_any_kwargs: bool = False,
        extra: Any = NO_DEFAULT,
        is_async: bool = False,
        schema: Optional[dict[str, Any]] = None,
        whole: Optional[Callable[[Any], Any]] = None,
        doc_warnings: tuple[str, ...] = (),
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "summary", summary)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "return_data", return_data)
        object.__setattr__(self, "func", func)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "context_params", context_params)
        object.__setattr__(self, "accepts_any_kwargs", accepts_any_kwargs)
        object.__setattr__(self, "extra", extra)
        object.__setattr__(self, "is_async", is_async)
        object.__setattr__(self, "schema", schema)
        object.__setattr__(self, "whole", whole)
        object.__setattr__(self, "doc_warnings", doc_warnings)

    __repr__ = field_repr
    # Frozen: as @dataclass(frozen=True) would make it, without compiling at import.
    __setattr__ = frozen_setattr
    __delattr__ = frozen_delattr

    @cached_property
    def description(self) -> dict[str, Any]:
        """The Lagent description dict, shared by every instance of the tool (copy it before changing it)."""
        return lagent_description(self.name, self.summary, self.params, self.return_data)

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
            from ..types._schema_compiler import SchemaCompiler  # import time: schema tools only

            compiler = SchemaCompiler(self.schema, mode, json_numbers=True)
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
        return hoist_definitions(
            {
                "type": "object",
                "properties": properties,
                "required": [p.name for p in self.params if p.required],
                "additionalProperties": self._additional_properties(),
            }
        )

    def _additional_properties(self) -> Any:
        """``additionalProperties`` of the arguments: ``False``, ``True`` or the schema of ``**kwargs: T``."""
        if self.extra is NO_DEFAULT or self.extra is Any:
            return self.accepts_any_kwargs
        return parameter_schema(self.extra, "STRING", "", None, False)

    def extra_check(self, mode: str) -> Optional[Callable[[Any], Any]]:
        """The check, in validation ``mode``, of each argument ``**kwargs: T`` takes, or ``None``."""
        if self.extra is NO_DEFAULT or self.extra is Any or mode == OFF or not self.accepts_any_kwargs:
            return None
        return compile_check(self.extra, mode)

    @cached_property
    def shared_schema(self) -> dict[str, Any]:
        """The read-only JSON Schema of the arguments that every export shares."""
        schema: dict[str, Any] = frozen(self._schema)
        return schema

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, for function calling; a fresh copy."""
        schema: dict[str, Any] = copy_description(self._schema)
        return schema

    def __getstate__(self) -> dict[str, Any]:
        # The views are rebuilt where the spec is unpickled (validators are closures).
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


def lagent_description(
    name: str, summary: str, params: tuple[Param, ...], return_data: tuple[dict[str, Any], ...]
) -> dict[str, Any]:
    """The Lagent description dict of an API (:attr:`ApiSpec.description`)."""
    entries, required = [], []
    for p in params:  # one pass: this runs for every API a class defines
        entries.append(p.entry())
        if p.required:
            required.append(p.name)
    described: dict[str, Any] = {
        "name": name,
        "description": summary,
        "parameters": entries,
        "required": required,
    }
    if return_data:
        described["return_data"] = [dict(item) for item in return_data]
    return described


def copy_description(value: Any) -> Any:
    """Deep-copy a description: dicts and lists are rebuilt, everything else shared.

    Descriptions hold dicts, lists and immutable scalars (enum values are shared as
    they are), so this is a deep copy at a fraction of ``copy.deepcopy``'s cost. Dict
    and list subclasses come back as plain dicts and lists.
    """
    return thawed(value)
