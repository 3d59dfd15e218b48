"""One call of one API: :class:`Route`, and the step ``invoke``/``ainvoke``.

A :class:`Route` is everything about one callable name that does not change from call
to call: the bound function, the parser's reader, how results are rendered, and the
runtime settings resolved when the route was built (the validation mode its reader
checks in, timeout, retry, breaker, error formatter, output cap), including whether a
call may skip the call core at all.

:func:`invoke` and :func:`ainvoke` are the one step read, call, render, record; they
are the only sync/async twins in the package (like httpx, only the I/O is written
twice). The call core (:mod:`.core`) uses the same pieces, :func:`read`,
:func:`call` and :func:`record`, between its policies. Every record a call produces is
built here, once, complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from .._private.log import logger
from .._private.records import (
    field_eq,
    field_hash,
    field_repr,
    frozen_delattr,
    frozen_setattr,
    mark_frozen,
)
from .._private.text import preview
from ..context import ToolContext, handoff_of
from ..exceptions import LagentLikeError, ParseError, ToolError
from ..parsers._arguments import Repaired
from ..parsers._base import render_outputs
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from ._streaming import drained

if TYPE_CHECKING:
    from .policies import CircuitBreaker, RetryPolicy

__all__ = ["Arguments", "BreakerSlot", "Route", "ainvoke", "call", "invoke", "read", "record"]

#: What :func:`read` accepted: ``(keyword arguments, the repairs they needed or None)``.
Arguments = tuple[dict[str, Any], Optional[list[str]]]
#: Rewrites the errmsg of a call that raised: ``(exception, record) -> text or None``.
Formatter = Callable[[BaseException, ActionReturn], Optional[str]]

_ARGS_ERROR = ActionStatusCode.ARGS_ERROR
_API_ERROR = ActionStatusCode.API_ERROR
_OPEN = ActionValidCode.OPEN
#: Results rendered inline (as ``BaseParser.parse_outputs`` would) to skip a call.
#: ``None`` is not among them: it is an empty result (see :func:`record`).
_SCALARS = frozenset({str, int, float, bool})


class BreakerSlot:
    """The circuit breaker of one API, made by its factory at the first call that needs it.

    Args:
        factory: makes the breaker (a ``CircuitBreaker`` factory).
        label: the API's name, for the log when the factory fails.
    """

    def __init__(self, factory: Callable[[], CircuitBreaker], label: str) -> None:
        self.factory = factory
        self.label = label
        self.breaker: Optional[CircuitBreaker] = None
        self.failed = False

    def get(self) -> Optional[CircuitBreaker]:
        """The breaker (``None`` if the factory failed, which is logged once)."""
        if self.breaker is None and not self.failed:
            try:
                self.breaker = self.factory()
            except Exception:  # noqa: BLE001 - a broken factory must not break calls
                logger().warning("circuit_breaker factory of %s failed", self.label, exc_info=True)
                self.failed = True
        return self.breaker


@mark_frozen
@dataclass(init=False, repr=False, eq=False)
class Route:
    """One callable name, resolved: what a call runs and the settings around it.

    Attributes:
        action: the tool (a ``BaseAction``).
        key: the API key (``'run'`` for a simple tool).
        label: the name used in messages (``'Tool.api'`` or ``'Tool'``).
        tool: the tool's name (the ``type`` of records).
        func: the callable run with the checked arguments.
        read: the parser's reader: raw input to keyword arguments, checked in the
            route's validation mode.
        render: the parser's ``parse_outputs``, or ``None`` for the base rendering.
        is_async: ``func`` is a coroutine function.
        context_params: parameters that receive the call's ``ToolContext``.
        keep_valid: a record the tool builds itself keeps its ``valid`` code (the
            finish action); otherwise it is ``OPEN``, the code of a known tool.
        direct: calls may skip the call core (no hook, policy or context applies).
        timeout: seconds before the call is abandoned, or ``None``.
        retry: the retry policy, or ``None``.
        breaker: the API's circuit breaker, or ``None``.
        formatter: rewrites the errmsg of a call that raised, or ``None``.
        max_output_chars: cap on each text result, or ``None``.
        blocking: a sync API runs in a worker thread under an async executor.
        random: source of jitter for back-off, or ``None`` for :func:`random.random`.
        live: what holds the tool's ``enable`` flag as it is now (set by executors):
            the tool's state, read per call without the property's two calls, or
            the tool itself when its class redefines ``enable``.
        json_args: makes the record's ``args`` JSON (``runtime.records.json_args``),
            for APIs whose checked arguments may be Python objects; ``None`` when
            they are JSON already.
    """

    action: Any
    key: str
    label: str
    tool: str
    func: Callable[..., Any]
    read: Callable[[Any], Any]
    render: Optional[Callable[[Any], list[dict[str, Any]]]]
    is_async: bool
    context_params: tuple[str, ...] = ()
    keep_valid: bool = True
    direct: bool = True
    timeout: Optional[float] = None
    retry: Optional[RetryPolicy] = None
    breaker: Optional[BreakerSlot] = None
    formatter: Optional[Formatter] = None
    max_output_chars: Optional[int] = None
    blocking: bool = True
    random: Optional[Callable[[], float]] = None
    live: Any = None
    json_args: Optional[Callable[[dict[str, Any]], dict[str, Any]]] = None

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        action: Any,
        key: str,
        label: str,
        tool: str,
        func: Callable[..., Any],
        read: Callable[[Any], Any],
        render: Optional[Callable[[Any], list[dict[str, Any]]]],
        is_async: bool,
        context_params: tuple[str, ...] = (),
        keep_valid: bool = True,
        direct: bool = True,
        timeout: Optional[float] = None,
        retry: Optional[RetryPolicy] = None,
        breaker: Optional[BreakerSlot] = None,
        formatter: Optional[Formatter] = None,
        max_output_chars: Optional[int] = None,
        blocking: bool = True,
        random: Optional[Callable[[], float]] = None,
        live: Any = None,
        json_args: Optional[Callable[[dict[str, Any]], dict[str, Any]]] = None,
    ) -> None:
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "tool", tool)
        object.__setattr__(self, "func", func)
        object.__setattr__(self, "read", read)
        object.__setattr__(self, "render", render)
        object.__setattr__(self, "is_async", is_async)
        object.__setattr__(self, "context_params", context_params)
        object.__setattr__(self, "keep_valid", keep_valid)
        object.__setattr__(self, "direct", direct)
        object.__setattr__(self, "timeout", timeout)
        object.__setattr__(self, "retry", retry)
        object.__setattr__(self, "breaker", breaker)
        object.__setattr__(self, "formatter", formatter)
        object.__setattr__(self, "max_output_chars", max_output_chars)
        object.__setattr__(self, "blocking", blocking)
        object.__setattr__(self, "random", random)
        object.__setattr__(self, "live", live)
        object.__setattr__(self, "json_args", json_args)

    __repr__ = field_repr
    __eq__ = field_eq
    __hash__ = field_hash
    # Frozen: as @dataclass(frozen=True) would make it, without compiling at import.
    __setattr__ = frozen_setattr
    __delattr__ = frozen_delattr


class Abandoned(LagentLikeError, TimeoutError):
    """The call ran past its route's timeout (distinct from a ``TimeoutError`` the tool raises)."""


def read(route: Route, raw: Any) -> Union[Arguments, ActionReturn]:
    """``(checked keyword arguments, repairs or None)`` of ``raw``, or the ``ARGS_ERROR`` record.

    A reader returns the ``ParseError`` of input it refuses (the protocol of
    ``lagent_like.parsers._arguments``), and a ``Repaired`` for arguments it read
    only after repairs; anything it raises is a fault of the parser.
    """
    try:
        args: Union[dict[str, Any], Repaired, ParseError] = route.read(raw)
    except Exception as exc:  # noqa: BLE001 - every reading failure becomes a record
        return _refused(route, raw, exc)
    if type(args) is dict:
        return args, None
    if isinstance(args, ParseError):
        # Returned, not raised, by the reader: refused arguments are common.
        return ActionReturn(
            {"inputs": raw, "name": route.key}, None, route.tool, None, args.err_msg, _ARGS_ERROR
        )
    if isinstance(args, Repaired):
        return args.args, list(args.repairs)
    return args, None


def _refused(route: Route, raw: Any, exc: Exception) -> ActionReturn:
    args = {"inputs": raw, "name": route.key}
    # A faulty parser must not escape either.
    logger().warning("the parser of %s failed on %s", route.label, preview(raw), exc_info=exc)
    message = f"could not read the arguments: {type(exc).__name__}: {exc}"
    return ActionReturn(args, None, route.tool, None, message, _ARGS_ERROR)


def call(route: Route, args: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
    """Run the API (a coroutine for async APIs); raises what the tool raises."""
    if not route.context_params:
        return route.func(**args)
    filled = context if context is not None else ToolContext(tool_name=route.tool, api_name=route.key)
    return route.func(**args, **dict.fromkeys(route.context_params, filled))


def record(
    route: Route,
    args: dict[str, Any],
    outputs: Any = None,
    error: Optional[BaseException] = None,
    attempts: int = 1,
    repairs: Optional[list[str]] = None,
) -> ActionReturn:
    """The complete record of a call that returned ``outputs`` or raised ``error``.

    Renders the output (a rendering failure is the call's failure), caps long text,
    applies the error formatter, and makes a record the tool built itself the
    executor's (its args, type and ``valid`` filled in). ``repairs`` are those the
    arguments were read after (see :func:`read`). ``None`` is an empty result; a
    generator the tool returned is drained; ``args`` are recorded as JSON.
    """
    if route.json_args is not None:
        args = route.json_args(args)
    if error is None:
        if outputs is None:
            # Nothing to say (as LiveKit reads it), never the text 'None'.
            empty = [{"type": "text", "content": ""}]
            return ActionReturn(args, None, route.tool, empty, attempts=attempts, repairs=repairs)
        if route.render is None and type(outputs) in _SCALARS and route.max_output_chars is None:
            text = outputs if type(outputs) is str else str(outputs)
            return ActionReturn(
                args,
                None,
                route.tool,
                [{"type": "text", "content": text}],
                attempts=attempts,
                repairs=repairs,
            )
        if isinstance(outputs, ActionReturn):
            return _adopt(route, outputs, args, attempts)
        if handoff_of(outputs) is not None:
            return _handoff_outside_a_run(route, args, outputs[0] if type(outputs) is tuple else outputs)
        try:
            result = _render(route, drained(outputs))
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - rendering failures too
            return _failure(route, args, exc, attempts, None, repairs)
        full = None
        if route.max_output_chars is not None:
            result, full = _capped(result, route.max_output_chars)
        return ActionReturn(
            args, None, route.tool, result, None, attempts=attempts, full_result=full, repairs=repairs
        )
    return _failure(route, args, error, attempts, route.formatter, repairs)


def _handoff_outside_a_run(route: Route, args: dict[str, Any], agent: Any) -> ActionReturn:
    """The record of a tool that returned an agent where no agent run can take it.

    Inside an agent run the call core turns such a return into the handoff itself.
    """
    name = getattr(agent, "name", None) or type(agent).__name__
    errmsg = (
        f"{route.label} returned the agent {name!r}, but only an agent run can hand the "
        f"conversation over; call it from an agent (e.g. ReAct) or return a value"
    )
    return ActionReturn(args, None, route.tool, None, errmsg, ActionStatusCode.API_ERROR)


def _render(route: Route, outputs: Any) -> list[dict[str, Any]]:
    if route.render is not None:
        return route.render(outputs)
    return render_outputs(outputs)


def _adopt(route: Route, own: ActionReturn, args: dict[str, Any], attempts: int) -> ActionReturn:
    """A record the tool built itself, completed in place (it is the tool's object)."""
    if not own.args:
        own.args = args
    if not own.type:
        own.type = route.tool
    own.attempts = attempts
    return adopt(route, own)


def adopt(route: Route, own: ActionReturn) -> ActionReturn:
    """A record built by a tool or a hook, made the executor's: ``valid`` and output cap.

    The one place where a record is changed after it was built: records the call
    step builds itself are complete from the start.
    """
    if own.valid and not route.keep_valid:
        own.valid = _OPEN
    if route.max_output_chars is not None and own.result:
        own.result, full = _capped(own.result, route.max_output_chars)
        own.full_result = full if full is not None else own.full_result
    return own


def _failure(
    route: Route,
    args: dict[str, Any],
    exc: BaseException,
    attempts: int,
    formatter: Optional[Formatter],
    repairs: Optional[list[str]] = None,
) -> ActionReturn:
    message: Optional[str]
    if isinstance(exc, Abandoned):
        state, message = ActionStatusCode.TIMEOUT, str(exc)
    elif isinstance(exc, ToolError):
        # Written for the model by the tool itself: passed on as it is.
        state, message = _API_ERROR, exc.message
    else:
        logger().warning("tool %s raised", route.label, exc_info=exc)
        state, message = _API_ERROR, f"{type(exc).__name__}: {exc}"
    if formatter is not None:
        draft = ActionReturn(args, None, route.tool, None, message, state, attempts=attempts, repairs=repairs)
        message = _formatted(formatter, exc, draft)
    return ActionReturn(args, None, route.tool, None, message, state, attempts=attempts, repairs=repairs)


def _formatted(formatter: Formatter, error: BaseException, draft: ActionReturn) -> Optional[str]:
    try:
        text = formatter(error, draft)
    except Exception:  # noqa: BLE001 - a faulty formatter keeps the original message
        logger().warning("error_formatter failed on %s", preview(error), exc_info=True)
        return draft.errmsg
    return draft.errmsg if text is None else str(text)


def _capped(
    result: list[dict[str, Any]], limit: int
) -> tuple[list[dict[str, Any]], Optional[list[dict[str, Any]]]]:
    """Keep the head and tail of long text items; ``(result, the uncut result or None)``."""
    capped = []
    changed = False
    for item in result:
        content = item.get("content")
        if item.get("type") == "text" and isinstance(content, str) and len(content) > limit:
            head = limit // 2
            tail = limit - head
            cut = len(content) - limit
            notice = f"\n... [{cut} characters cut; the full output is kept] ...\n"
            capped.append({**item, "content": content[:head] + notice + content[len(content) - tail :]})
            changed = True
        else:
            capped.append(item)
    return (capped, result) if changed else (result, None)


def abandoned(route: Route) -> Abandoned:
    """The error of a call that ran past the route's timeout."""
    return Abandoned(f"{route.label!r} timed out after {route.timeout} s")


def invoke(route: Route, raw: Any, context: Optional[ToolContext] = None) -> ActionReturn:
    """Read, call, render and record one call, in this thread; never raises.

    An async API runs to completion (through :func:`ainvoke`) on a private event loop.
    """
    if route.is_async:
        from .._private.coroutines import run_coroutine  # async APIs only (asyncio's path)

        result: ActionReturn = run_coroutine(ainvoke(route, raw, context))
        return result
    got = read(route, raw)
    if isinstance(got, ActionReturn):
        return got
    args, repairs = got
    try:
        outputs = call(route, args, context)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
        return record(route, args, error=exc, repairs=repairs)
    return returned(route, args, outputs, repairs)


async def ainvoke(route: Route, raw: Any, context: Optional[ToolContext] = None) -> ActionReturn:
    """:func:`invoke` on the running event loop: async APIs are awaited, sync ones run inline."""
    if not route.is_async:
        return invoke(route, raw, context)
    got = read(route, raw)
    if isinstance(got, ActionReturn):
        return got
    args, repairs = got
    try:
        outputs = await call(route, args, context)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
        return record(route, args, error=exc, repairs=repairs)
    return returned(route, args, outputs, repairs)


def returned(route: Route, args: dict[str, Any], outputs: Any, repairs: Optional[list[str]]) -> ActionReturn:
    """The record of a call that returned ``outputs`` at its first attempt."""
    if (
        repairs is None
        and route.render is None
        and type(outputs) in _SCALARS
        and route.max_output_chars is None
        and route.json_args is None
    ):
        # The common case, inline; positional: twice as fast as keywords.
        text = outputs if type(outputs) is str else str(outputs)
        return ActionReturn(args, None, route.tool, [{"type": "text", "content": text}])
    return record(route, args, outputs, repairs=repairs)
