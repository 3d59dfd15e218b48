"""Native function calling for executors: schemas, exports, aliases, tool calls.

Function-calling APIs (OpenAI, Anthropic, MCP) want each tool as a name, a
description and a JSON Schema, and send back calls by name with JSON arguments. This
mixin gives an executor those views of its tools, under names legal for those APIs,
and runs a model's ``tool_calls`` through the executor's ordinary call path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from itertools import starmap
from typing import TYPE_CHECKING, Any, Callable, Optional

from .._private.frozen import fresh_top, frozen
from .._private.text import close_matches
from ..exceptions import ToolNotFoundError
from ..runtime._messages import alias_renamer
from ..schema import ActionStatusCode
from ..toolkits._base_action import BaseAction, api_specs
from ..toolkits._tool_state import description_edits, enabled, export_rows

if TYPE_CHECKING:
    from ..schema import ActionReturn
    from ..toolkits._tool_state import _ToolState

__all__ = ["FunctionCallingMixin", "mcp_extras"]


#: Tools exported at a time by a first export (see ``FunctionCallingMixin._first_export``).
_BLOCK = 256


def _enabled_flags(pairs: Sequence[tuple[BaseAction, _ToolState]]) -> tuple[tuple[bool, ...], bool]:
    """Whether each tool of ``pairs`` (``(action, state)``) is enabled now, and whether any is unwatched.

    Read from each tool's state, not through the ``enable`` property, unless the
    tool's class has its own: a catalogue reads thousands of flags per export. An
    unwatched description (a plain container stored into it) may have changed unseen.
    """
    own_enable = BaseAction.enable
    flags = []
    unwatched = False
    for action, state in pairs:
        if state.unwatched:
            unwatched = True
        if state.class_enable is own_enable:
            flag = state.enable
            flags.append(flag if flag is True or flag is False else enabled(state))
        else:
            flags.append(bool(action.enable))
    return tuple(flags), unwatched


def _add_rows(
    rows: list[tuple[str, str, dict[str, Any]]],
    aliases: dict[str, str],
    action: BaseAction,
    state: _ToolState,
    own_schema: bool,
) -> None:
    """Append ``(alias, description text, schema)`` of each API of ``action`` (enabled) to ``rows``."""
    for key, call, text, schema in export_rows(state, own_schema):
        alias = aliases.get(call)
        if alias is None:  # removed meanwhile (the snapshot of actions still has it)
            continue
        # A tool that writes its own schema (or an API without a spec) is asked and frozen.
        rows.append((alias, text, schema if schema is not None else frozen(action.json_schema(key))))


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


#: Content blocks that are not calls (Anthropic text and thinking blocks, ...).
_NOT_CALLS = frozenset(
    (
        "text",
        "thinking",
        "redacted_thinking",
        "image",
        "document",
        "reasoning",
        "message",
        "output_text",
        "refusal",
    )
)

#: What ``run_tool_calls`` reads, for the message of a ``TypeError``.
_EXPECTED = (
    "expected an assistant message (an OpenAI chat message dict or ChatCompletionMessage, an "
    "Anthropic Message or dict, an OpenAI Responses Response, a Gemini Content) or a list of its "
    "tool calls or content blocks"
)
#: Containers of a message that people pass by mistake: where the message is in them.
_WRAPPERS = (
    ("choices", "completion.choices[0].message"),
    ("candidates", "response.candidates[0].content"),
)


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]


def _is_call(obj: Any) -> bool:
    """Whether ``obj`` looks like one tool call or content block of some provider."""
    if _field(obj, "type") is not None:
        return True
    return any(_field(obj, key) is not None for key in ("function", "functionCall", "function_call"))


def _checked_items(items: Sequence[Any]) -> Sequence[Any]:
    """``items`` (tool calls or content blocks), or a ``TypeError`` for one that is neither."""
    for index, item in enumerate(items):
        if item is None or isinstance(item, (str, bytes, int, float, list, tuple)):
            raise TypeError(f"run_tool_calls: item {index} is {_shown(item)}, not a tool call; {_EXPECTED}")
        if _field(item, "role") is not None and _field(item, "type") is None:
            raise TypeError(
                f"run_tool_calls: item {index} is a chat message, not a tool call; pass one assistant "
                "message, or its tool_calls"
            )
    return items


def calls_in(message: Any) -> Sequence[Any]:
    """The tool calls (or content blocks) of what ``run_tool_calls`` was given.

    ``message`` may be a list of calls or blocks, one call, ``None`` (an OpenAI message
    without calls), or a whole assistant message of any provider.

    Raises:
        TypeError: ``message`` is none of those; the message says what is expected.
    """
    if message is None:
        return []
    if isinstance(message, (list, tuple)):
        return _checked_items(message)
    if isinstance(message, (str, bytes, int, float)) or (isinstance(message, dict) and not message):
        raise TypeError(f"run_tool_calls: got {_shown(message)}; {_EXPECTED}")
    role = _field(message, "role")
    if role is not None or _field(message, "type") == "message" or _field(message, "object") == "response":
        return _calls_of_message(message, role)
    if _is_call(message):
        return [message]
    for key, where in _WRAPPERS:
        if _field(message, key) is not None:
            raise TypeError(f"run_tool_calls: got a whole reply with {key!r}; pass {where}")
    raise TypeError(f"run_tool_calls: got {_shown(message)}; {_EXPECTED}")


def _calls_of_message(message: Any, role: Any) -> Sequence[Any]:
    """The calls of one message: ``tool_calls`` (OpenAI), ``content`` blocks (Anthropic), ..."""
    if role not in (None, "assistant", "model"):
        raise TypeError(
            f"run_tool_calls: got a {role!r} message, which calls no tools; pass the assistant's message"
        )
    for key in ("tool_calls", "content", "parts", "output"):
        found = _field(message, key)
        if isinstance(found, (list, tuple)):
            return _checked_items(found)
    # A text reply (content a string or None): no calls.
    return []


class _Call:
    """One tool call of any provider, read from a dict or an SDK object.

    Attributes:
        kind: ``"openai"`` (Chat Completions), ``"responses"`` (OpenAI Responses
            ``function_call`` items), ``"anthropic"`` (``tool_use`` blocks) or
            ``"gemini"`` (``functionCall`` parts).
        id: the provider's call id, returned with the result.
        name: the tool name, ``None`` when the call has none.
        arguments: a JSON string or a dict.
        raw: the call as it was given.
    """

    __slots__ = ("arguments", "id", "kind", "name", "raw")

    def __init__(self, raw: Any, kind: str, call_id: Any, name: Any, arguments: Any) -> None:
        self.raw = raw
        self.kind = kind
        self.id = call_id
        self.name = name if isinstance(name, str) else None
        if isinstance(arguments, str) and not arguments.strip():
            arguments = "{}"
        self.arguments = arguments


def _read_call(call: Any) -> Optional[_Call]:
    """The call in ``call``, or ``None`` for a content block that is not a call."""
    kind = _field(call, "type")
    if kind == "tool_use":
        return _Call(call, "anthropic", _field(call, "id"), _field(call, "name"), _field(call, "input"))
    if kind == "function_call":
        return _Call(
            call, "responses", _field(call, "call_id"), _field(call, "name"), _field(call, "arguments")
        )
    if kind in _NOT_CALLS:
        return None
    gemini = _field(call, "functionCall") or _field(call, "function_call")
    if gemini is not None:  # a Gemini part (dict or SDK object)
        return _Call(
            call, "gemini", _field(gemini, "id"), _field(gemini, "name"), _field(gemini, "args") or {}
        )
    function = _field(call, "function")
    if function is None and kind is None and _field(call, "text") is not None:
        return None  # a Gemini text part
    name = _field(function, "name") if function is not None else None
    arguments = _field(function, "arguments") if function is not None else None
    return _Call(call, "openai", _field(call, "id"), name, arguments)


def _read_tool_call(call: Any) -> tuple[Any, Optional[str], Any]:
    """``(id, name, arguments)`` of a tool call of any provider (a dict or an object)."""
    read = _read_call(call)
    if read is None:
        return None, None, None
    return read.id, read.name, read.arguments


def read_calls(tool_calls: Any) -> list[_Call]:
    """The calls in ``tool_calls`` (see :func:`calls_in`); blocks that are not calls are left out.

    Raises:
        TypeError: ``tool_calls`` is neither calls nor a message that holds them.
    """
    return [c for c in map(_read_call, calls_in(tool_calls)) if c is not None]


def _id_text(call_id: Any) -> Optional[str]:
    return call_id if isinstance(call_id, str) else None


#: What a call without a name should have looked like, by provider.
_CALL_SHAPES = {
    "anthropic": "{'type': 'tool_use', 'id': ..., 'name': ..., 'input': {...}}",
    "responses": "{'type': 'function_call', 'call_id': ..., 'name': ..., 'arguments': ...}",
}


def _no_name(index: int, call: _Call) -> str:
    shape = _CALL_SHAPES.get(call.kind)
    if shape is not None:
        return f"tool call {index} has no name; send {shape}"
    return f"tool call {index} has no function name; send {{'function': {{'name': ..., 'arguments': ...}}}}"


def call_results(calls: Sequence[_Call], records: Sequence[Optional[ActionReturn]]) -> list[dict[str, Any]]:
    """One result per call, in the calling provider's shape.

    OpenAI: ``{"role": "tool", "tool_call_id", "content"}``; Responses:
    ``{"type": "function_call_output", "call_id", "output"}``; Anthropic:
    ``{"type": "tool_result", "tool_use_id", "content", "is_error"}``; Gemini:
    ``{"functionResponse": {"name", "response": {"result" or "error"}, "id"}}``, the result as
    the JSON value its text spells (structured data, as Google ADK sends it). A ``None`` record
    stands for a call without a name.
    """
    results = []
    for index, (call, ret) in enumerate(zip(calls, records)):
        failed = ret is None or ret.state != ActionStatusCode.SUCCESS
        if ret is None:
            content = _no_name(index, call)
        else:
            content = (ret.errmsg or "") if failed else ret.format_result()
        if call.kind == "anthropic":
            results.append(
                {"type": "tool_result", "tool_use_id": call.id, "content": content, "is_error": failed}
            )
        elif call.kind == "responses":
            results.append({"type": "function_call_output", "call_id": call.id, "output": content})
        elif call.kind == "gemini":
            response: dict[str, Any] = {
                "name": call.name,
                "response": {"error": content} if failed else {"result": _structured(content)},
            }
            if call.id is not None:
                response["id"] = call.id
            results.append({"functionResponse": response})
        else:
            results.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return results


def _structured(text: str) -> Any:
    """A result's text as the value it spells (what the tool returned), else the text.

    Gemini takes a function's response as structured data, as Google ADK sends it:
    JSON text is read back (a dict, a list, a number), and so are ``True`` and
    ``False``, which is how a returned bool renders.
    """
    if text[:1] in _JSON_STARTS:
        try:
            return json.loads(text)
        except ValueError:
            pass
    return _PYTHON_BOOLS.get(text, text)


#: The first characters of JSON text a tool's return value renders as.
_JSON_STARTS = frozenset('{["-0123456789tfn')
_PYTHON_BOOLS = {"True": True, "False": False}


def _not_found(name: str, known: Iterable[str]) -> ToolNotFoundError:
    """The error for an API name or alias the executor does not know, with close matches."""
    return ToolNotFoundError(name, close_matches(name, known), where="in this executor")


class FunctionCallingMixin:
    """Function-calling views of an executor's tools (mixed into both executors)."""

    actions: dict[str, BaseAction]
    _names: dict[str, Any]
    _aliases: dict[str, str]
    _canonical: dict[str, str]
    _exports: dict[str, tuple[tuple[Any, ...], list[Any]]]
    _version: int
    #: ``(routes version, renamer)``: see :meth:`_named_as_given`.
    _renamer: tuple[int, Optional[Callable[[str], str]]] = (-1, None)
    #: ``(action, its state)`` of each action held, in order (see ``ExecutorBase``).
    _tool_pairs: Callable[[], list[tuple[BaseAction, Any]]]

    def _named_as_given(self, records: Sequence[Optional[ActionReturn]]) -> None:
        """Make the messages of natively made calls name the tools by their aliases.

        ``records`` are changed in place: the records keep what the model was told.
        """
        version, rename = self._renamer
        if version != self._version:
            rename = alias_renamer(self._aliases)
            self._renamer = (self._version, rename)
        if rename is None:
            return
        for ret in records:
            if ret is not None and ret.errmsg:
                ret.errmsg = rename(ret.errmsg)

    def alias_of(self, name: str) -> str:
        """The function-calling name of ``name`` (itself when it is already legal).

        Raises:
            ToolNotFoundError: no API is called ``name``.
        """
        try:
            return self._aliases[name]
        except KeyError:
            raise _not_found(name, self._names) from None

    def canonical_name(self, name: str) -> str:
        """The ``Tool.api`` name behind an alias (a canonical name maps to itself).

        Raises:
            ToolNotFoundError: no API has that name or alias.
        """
        if name in self._names:
            return name
        try:
            return self._canonical[name]
        except KeyError:
            raise _not_found(name, self._canonical) from None

    def json_schema(self, name: str) -> dict[str, Any]:
        """The JSON Schema of the arguments of ``name`` (``'Tool'``, ``'Tool.api'`` or an alias).

        Raises:
            ToolNotFoundError: no API has that name or alias.
        """
        canonical = self.canonical_name(name)
        action: BaseAction = self._names[canonical].action
        return action.json_schema(canonical[len(action.name) + 1 :] if action.is_toolkit else "run")

    def _exported(
        self, shape: str, build: Callable[[str, str, dict[str, Any]], dict[str, Any]], each_call: bool = False
    ) -> list[dict[str, Any]]:
        """``build(alias, description text, schema)`` of each enabled API, cached per ``shape``.

        Args:
            shape: the cache's key.
            build: makes one entry, plain at its top two levels, read-only below.
            each_call: ``build`` is cheap and makes only new dicts over shared parts:
                it runs for each caller instead of a copy of a cached entry (the first
                export of a catalogue then builds each entry once, not twice).
        """
        # Cached until the set of actions, their enabled flags or a description change;
        # a callable ``enable`` is asked once per tool and export.
        version = self._version  # before the snapshot: a change meanwhile makes the next call build anew
        edits = description_edits()
        pairs = self._tool_pairs()
        cached = self._exports.get(shape)
        entries = None
        if cached is None:  # the first export: flags, rows (and entries) read in one pass over the tools
            flags, unwatched, rows, entries = self._first_export(pairs, build if each_call else None)
        else:
            flags, unwatched = _enabled_flags(pairs)
            rows = None
        # A description holding a plain container may have changed unseen: not cached then.
        key = (version, flags, edits, object() if unwatched else None)
        if cached is None or cached[0] != key:
            if rows is None:
                rows = self._export_rows(pairs, flags)
            if each_call:
                self._exports[shape] = (key, rows)
                return entries if entries is not None else list(starmap(build, rows))
            # Plain at the top two levels (copied for each caller), read-only below.
            cached = (key, list(starmap(build, rows)))
            self._exports[shape] = cached
        if each_call:
            return list(starmap(build, cached[1]))
        # Fresh at the top for the caller; the schemas inside are shared and read-only.
        return [fresh_top(entry) for entry in cached[1]]

    def _first_export(
        self,
        pairs: list[tuple[BaseAction, _ToolState]],
        build: Optional[Callable[[str, str, dict[str, Any]], dict[str, Any]]],
    ) -> tuple[tuple[bool, ...], bool, list[tuple[str, str, dict[str, Any]]], Optional[list[dict[str, Any]]]]:
        """:meth:`_flags_and_rows` of ``pairs``, and ``build`` of each row when given, a block at a time.

        Each block's rows are built into entries while their parts are still in the
        CPU's caches: with thousands of tools, a pass over all the rows after all the
        tools would find them out of the caches again.
        """
        flags: list[bool] = []
        unwatched = False
        rows: list[tuple[str, str, dict[str, Any]]] = []
        entries: Optional[list[dict[str, Any]]] = [] if build is not None else None
        for start in range(0, len(pairs), _BLOCK):
            block_flags, block_unwatched, block_rows = self._flags_and_rows(pairs[start : start + _BLOCK])
            flags += block_flags
            unwatched = unwatched or block_unwatched
            rows += block_rows
            if entries is not None and build is not None:
                entries += starmap(build, block_rows)
        return tuple(flags), unwatched, rows, entries

    def _flags_and_rows(
        self, pairs: list[tuple[BaseAction, _ToolState]]
    ) -> tuple[tuple[bool, ...], bool, list[tuple[str, str, dict[str, Any]]]]:
        """:func:`_enabled_flags` and :meth:`_export_rows` of ``pairs`` in one pass over the tools.

        With thousands of tools, a second pass finds each tool's state out of the CPU's
        caches again.
        """
        own_enable = BaseAction.enable
        own_json_schema = BaseAction.json_schema
        aliases = self._aliases
        flags = []
        unwatched = False
        rows: list[tuple[str, str, dict[str, Any]]] = []
        for action, state in pairs:
            if state.unwatched:
                unwatched = True
            if state.class_enable is own_enable:
                flag = state.enable
                on = flag if flag is True or flag is False else enabled(state)
            else:
                on = bool(action.enable)
            flags.append(on)
            if not on:
                continue
            kept = state.exported  # as export_rows() answers, without the call when it has them
            if kept is None or state.unwatched:
                kept = export_rows(state, state.class_json_schema is not own_json_schema)
            for key, call, text, schema in kept:
                alias = aliases.get(call)
                if alias is not None:  # else removed meanwhile (the snapshot of actions still has it)
                    rows.append(
                        (alias, text, schema if schema is not None else frozen(action.json_schema(key)))
                    )
        return tuple(flags), unwatched, rows

    def _export_rows(
        self, pairs: list[tuple[BaseAction, _ToolState]], flags: tuple[bool, ...]
    ) -> list[tuple[str, str, dict[str, Any]]]:
        """``(alias, description text, schema)`` of every API of the enabled tools, in route order."""
        rows: list[tuple[str, str, dict[str, Any]]] = []
        aliases = self._aliases
        own_json_schema = BaseAction.json_schema
        for (action, state), on in zip(pairs, flags):
            if on:
                _add_rows(rows, aliases, action, state, state.class_json_schema is not own_json_schema)
        return rows

    def to_openai_tools(self, strict: bool = False) -> list[dict[str, Any]]:
        """The enabled tools as OpenAI ``tools``: ``{"type": "function", "function": {...}}``.

        Args:
            strict: export for OpenAI's strict mode (``"strict": true``): every property
                required, optional ones nullable (a ``null`` from the model then means
                "use the Python default"), ``additionalProperties: false`` on every
                object, keywords strict mode refuses left out (the executor still checks
                them). A tool strict mode cannot express (arbitrary keys, ``allOf``, a
                value of any type, ...) is exported as it is with ``"strict": false``;
                ``lagent_like.lint`` says why.
        """
        if not strict:
            return self._exported(
                "openai",
                lambda name, text, schema: {
                    "type": "function",
                    "function": {"name": name, "description": text, "parameters": schema},
                },
                each_call=True,
            )

        from ..function_calling._dialects import to_openai_strict_schema  # import time: only exports use it

        def build(name: str, text: str, schema: dict[str, Any]) -> dict[str, Any]:
            converted = to_openai_strict_schema(schema).schema
            function = {
                "name": name,
                "description": text,
                "parameters": frozen(converted) if converted is not None else schema,
                "strict": converted is not None,
            }
            return {"type": "function", "function": function}

        return self._exported("openai-strict", build)

    def to_gemini_tools(self) -> list[dict[str, Any]]:
        """The enabled tools as Gemini ``tools``: one ``{"functionDeclarations": [...]}``.

        Each declaration is ``{"name", "description", "parameters"}`` with the parameters
        in the OpenAPI 3.0 subset Gemini accepts (``parameters`` is left out for an API
        without any). What Gemini cannot express is left out; ``lagent_like.lint`` says
        what.
        """
        from ..function_calling._dialects import to_gemini_schema  # import time: only exports use it

        def build(name: str, text: str, schema: dict[str, Any]) -> dict[str, Any]:
            declaration: dict[str, Any] = {"name": name, "description": text}
            parameters = to_gemini_schema(schema).schema
            if parameters is not None:
                declaration["parameters"] = frozen(parameters)
            return declaration

        declarations = self._exported("gemini", build)
        return [{"functionDeclarations": declarations}] if declarations else []

    def to_anthropic_tools(self) -> list[dict[str, Any]]:
        """The enabled tools as Anthropic ``tools``: ``{"name", "description", "input_schema"}``."""
        return self._exported(
            "anthropic",
            lambda name, text, schema: {"name": name, "description": text, "input_schema": schema},
        )

    def to_mcp_tools(self) -> list[dict[str, Any]]:
        """The enabled tools as MCP tool definitions: ``{"name", "description", "inputSchema"}``.

        Plus, where a tool has them, ``title``, ``annotations`` and ``outputSchema``
        (see :mod:`lagent_like.mcp`).
        """

        def build(alias: str, text: str, schema: dict[str, Any]) -> dict[str, Any]:
            route = self._names.get(self._canonical.get(alias, alias))
            # A tool removed by another thread since the snapshot: this export is of the
            # snapshot, and the change of version makes the next one build anew.
            extras = {} if route is None else mcp_extras(route.action, route.key)
            return {"name": alias, "description": text, "inputSchema": schema, **extras}

        return self._exported("mcp", build)


def mcp_extras(action: BaseAction, key: str) -> dict[str, Any]:
    """``title``, ``annotations`` and ``outputSchema`` of API ``key`` of ``action`` (those it has).

    An action may say it itself with an ``mcp_extras(key)`` method (``MCPToolkit``
    does, with what its server said); otherwise they come from the API's spec.
    """
    own = getattr(action, "mcp_extras", None)
    if callable(own):
        return {name: frozen(value) for name, value in own(key).items()}
    spec = api_specs(action).get(key)
    if spec is None:
        return {}
    extras: dict[str, Any] = {}
    options = spec.options
    title = getattr(options, "title", None)
    if title is not None:
        extras["title"] = title
    annotations = getattr(options, "annotations", None)
    if annotations:
        extras["annotations"] = dict(annotations)
    from ..spec._metadata import output_schema  # on first use: reads type hints

    schema = output_schema(spec)
    if schema is not None:
        extras["outputSchema"] = frozen(schema)
    return extras
