"""``ActionExecutor``: one place that describes tools to a model and runs its calls.

Everything but running a call is shared with the async executor
(:mod:`.executor_base`); here a call runs plainly: the direct path is one
:func:`~.invoke.invoke`, anything with hooks, policies or a context goes through the
call core's synchronous driver.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, overload

from ..runtime._core import call_core, drive_sync
from ..runtime._invoke import invoke
from ..runtime._messages import native_calls
from ..schema import ActionReturn
from ._base import ExecutorOptions
from ._exports import _id_text, call_results, read_calls
from ._intake import ToolLike, batch_job
from ._lagent05 import (
    NO_COMMAND,
    MessageApi,
    call_id_of,
    call_of,
    is_message,
    message_session,
    not_a_call,
    replaced,
    session_of,
)

if TYPE_CHECKING:
    from ..schema import AgentMessage

__all__ = ["ActionExecutor", "ExecutorOptions", "ToolLike"]


class ActionExecutor(MessageApi):
    """Holds a set of actions, describes them, and runs a model's calls.

    Args:
        actions: the tools with distinct names: ``BaseAction`` instances, or functions
            (``@tool_api`` or just type-hinted), each made a simple tool of its own; a
            single tool may be given alone (as Lagent allows).
        invalid_action: answers unknown or disabled tool names (default ``InvalidAction()``).
        no_action: answers turns without a tool (default ``NoAction()``).
        finish_action: answers the final answer (default ``FinishAction()``).
        finish_in_action: also list the finish action among the tools offered to the model.
        timeout: default seconds before a call is abandoned (``TIMEOUT``); ``None`` for no
            limit. A tool's own setting (``Tool(timeout=...)``, see
            :class:`~lagent_like.ToolSettings`) wins. A sync tool's thread cannot be killed:
            the executor stops waiting and the thread runs on.
        retry: default :class:`~lagent_like.RetryPolicy` for transient failures.
        circuit_breaker: a factory of :class:`~lagent_like.CircuitBreaker`, one
            per API, for tools that set none.
        error_formatter: ``(exception, record) -> errmsg`` rewrites the message of any
            call that raised (``ToolError`` included); ``None`` keeps it.
        max_output_chars: longer text results keep their head and tail with a notice;
            the full result stays in ``ActionReturn.full_result``.
        max_argument_chars: argument strings longer than this are refused at once
            (``ARGS_ERROR``), before any parsing; ``None`` for no limit.
        max_workers: threads for sync tools with timeouts and for batches.
        sleep: how to wait between retries (injectable for tests).
        random: jitter source in [0, 1) for retries (injectable for tests).
        validation: how arguments are checked (``"coerce"``, ``"strict"`` or ``"off"``) by
            the tools and APIs that set no mode of their own; ``None`` leaves them at
            ``"coerce"``. The mode is this executor's alone: a tool shared with another
            executor reads in each one's mode.
        hooks: hooks registered at once (see :meth:`register_hook`); Lagent 0.5's
            ``dict(type=Class, **kwargs)`` configs are built, as are those of ``actions``.

    Lagent 0.5's API works too: ``executor(AgentMessage(...), session_id=0)``,
    :meth:`forward`, :meth:`description`, :meth:`keys`, ``name in executor``,
    ``executor[name] = action``, ``del executor[name]`` and hooks taking
    ``(executor, message, session_id)``.

    Policies cost nothing when none is set: calls then take a direct path. Hooks,
    sessions and tools taking a ``ToolContext`` use the full call core.

    Raises:
        ToolDefinitionError: an entry is not an action, or two actions share a name.
    """

    @overload
    def __call__(
        self,
        name: str,
        command: Any,
        session_id: Optional[str] = ...,
        call_id: Optional[str] = ...,
        *,
        on_progress: Optional[Callable[[Any], Any]] = ...,
        context: Any = ...,
    ) -> ActionReturn: ...

    @overload
    def __call__(
        self,
        name: AgentMessage,
        command: Any = ...,
        session_id: Any = ...,
        call_id: Optional[str] = ...,
        *,
        on_progress: Optional[Callable[[Any], Any]] = ...,
    ) -> AgentMessage: ...

    def __call__(
        self,
        name: Any,
        command: Any = NO_COMMAND,
        session_id: Any = None,
        call_id: Optional[str] = None,
        *,
        on_progress: Optional[Callable[[Any], Any]] = None,
        context: Any = None,
    ) -> Any:
        """Run the call a model asked for and return its record.

        Args:
            name: ``'Tool'`` for a simple tool, ``'Tool.api'`` for a toolkit API, or an alias;
                or a Lagent 0.5 ``AgentMessage`` holding the call (then ``command`` is not
                given and the answer is an ``AgentMessage``; see :meth:`call_message`).
            command: the model's argument string (or a dict / tuple for the parser).
            session_id: the session whose ``ToolContext.state`` the call sees.
            call_id: the model's id for this call, passed on in the ``ToolContext``.
            on_progress: called with each chunk a generator tool yields, as it comes, in
                the thread that runs the tool (``ToolContext.on_progress``); the record
                still holds the whole output.
            context: the caller's own context object, given to the tool as
                ``ToolContext.context``; an agent passes an
                :class:`~lagent_like.context.AgentScope` instead (agent name, run id,
                the run's context object, where the call's ``ToolContext.actions`` go).
                A call given a context always takes the full call core.

        Returns:
            The call's ``ActionReturn`` (an ``AgentMessage`` holding it for a message).

        Raises:
            TypeError: ``command`` is missing and ``name`` is not an ``AgentMessage``.
        """
        # One test on the common path: a str name with its command.
        if name.__class__ is not str or command is NO_COMMAND:
            if is_message(name):  # Lagent 0.5: executor(message, session_id=0)
                if context is not None:
                    raise TypeError(
                        "a Lagent 0.5 message call takes no context=; call with a name and arguments"
                    )
                return self.call_message(name, message_session(command, session_id))
            if command is NO_COMMAND:
                raise TypeError(f"{type(self).__name__}() missing the command (the arguments) of {name!r}")
        route = self._route_of_call(name, command, session_id, call_id)
        if isinstance(route, ActionReturn):
            return route
        if route.direct and context is None:
            return invoke(route, command)
        filled = self._context(route, session_id, call_id, on_progress, context, (name, command))
        core = call_core(route, command, filled, self._hook_methods)
        return drive_sync(core, self._thread_pool, self._sleep)

    def forward(self, name: str, parameters: Any, **kwargs: Any) -> ActionReturn:
        """Run one call and return its record, without message hooks (Lagent 0.5's ``forward``).

        Args:
            name: ``'Tool'`` or ``'Tool.api'``.
            parameters: the arguments, a dict or an argument string.
            **kwargs: ``session_id`` (Lagent's; ``0`` is the default session) and
                ``call_id`` are used; others, which Lagent passes on too, are ignored.
        """
        record: ActionReturn = self(
            name, parameters, session_of(kwargs.get("session_id")), call_id_of(kwargs)
        )
        return record

    def _hooked(self, method_name: str, message: Any, session_id: Any) -> Any:
        """``message`` after the Lagent 0.5 hooks' ``method_name`` methods, in order."""
        from .._private.coroutines import run_coroutine

        for method in self._message_hook_methods(method_name):
            result = method(self, message, session_id)
            if inspect.iscoroutine(result):  # an async hook, run to completion as other hooks are
                result = run_coroutine(result)
            message = replaced(result, message)
        return message

    def call_message(self, message: Any, session_id: Any = 0, **kwargs: Any) -> Any:
        """Run the call in a Lagent 0.5 message; answer with an ``AgentMessage`` holding the record.

        What ``executor(message, session_id=0)`` does, as in Lagent 0.5: the hooks'
        ``before_action(executor, message, session_id)`` may replace the message, the call
        in its content runs (:meth:`forward`), the record becomes the content of an
        ``AgentMessage`` sent by the executor's class, and the hooks' ``after_action`` may
        replace that. A content holding no call is answered with an ``ARGS_ERROR`` record
        (Lagent raises ``AssertionError``).

        Args:
            message: an ``AgentMessage`` whose content is a ``FunctionCall`` or a dict with
                ``'name'`` and ``'parameters'``.
            session_id: Lagent's session id; ``0`` is the executor's default session.
            **kwargs: passed on to :meth:`forward`.
        """
        message = self._hooked("before_action", message, session_id)
        call = call_of(message.content)
        if call is None:
            record = not_a_call(message.content)
        else:
            record = self.forward(call[0], call[1], session_id=session_id, **kwargs)
        return self._hooked("after_action", self._reply(record), session_id)

    def batch(
        self, calls: Sequence[Any], session_id: Optional[str] = None, max_concurrency: Optional[int] = None
    ) -> list[ActionReturn]:
        """Run several calls concurrently; the records come back in input order.

        Args:
            calls: ``(name, command)`` pairs or OpenAI-style tool calls.
            session_id: the session every call belongs to.
            max_concurrency: how many run at once (default: the executor's ``max_workers``).

        A failing or slow call delays no other call beyond its own timeout.
        """
        from ..runtime._pool import DaemonThreadPool

        jobs = [batch_job(call) for call in calls]
        if not jobs:
            return []
        pool = DaemonThreadPool(min(len(jobs), max_concurrency or self._max_workers), "lagent-like-batch")
        try:
            futures = [
                pool.submit(self, name, command, session_id, call_id) for name, command, call_id in jobs
            ]
            return [future.result() for future in futures]
        finally:
            pool.shutdown()

    def run_tool_calls(self, tool_calls: Any) -> list[dict[str, Any]]:
        """Run a model's tool calls and return one result per call, in order, in its provider's shape.

        Give the model's whole reply message (an OpenAI chat message dict or
        ``ChatCompletionMessage``, an Anthropic ``Message`` or ``{"role": "assistant",
        "content": [...]}``, an OpenAI Responses ``Response``, a Gemini ``Content``), or
        the list of its calls or content blocks, or one call; ``None`` (an OpenAI
        message's ``tool_calls`` when it made none) gives ``[]``. Calls are accepted as
        dicts or as the objects the official SDKs return:

        * OpenAI Chat Completions ``tool_calls``: ``{"id", "type": "function", "function":
          {"name", "arguments"}}`` (``arguments`` a JSON string or a dict); each result is
          ``{"role": "tool", "tool_call_id", "content"}``.
        * Anthropic content blocks (``message.content`` as it is): each ``tool_use`` block
          ``{"type": "tool_use", "id", "name", "input"}`` gets ``{"type": "tool_result",
          "tool_use_id", "content", "is_error"}``; text and thinking blocks are skipped.
        * OpenAI Responses ``function_call`` items get ``{"type": "function_call_output",
          "call_id", "output"}``.
        * Gemini parts: each ``{"functionCall": {"name", "args", "id"}}`` gets a
          ``{"functionResponse": {"name", "response": {"result": ...}}}`` part, the
          result as structured data (``{"error": text}`` for a failed call); text parts
          are skipped.

        The content is the result, or the error text for the model when the call failed.
        A malformed call gets an error result too. Messages name the tools by the
        aliases the model was given (``Kit__api``, not ``Kit.api``).

        Raises:
            TypeError: ``tool_calls`` is none of the above (a string, a number, a dict
                that is neither a message nor a call, a user message, ...).
        """
        calls = read_calls(tool_calls)
        with native_calls():  # messages name the tools as the model was given them
            records = [
                None if c.name is None else self(c.name, c.arguments, None, _id_text(c.id)) for c in calls
            ]
        self._named_as_given(records)
        return call_results(calls, records)


def __getattr__(name: str) -> Any:
    # Lagent 0.5 defines AsyncActionExecutor in this module; it lives in async_executor,
    # looked up on first access so that importing this module stays as it was.
    if name == "AsyncActionExecutor":
        from ._async_executor import AsyncActionExecutor

        return AsyncActionExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
