"""``BaseAction`` and its metaclass: a class is a tool, its methods are its APIs.

``ToolMeta`` reads a class once, when it is defined: it collects the ``@tool_api``
methods (inherited ones too), checks the class is either a simple tool (``run``) or a
toolkit (named APIs), builds ``__tool_description__`` and registers the class. An
instance works on its own deep copy of that description and calls its APIs through
its parser; ``__call__`` never raises, every outcome is an ``ActionReturn``.
"""

from __future__ import annotations

import inspect
import itertools
import types
from abc import ABCMeta
from typing import Any, Awaitable, Callable, ClassVar, Coroutine, NamedTuple, Optional, Union

from .._private.describe import ApiSpec, copy_description
from .._private.docstrings import DocstringSyntaxError, parse_docstring
from .._private.json_schema import parameter_schema
from .._private.log import logger
from .._private.text import as_text, did_you_mean, preview
from .._private.validation import Validator, compile_validator, exact_type
from ..context import ToolContext
from ..exceptions import ParseError, ToolDefinitionError, ToolError
from ..registry import TOOL_REGISTRY
from ..schema import ActionReturn, ActionStatusCode
from .parser import BaseParser, JsonParser
from .tool_api import SPEC_ATTR, api_spec_of, tool_api

__all__ = ["BaseAction", "ToolMeta", "tool_api"]


class _Unset:
    """Type of :data:`UNSET`."""

    def __repr__(self) -> str:
        return "UNSET"


#: A runtime setting a tool leaves to its executor.
UNSET: Any = _Unset()

#: The compiled call of one API: raw model input (and an optional ``ToolContext``) in,
#: ``ActionReturn`` out, never raising.
Invoker = Callable[..., ActionReturn]

#: Results rendered inline (as ``BaseParser.parse_outputs`` would) to skip a call.
_SCALARS = frozenset({str, int, float, bool, type(None)})
_ARGS_ERROR = ActionStatusCode.ARGS_ERROR
_API_ERROR = ActionStatusCode.API_ERROR


def _collect_specs(cls: type) -> dict[str, ApiSpec]:
    """Attribute name -> spec of every API, parents first, overrides replacing them.

    An override of an API method without ``@tool_api`` stays an API and is described
    from its own signature with the parent's options.
    """
    specs: dict[str, ApiSpec] = {}
    for klass in reversed(cls.__mro__[:-1]):
        namespace = vars(klass)
        # Most bases (BaseAction itself first) hold no API and shadow none: that is
        # settled in C, and only the other namespaces are walked.
        marked = any(map(getattr, namespace.values(), itertools.repeat(SPEC_ATTR), itertools.repeat(None)))
        if not marked and not (specs and specs.keys() & namespace.keys()):
            continue
        for attr, value in namespace.items():
            spec = getattr(value, SPEC_ATTR, None)  # api_spec_of, inlined
            if isinstance(spec, ApiSpec):
                specs[attr] = spec
            elif attr in specs:
                if inspect.isfunction(value):
                    options = specs[attr].options
                    specs[attr] = api_spec_of(tool_api(**vars(options))(value))  # type: ignore[assignment]
                else:
                    del specs[attr]
    return specs


def _class_doc(cls: type, problems: list[str]) -> str:
    # The framework's own docstrings describe the framework, not the tool.
    for klass in cls.__mro__:
        if isinstance(klass, ToolMeta) and klass.__module__ != __name__ and vars(klass).get("__doc__"):
            try:
                return parse_docstring(vars(klass)["__doc__"]).description
            except DocstringSyntaxError as exc:
                problems.append(f"class docstring: {exc}")
    return ""


def _tool_description(cls: type, specs: dict[str, ApiSpec], run_attr: Any) -> dict[str, Any]:
    tool_name = vars(cls).get("__tool_name__") or cls.__name__
    run = specs.get("run")
    apis = [spec for attr, spec in specs.items() if attr != "run"]
    problems = []
    if apis and (run is not None or isinstance(run_attr, types.FunctionType)):
        problems.append(
            f"defines run and the tool APIs {[s.name for s in apis]}; a class is either a simple "
            "tool (one run method) or a toolkit (@tool_api methods), not both"
        )
    names = [s.name for s in apis]
    if len(set(names)) != len(names):
        clashes = sorted({n for n in names if names.count(n) > 1})
        problems.append(f"several methods use the API names {clashes}")
    if not isinstance(tool_name, str) or not tool_name:
        problems.append(f"__tool_name__ must be a non-empty string, got {tool_name!r}")
    class_doc = _class_doc(cls, problems)
    if problems:
        raise ToolDefinitionError(cls.__qualname__, problems)
    if apis:
        return {
            "name": tool_name,
            "description": class_doc,
            # Shared with the functions' api_description; nothing mutates either, and
            # every instance works on its own copy.
            "api_list": [s.description for s in apis],
        }
    description: dict[str, Any] = {
        "name": tool_name,
        "description": class_doc,
        "parameters": [],
        "required": [],
    }
    if run is not None:
        api = run.description
        description["description"] = api["description"] or class_doc
        description["parameters"] = api["parameters"]
        description["required"] = api["required"]
        if "return_data" in api:
            description["return_data"] = api["return_data"]
    return description


class ToolMeta(ABCMeta):
    """Metaclass that turns a ``BaseAction`` subclass into a described, registered tool.

    Class keyword ``register=False`` keeps a class (an abstract base) out of the registry.
    """

    __tool_apis__: dict[str, ApiSpec]
    __tool_description__: dict[str, Any]

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        register: bool = True,
        **kwargs: Any,
    ) -> ToolMeta:
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        specs = _collect_specs(cls)
        run = getattr(cls, "run", None)
        if len(specs) == 0 and inspect.isfunction(run):
            specs["run"] = api_spec_of(tool_api(run))  # type: ignore[assignment]
        cls.__tool_apis__ = specs
        cls.__tool_description__ = _tool_description(cls, specs, run)
        if register:
            TOOL_REGISTRY.register(cls, cls.__tool_description__["name"])
        return cls


class Stages(NamedTuple):
    """The phases of one API's call, run separately by runtimes with policies.

    Attributes:
        read: raw input -> checked arguments, or the ``ARGS_ERROR`` record.
        call: ``(args, context)`` -> the tool's raw output (a coroutine for async APIs);
            raises what the tool raises.
        wrap: ``(args, output)`` -> the success record (or the failure record when the
            output cannot be rendered).
        fail: ``(args, exception)`` -> the failure record.
        is_async: the API is a coroutine function.
        wants_context: the API has a ``ToolContext`` parameter.
        ainvoke: for async APIs, the whole call as one coroutine function (the async
            executor's direct path, like the sync invoker), else ``None``.
    """

    read: Callable[[Any], Union[dict[str, Any], ActionReturn]]
    call: Callable[[dict[str, Any], Optional[ToolContext]], Any]
    wrap: Callable[[dict[str, Any], Any], ActionReturn]
    fail: Callable[[dict[str, Any], BaseException], ActionReturn]
    is_async: bool
    wants_context: bool
    ainvoke: Optional[Callable[[Any], Awaitable[ActionReturn]]] = None


def _read_failure(inputs: Any, key: str, tool: str, parser_name: str, exc: Exception) -> ActionReturn:
    args = {"inputs": inputs, "name": key}
    if isinstance(exc, ParseError):
        return ActionReturn(args, None, tool, None, exc.err_msg, _ARGS_ERROR)
    # A faulty parser must not escape either.
    logger().warning("parser %s failed on %s", parser_name, preview(inputs), exc_info=exc)
    return ActionReturn(
        args, None, tool, None, f"could not read the arguments: {type(exc).__name__}: {exc}", _ARGS_ERROR
    )


def _record(
    args: dict[str, Any], tool: str, outputs: Any, render: Callable[[Any], list[dict[str, Any]]]
) -> ActionReturn:
    if isinstance(outputs, ActionReturn):
        if not outputs.args:
            outputs.args = args
        if not outputs.type:
            outputs.type = tool
        return outputs
    return ActionReturn(args, None, tool, render(outputs))


def _failure(args: dict[str, Any], tool: str, key: str, exc: BaseException) -> ActionReturn:
    if isinstance(exc, ToolError):
        # Written for the model by the tool itself: passed on as it is.
        return ActionReturn(args, None, tool, None, exc.message, _API_ERROR)
    logger().warning("tool %s.%s raised", tool, key, exc_info=exc)
    return ActionReturn(args, None, tool, None, f"{type(exc).__name__}: {exc}", _API_ERROR)


def _is_async(func: Callable[..., Any], spec: Optional[ApiSpec]) -> bool:
    return spec.is_async if spec is not None else inspect.iscoroutinefunction(func)


def _run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run an async API to completion from synchronous code.

    Inside a running event loop the coroutine runs on a fresh loop in a worker thread,
    because the caller's loop cannot be re-entered.
    """
    # Imported here: asyncio costs milliseconds at import and only async APIs need it.
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


class BaseAction(metaclass=ToolMeta):
    """Base class of every tool.

    Subclass it with a ``run`` method (a simple tool) or with ``@tool_api`` methods (a
    toolkit). The class docstring describes a toolkit; a simple tool is described by
    its ``run`` docstring.

    Runtime settings (class attributes, or keyword arguments of the constructor) override
    the executor's: ``timeout`` (seconds, ``None`` for no limit), ``retry`` (a
    ``RetryPolicy`` or ``None``), ``circuit_breaker`` (a factory returning a
    ``CircuitBreaker`` per API, or ``None``), and ``blocking`` (``False`` runs a cheap sync
    API inline on an async executor's loop instead of in a worker thread). Left unset,
    the executor's settings apply. ``executes_code = True`` marks a tool that runs code
    it is given (the interpreters): ``serve-mcp`` serves such tools only when named.

    Args:
        description: a Lagent description dict to use instead of the class's
            ``__tool_description__``; it is deep-copied either way.
        parser: the :class:`BaseParser` subclass that reads a model's arguments.
        enable: whether the executor offers and runs this tool.
        timeout: this tool's timeout, overriding the class attribute.
        retry: this tool's retry policy, overriding the class attribute.
        circuit_breaker: this tool's breaker factory, overriding the class attribute.
        blocking: whether this tool's sync APIs need a worker thread (async executor).
    """

    timeout: Any = UNSET
    retry: Any = UNSET
    circuit_breaker: Any = UNSET
    blocking: bool = True
    executes_code: ClassVar[bool] = False

    def __init__(
        self,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
        *,
        timeout: Any = UNSET,
        retry: Any = UNSET,
        circuit_breaker: Any = UNSET,
        blocking: Optional[bool] = None,
    ) -> None:
        if timeout is not UNSET:
            self.timeout = timeout
        if retry is not UNSET:
            self.retry = retry
        if circuit_breaker is not UNSET:
            self.circuit_breaker = circuit_breaker
        if blocking is not None:
            self.blocking = blocking
        source = description if description is not None else type(self).__tool_description__
        self._description: dict[str, Any] = copy_description(source)
        name = self._description.get("name") if isinstance(self._description, dict) else None
        if not isinstance(name, str) or not name:
            raise ToolDefinitionError(
                type(self).__qualname__, [f"a description needs a non-empty 'name', got {description!r}"]
            )
        self._name = name
        self._enable = bool(enable)
        self._is_toolkit = "api_list" in self._description
        bindings = self._api_bindings()
        self._api_specs = {key: spec for key, (_, spec) in bindings.items() if spec is not None}
        self._schemas: dict[str, dict[str, Any]] = {}
        self._parser = parser(self)
        compiled = {key: self._compile(key, func, spec) for key, (func, spec) in bindings.items()}
        self._invokers: dict[str, Invoker] = {key: pair[0] for key, pair in compiled.items()}
        self._stages: dict[str, Stages] = {key: pair[1] for key, pair in compiled.items()}

    def _api_bindings(self) -> dict[str, tuple[Callable[..., Any], Optional[ApiSpec]]]:
        """API key (``'run'`` for a simple tool) -> (the callable, its spec if it has one).

        Subclasses whose APIs are not methods of the class (tools made from functions or
        from schemas) override this.
        """
        specs = type(self).__tool_apis__
        if self._is_toolkit:
            return {spec.name: (getattr(self, attr), spec) for attr, spec in specs.items() if attr != "run"}
        return {"run": (self.run, specs["run"])} if "run" in specs else {}  # type: ignore[attr-defined]

    def _api_description(self, name: str) -> Optional[dict[str, Any]]:
        """The description dict of API ``name`` in this instance's description."""
        if not self._is_toolkit:
            return self._description if name == "run" else None
        for api in self._description["api_list"]:
            if api["name"] == name:
                return api  # type: ignore[no-any-return]
        return None

    def json_schema(self, name: str = "run") -> dict[str, Any]:
        """The JSON Schema of API ``name``'s arguments, for function calling.

        ``{"type": "object", "properties": ..., "required": ..., "additionalProperties":
        false}`` with types, descriptions, enums, defaults, items and nested objects,
        built from the annotations (or the Lagent types where there are none). The
        result is a fresh copy.

        Raises:
            KeyError: the action has no API ``name``.
        """
        schema = self._schemas.get(name)
        if schema is None:
            schema = self._build_schema(name)
            self._schemas[name] = schema
        return copy_description(schema)  # type: ignore[no-any-return]

    def _build_schema(self, name: str) -> dict[str, Any]:
        api = self._api_description(name)
        if api is None:
            raise KeyError(f"{self._name} has no API {name!r}")
        spec = self._api_specs.get(name)
        hints = spec.hints if spec else {}
        defaults = spec.defaults if spec else {}
        properties = {
            p["name"]: parameter_schema(
                hints.get(p["name"]),
                p.get("type", "STRING"),
                p.get("description", ""),
                defaults.get(p["name"]),
                p["name"] in defaults,
            )
            for p in api.get("parameters", [])
        }
        return {
            "type": "object",
            "properties": properties,
            "required": list(api.get("required", [])),
            "additionalProperties": bool(spec and spec.accepts_any_kwargs),
        }

    @property
    def name(self) -> str:
        """The tool name a model uses."""
        return self._name

    @property
    def enable(self) -> bool:
        """Whether the executor offers and runs this tool."""
        return self._enable

    @enable.setter
    def enable(self, value: bool) -> None:
        self._enable = bool(value)

    @property
    def is_toolkit(self) -> bool:
        """True for a toolkit (``api_list``), False for a simple tool (``run``)."""
        return self._is_toolkit

    @property
    def description(self) -> dict[str, Any]:
        """This instance's own description dict, with the parser's ``parameter_description``."""
        return self._description

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self._name!r} enable={self._enable}>"

    def __call__(self, inputs: Any, name: str = "run") -> ActionReturn:
        """Parse ``inputs`` for the API ``name``, call it and wrap the outcome.

        Never raises for bad input or a failing tool: an unknown API or an exception in
        the tool gives ``API_ERROR``, unparsable or invalid arguments ``ARGS_ERROR``.
        """
        try:
            invoke = self._invokers[name]
        except (KeyError, TypeError):
            return self._unknown_api(inputs, name)
        return invoke(inputs)

    def argument_checks(self, name: str = "run") -> tuple[dict[str, Validator], dict[str, Any]]:
        """How the parser checks the arguments of API ``name``.

        Returns ``(validators, exact)``: per parameter, a function that returns the
        value (coerced where nothing is lost) or raises ``Invalid``; and, for parameters
        whose check passes exactly the values of one class, that class, so a call whose
        values already have it skips the check. Parameters absent from ``validators``
        are not checked. Override this in tools whose parameters are not described by
        Python annotations (for example tools built from a JSON Schema).
        """
        spec = self._api_specs.get(name)
        if spec is None:
            return {}, {}
        if spec.checks is None:
            validators = {param: compile_validator(t) for param, t in spec.declared.items()}
            exact = {param: t for param, t in ((p, exact_type(a)) for p, a in spec.declared.items()) if t}
            spec.checks = (validators, exact)
        return spec.checks

    def invoker(self, name: str = "run") -> Optional[Invoker]:
        """The compiled call of API ``name`` (what ``action(inputs, name)`` runs), or ``None``."""
        return self._invokers.get(name)

    def stages(self, name: str = "run") -> Optional[Stages]:
        """The phases of API ``name``'s call, for runtimes that act between them, or ``None``."""
        return self._stages.get(name)

    def _compile(self, key: str, func: Callable[..., Any], spec: Optional[ApiSpec]) -> tuple[Invoker, Stages]:
        """Build the per-call path of one API: the fast invoker and its stages.

        The invoker reads, calls, renders and records in one closure (a single frame
        around the tool, everything bound up front); runtimes that apply policies
        between the phases use the same phases separately through :class:`Stages`.
        Both share the helpers that build error and result records.
        """
        read = self._parser.reader(key)
        render = self._parser.parse_outputs
        plain_render = type(self._parser).parse_outputs is BaseParser.parse_outputs
        tool = self._name
        parser_name = type(self._parser).__name__
        is_async = _is_async(func, spec)
        context_params = spec.context_params if spec is not None else ()

        def with_context(context: Optional[ToolContext]) -> dict[str, ToolContext]:
            filled = context if context is not None else ToolContext(tool_name=tool, api_name=key)
            return dict.fromkeys(context_params, filled)

        def invoke(inputs: Any, context: Optional[ToolContext] = None) -> ActionReturn:
            try:
                args = read(inputs)
            except Exception as exc:  # noqa: BLE001 - every reading failure becomes a record
                return _read_failure(inputs, key, tool, parser_name, exc)
            if isinstance(args, ParseError):
                # Built inline (as _read_failure would): refused arguments are common.
                return ActionReturn(
                    {"inputs": inputs, "name": key}, None, tool, None, args.err_msg, _ARGS_ERROR
                )
            try:
                outputs = func(**args, **with_context(context)) if context_params else func(**args)
                if is_async:
                    outputs = _run_coroutine(outputs)
                if plain_render and type(outputs) in _SCALARS:
                    # Positional: about twice as fast as keywords on the per-call path.
                    text = outputs if type(outputs) is str else str(outputs)
                    return ActionReturn(args, None, tool, [{"type": "text", "content": text}])
                return _record(args, tool, outputs, render)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
                return _failure(args, tool, key, exc)

        def read_stage(inputs: Any) -> Union[dict[str, Any], ActionReturn]:
            try:
                args = read(inputs)
            except Exception as exc:  # noqa: BLE001 - every reading failure becomes a record
                return _read_failure(inputs, key, tool, parser_name, exc)
            if isinstance(args, ParseError):
                return _read_failure(inputs, key, tool, parser_name, args)
            return args

        def call_stage(args: dict[str, Any], context: Optional[ToolContext]) -> Any:
            return func(**args, **with_context(context)) if context_params else func(**args)

        def wrap_stage(args: dict[str, Any], outputs: Any) -> ActionReturn:
            try:
                return _record(args, tool, outputs, render)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - rendering failures too
                return _failure(args, tool, key, exc)

        def fail_stage(args: dict[str, Any], exc: BaseException) -> ActionReturn:
            return _failure(args, tool, key, exc)

        async def ainvoke(inputs: Any) -> ActionReturn:
            try:
                args = read(inputs)
            except Exception as exc:  # noqa: BLE001 - every reading failure becomes a record
                return _read_failure(inputs, key, tool, parser_name, exc)
            if isinstance(args, ParseError):
                return _read_failure(inputs, key, tool, parser_name, args)
            try:
                outputs = await (func(**args, **with_context(None)) if context_params else func(**args))
                if plain_render and type(outputs) in _SCALARS:
                    text = outputs if type(outputs) is str else str(outputs)
                    return ActionReturn(args, None, tool, [{"type": "text", "content": text}])
                return _record(args, tool, outputs, render)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
                return _failure(args, tool, key, exc)

        stages = Stages(
            read_stage,
            call_stage,
            wrap_stage,
            fail_stage,
            is_async,
            bool(context_params),
            ainvoke if is_async else None,
        )
        return invoke, stages

    def _unknown_api(self, inputs: Any, name: Any) -> ActionReturn:
        if self._is_toolkit:
            labels = [f"{self._name}.{api}" for api in self._invokers]
            hint = did_you_mean(as_text(name), self._invokers)
            message = (
                f"{self._name} has no API {preview(name)}.{hint} Call one of: {', '.join(labels) or 'none'}"
            )
        elif self._invokers:
            message = (
                f"{self._name} is a simple tool; call it as {self._name!r} (API 'run'), not {preview(name)}"
            )
        else:
            message = f"{self._name} has no callable API"
        return ActionReturn(
            args={"inputs": inputs, "name": name},
            type=self._name,
            errmsg=message,
            state=ActionStatusCode.API_ERROR,
        )
