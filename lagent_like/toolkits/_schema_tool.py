"""``SchemaTool``: a tool defined by a JSON-schema function definition and a handler.

Some tool specs do not come from Python signatures: they arrive as JSON (an OpenAI or
Anthropic tool list, an MCP server, LiveKit's ``raw_schema``). ``tool_from_schema``
turns such a definition plus a handler into a simple tool: described to the model in
Lagent's format, exported again as JSON Schema for function calling, and with every
argument checked (and losslessly coerced) against the schema before the handler runs,
exactly like a tool written with type hints.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Callable, Optional

from .._private.text import preview
from ..exceptions import ToolDefinitionError
from ..parsers import BaseParser, JsonParser
from ..spec._api_spec import NO_DEFAULT
from ..spec._describe import ApiSpec, Param, copy_description
from ..spec._type_names import SHAPED_WORDS
from ..types import _families as fam
from ..types._families import accept
from ..types._json_schema import property_shape
from ..types._schema_compiler import TYPE_WORDS, SchemaCompiler, canonical_types, resolve_ref
from ..types._validation import validator_of
from ._base_action import BaseAction
from ._schema_handler import plan_handler, runner, schema_defaults
from ._tool_state import Enable

__all__ = ["SchemaTool", "schema_spec", "tool_from_schema"]

#: Lagent type name of each canonical JSON Schema type (a view of the family table).
LAGENT_TYPES: dict[str, str] = {f.json: f.lagent for f in fam.FAMILIES}

#: The one Python class of a parameter whose schema is a bare primitive ``type``.
_EXACT: dict[str, type] = {f.json: f.exact for f in fam.FAMILIES if f.exact is not None}

#: Keys that describe a schema without constraining it.
_ANNOTATIONS = frozenset({"description", "title", "examples", "format", "default", "$comment"})

#: Where the parameters schema sits in each accepted shape: OpenAI/LiveKit, Anthropic, MCP.
_PARAMETER_KEYS = ("parameters", "input_schema", "inputSchema")

#: Keywords whose value is one subschema, a list of them, or a map of names to them.
_ONE = ("additionalProperties", "items")
_MANY = ("prefixItems", "anyOf", "oneOf", "allOf")
_NAMED = ("properties", "$defs", "definitions")


def _function_of(schema: Any, problems: list[str]) -> Mapping[str, Any]:
    """The function definition inside any accepted shape (``{}`` with a problem if none)."""
    if not isinstance(schema, Mapping):
        problems.append(f"the schema must be a dict, got {type(schema).__name__} {preview(schema)}")
        return {}
    function = schema.get("function")
    if isinstance(function, Mapping):
        return function
    if schema.get("type", "function") != "function":
        problems.append(f"'type' is {schema['type']!r}; only function definitions can become tools")
    return schema


def _lagent_type(schema: Any, root: Mapping[str, Any], depth: int = 0) -> str:
    """The Lagent type name a parameter's schema stands for (``STRING`` when unclear)."""
    if isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and depth < 16:
        return _lagent_type(resolve_ref(root, schema["$ref"]), root, depth + 1)
    if not isinstance(schema, Mapping):
        return fam.STRING.lagent
    names = {LAGENT_TYPES[k] for k in canonical_types(schema.get("type"))[0] if k != "null"}
    if not names and "type" not in schema:
        values: list[Any] = schema["enum"] if isinstance(schema.get("enum"), list) else []
        if "const" in schema:
            values = [schema["const"]]
        if values:
            names = {fam.family_of_class(type(v)).lagent for v in values if v is not None}
        for key in ("anyOf", "oneOf"):
            members: list[Any] = schema[key] if isinstance(schema.get(key), list) else []
            plain = [m for m in members if not (isinstance(m, Mapping) and m.get("type") == "null")]
            names |= {_lagent_type(m, root, depth + 1) for m in plain} if depth < 16 else set()
    return names.pop() if len(names) == 1 else fam.STRING.lagent


def _is_plain(schema: Any) -> Optional[type]:
    """The Python class whose values need no check: a schema that is only a primitive type."""
    if not isinstance(schema, Mapping) or not isinstance(schema.get("type"), str):
        return None
    if set(schema) - _ANNOTATIONS != {"type"}:
        return None
    return _EXACT.get(TYPE_WORDS.get(schema["type"], ""))


def normalize_schema(schema: Any) -> Any:
    """A deep copy of ``schema`` in standard JSON Schema (Draft 2020-12) words.

    Dialect types become JSON types (``int`` -> ``integer``, ``any`` -> no type),
    OpenAPI's ``nullable: true`` becomes a ``null`` type, draft-4 boolean
    ``exclusiveMinimum``/``exclusiveMaximum`` become numbers, and a list ``items``
    becomes ``prefixItems``.
    """
    if not isinstance(schema, Mapping):
        return copy_description(schema)
    out = {k: copy_description(v) for k, v in schema.items()}
    for rewrite in _REWRITES:
        rewrite(out, schema)
    return out


def _standard_type(out: dict[str, Any], schema: Mapping[str, Any]) -> None:
    if "type" not in out:
        return
    kinds = canonical_types(out["type"])[0]
    if "any" in kinds or not kinds:
        del out["type"]
    else:
        out["type"] = kinds[0] if len(kinds) == 1 and isinstance(schema["type"], str) else kinds


def _null_for_nullable(out: dict[str, Any], schema: Mapping[str, Any]) -> None:
    if out.pop("nullable", False) is not True:
        return
    if "type" in out and "null" not in canonical_types(out["type"])[0]:
        out["type"] = [*canonical_types(out["type"])[0], "null"]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"].append(None)


def _numeric_exclusives(out: dict[str, Any], schema: Mapping[str, Any]) -> None:
    for exclusive, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(out.get(exclusive), bool) and out.pop(exclusive) and plain in out:
            out[exclusive] = out.pop(plain)


def _prefix_items(out: dict[str, Any], schema: Mapping[str, Any]) -> None:
    if isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")


def _subschemas(out: dict[str, Any], schema: Mapping[str, Any]) -> None:
    for key in _ONE:
        if isinstance(out.get(key), Mapping):
            out[key] = normalize_schema(out[key])
    for key in _MANY:
        if isinstance(out.get(key), list):
            out[key] = [normalize_schema(s) for s in out[key]]
    for key in _NAMED:
        if isinstance(out.get(key), Mapping):
            out[key] = {name: normalize_schema(s) for name, s in out[key].items()}


#: The rewrites of :func:`normalize_schema`, in order: each changes the copy ``out`` of ``schema``.
_REWRITES: tuple[Callable[[dict[str, Any], Mapping[str, Any]], None], ...] = (
    _standard_type,
    _null_for_nullable,
    _numeric_exclusives,
    _prefix_items,
    _subschemas,
)


def _parameters_of(function: Mapping[str, Any], problems: list[str]) -> Mapping[str, Any]:
    """The parameters schema of a function definition (an empty object schema if none)."""
    params = next((function[k] for k in _PARAMETER_KEYS if k in function), {"type": "object"})
    if not isinstance(params, Mapping):
        problems.append(f"the parameters schema must be a dict, got {preview(params)}")
        return {"type": "object"}
    if canonical_types(params.get("type", "object"))[0] != ["object"]:
        problems.append(f"parameters: 'type' must be 'object', got {params.get('type')!r}")
    return params


def _parameter(key: str, prop: Any, root: Mapping[str, Any]) -> dict[str, Any]:
    """The Lagent description of one property: name, type, description (and enum)."""
    entry: dict[str, Any] = {"name": key, "type": _lagent_type(prop, root)}
    sources = [prop]
    if isinstance(prop, Mapping) and isinstance(prop.get("$ref"), str):
        sources.append(resolve_ref(root, prop["$ref"]))
    schemas = [s for s in sources if isinstance(s, Mapping)]
    entry["description"] = str(next((s["description"] for s in schemas if "description" in s), ""))
    enum = next((s["enum"] for s in schemas if isinstance(s.get("enum"), list)), None)
    if enum is not None:
        entry["enum"] = list(enum)
    return entry


def schema_spec(
    schema: Mapping[str, Any],
    handler: Callable[..., Any],
    *,
    fill_defaults: bool = True,
    validation: Optional[str] = None,
) -> ApiSpec:
    """The :class:`ApiSpec` of a JSON-schema function definition run by ``handler``.

    Its parameters carry the checks compiled from the schema, and its JSON Schema is
    the given one in Draft 2020-12 words. A tool made from it (``BaseAction(apis=spec)``)
    checks, describes and exports exactly as :class:`SchemaTool` does.

    Args:
        schema: an OpenAI, Anthropic, MCP or LiveKit function definition (see
            :class:`SchemaTool`).
        handler: called as ``handler(**arguments)`` with the checked arguments (see
            :class:`SchemaTool` for ``ToolContext`` and ``raw_arguments`` handlers).
        fill_defaults: an omitted argument takes its property's ``default``; ``False``
            where the handler applies the defaults itself (an MCP server).
        validation: the tool's own validation mode; with ``"off"`` no pattern is
            matched, so one the engine cannot run is not refused.

    Raises:
        ToolDefinitionError: listing every reason the schema or handler cannot be honoured.
    """
    problems: list[str] = []
    function = _function_of(schema, problems)
    name = function.get("name")
    if not isinstance(name, str) or not name:
        problems.append(f"'name' must be a non-empty string, got {preview(name)}")
    params = _parameters_of(function, problems)
    compiler = SchemaCompiler(params, json_numbers=True, patterns=validation != fam.OFF)
    props: Mapping[str, Any] = params.get("properties", {})
    if not isinstance(props, Mapping):
        problems.append(f"parameters: 'properties' must map names to schemas, got {preview(props)}")
        props = {}
    checks = {key: compiler.compile(s, f"parameters.properties.{key}") for key, s in props.items()}
    required = compiler.required(params, props, "parameters", top=True)
    if "properties" not in params:
        # BFCL: required names without properties are parameters of any type.
        props = {key: {} for key in required}
        checks = {key: accept for key in required}
    whole = compiler.compile(params, "parameters", top=True)
    compiler.compile_definitions()
    extra = params.get("additionalProperties", False)
    open_ = extra is not False or bool(params.get("patternProperties"))
    plan = plan_handler(handler, props, required, open_, extra is True)
    problems += compiler.problems + list(plan.problems)
    if problems:
        raise ToolDefinitionError(name if isinstance(name, str) and name else "tool_from_schema", problems)
    normal = normalize_schema(params)
    exported: dict[str, Any] = {
        "type": "object",
        "properties": normal.pop("properties", None) or {key: {} for key in props},
        "required": list(required),
        "additionalProperties": normal.pop("additionalProperties", False),
    }
    exported.update((k, v) for k, v in normal.items() if k not in exported)
    defaults = schema_defaults(props, required)
    described = []
    for key, prop in props.items():
        entry = _parameter(key, prop, params)
        enum = entry.get("enum")
        described.append(
            Param(
                key,
                entry["type"],
                entry["description"],
                key in required,
                defaults.get(key, NO_DEFAULT),
                enum=None if enum is None else tuple(enum),
                check=validator_of(checks[key]),
                exact=_is_plain(prop),
                shape=property_shape(prop, params) if entry["type"] in SHAPED_WORDS else None,
            )
        )
    run = runner(handler, plan, defaults if fill_defaults else {})
    return ApiSpec(
        str(name),
        str(function.get("description") or params.get("description") or ""),
        tuple(described),
        func=run,
        context_params=plan.context,
        accepts_any_kwargs=open_,
        is_async=inspect.iscoroutinefunction(run),
        schema=exported,
        whole=None if whole is accept else whole,
    )


class SchemaTool(BaseAction, register=False):
    """A simple tool described by a JSON-schema function definition, run by a handler.

    Args:
        schema: the function definition: OpenAI (``{"name", "description",
            "parameters"}``, bare or as ``{"type": "function", "function": {...}}``),
            Anthropic (``input_schema``), MCP (``inputSchema``) or LiveKit's raw schema
            (``{"type": "function", "name", "description", "parameters"}``).
        handler: called as ``handler(**arguments)`` with the checked arguments; sync or
            async. An omitted argument takes its property's ``default`` (else the
            handler's own). A parameter annotated ``ToolContext`` receives the call's
            context; a handler with a ``raw_arguments`` parameter (LiveKit's
            ``raw_schema`` tools) receives the arguments as one dict instead.
        parser: the parser that reads a model's arguments.
        enable: whether the executor offers and runs this tool.
        validation: how arguments are checked (``"coerce"``, ``"strict"``, ``"off"``).

    Raises:
        ToolDefinitionError: listing every reason the schema or handler cannot be honoured.
    """

    def __init__(
        self,
        schema: Mapping[str, Any],
        handler: Callable[..., Any],
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
        validation: Optional[str] = None,
    ) -> None:
        spec = schema_spec(schema, handler, validation=validation)
        self.__tool_handler__: Callable[..., Any] = handler
        super().__init__(parser=parser, enable=enable, apis=spec, validation=validation)

    @property
    def handler(self) -> Callable[..., Any]:
        """The function this tool calls."""
        return self.__tool_handler__


def tool_from_schema(
    schema: Mapping[str, Any], handler: Callable[..., Any], *, parser: type[BaseParser] = JsonParser
) -> SchemaTool:
    """Build a simple tool from a JSON-schema function definition and a handler.

    Args:
        schema: an OpenAI, Anthropic, MCP or LiveKit function definition (see
            :class:`SchemaTool`).
        handler: called as ``handler(**arguments)`` with the checked arguments (see
            :class:`SchemaTool` for defaults, ``ToolContext`` and ``raw_arguments``).
        parser: the parser that reads a model's arguments.

    Returns:
        The tool, named as the schema names it (dots and all).

    Raises:
        ToolDefinitionError: listing every reason the schema or handler cannot be honoured.
    """
    return SchemaTool(schema, handler, parser=parser)
