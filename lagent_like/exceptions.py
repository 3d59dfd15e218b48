"""Every exception the package raises on purpose, in one tree.

Two kinds of mistakes reach this package and they go to different people:

* a programmer's mistake (a bad tool definition, a registry name clash, an unknown
  tool name in code) is raised where it is made, with a message naming the class and
  method, so it is fixed before any model sees the tool;
* a model's mistake (an argument string that cannot be parsed or does not match the
  tool) is never raised out of an action or the executor: it becomes an
  :class:`~lagent_like.ActionReturn` whose ``errmsg`` tells the model what to fix.

::

    LagentLikeError
    ├── DefinitionError            raised to the programmer (also a ValueError)
    │   ├── ToolDefinitionError    bad @tool_api function or BaseAction subclass
    │   ├── RegistryError          a tool name taken by a different class
    │   └── ToolNotFoundError      unknown name in the registry (also a KeyError)
    ├── ModelClientError           raised to the caller of a model client (OpenAIChat)
    │   ├── ModelConnectionError   no answer from the server, after every retry
    │   │   └── ModelTimeoutError  the server took longer than the client's timeout
    │   ├── ModelHTTPError         an error status (4xx at once; 429 and 5xx after retries)
    │   └── ModelResponseError     a success status whose body is not a chat completion
    ├── ModelInputError            turned into an ActionReturn, never raised to callers
    │   ├── ParseError             arguments unparsable or not matching the API
    │   └── ArgumentError          one argument refused by its type or schema
    ├── ToolError                  raised by a tool: its message is written for the model
    │   └── TransientToolError     a failure worth retrying (rate limit, flaky network)
    ├── SandboxUnavailableError    an interpreter cannot isolate code here (also a RuntimeError)
    └── GuardrailTripwire          raised by a hook: halts the call and the agent run

The package's internal signals (a failed HTTP request, a refused address, a timed-out
call, a command line or inspector error, ...) derive from ``LagentLikeError`` too; they
are caught inside and become a record, a message or an exit status, never raised to you.

A third kind comes from tools themselves: a tool raises :class:`ToolError` with a
message meant for the model (the call's ``errmsg`` is exactly that message), or
:class:`TransientToolError` when trying again may succeed, which retry policies honour.

A doubtful definition that still works (a docstring entry without a colon, a documented
parameter the function lacks, an unknown section) is not raised: it is a
:class:`DefinitionWarning` (a ``UserWarning``) naming the function, and a finding of
``lagent-like lint``.

A fourth kind comes from the model server an agent talks to: the model client retries
what may pass (no connection, a timeout, HTTP 429 and 5xx) by itself, and raises a
:class:`ModelClientError` to its caller once it gives up or the server refuses the
request outright. Its messages never quote the API key.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .types._families import Refusal

__all__ = [
    "ArgumentError",
    "DefinitionError",
    "DefinitionWarning",
    "GuardrailTripwire",
    "LagentLikeError",
    "ModelClientError",
    "ModelConnectionError",
    "ModelHTTPError",
    "ModelInputError",
    "ModelResponseError",
    "ModelTimeoutError",
    "ParseError",
    "RegistryError",
    "SandboxUnavailableError",
    "ToolDefinitionError",
    "ToolError",
    "ToolNotFoundError",
    "TransientToolError",
]


class LagentLikeError(Exception):
    """Root of every exception raised on purpose by ``lagent_like``."""


class DefinitionError(LagentLikeError, ValueError):
    """A programmer's mistake, raised where it is made (definition time)."""


class DefinitionWarning(UserWarning):
    """A tool definition was read as well as possible, but something in it is doubtful.

    The message names the function and says how it was read. Filter it like any
    warning: ``warnings.simplefilter("ignore", DefinitionWarning)``.
    """


class ToolDefinitionError(DefinitionError):
    """A ``@tool_api`` function or ``BaseAction`` subclass that cannot be described.

    All problems found in one definition are listed in one message.

    Attributes:
        owner: what was being defined, e.g. ``'Calc.add'`` or ``'Calc'``.
        problems: every problem found, one sentence each.
    """

    def __init__(self, owner: str, problems: Iterable[str]) -> None:
        self.owner = owner
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = f"{owner}: {self.problems[0]}"
        else:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            text = f"{owner}: {len(self.problems)} problems:\n{lines}"
        super().__init__(text)


class RegistryError(DefinitionError):
    """A tool name is already registered by a different class."""


class ToolNotFoundError(DefinitionError, KeyError):
    """No tool has the requested name (in the registry, or in an executor).

    Attributes:
        name: the name that was asked for.
        suggestions: registered names close to it.
    """

    def __init__(self, name: str, suggestions: Iterable[str] = (), where: str = "in the registry") -> None:
        self.name = name
        self.suggestions = list(suggestions)
        text = f"no tool named {name!r} {where}"
        if self.suggestions:
            text += "; did you mean " + " or ".join(repr(s) for s in self.suggestions) + "?"
        super().__init__(text)

    def __str__(self) -> str:
        # KeyError would show the repr of the message; a user wants the sentence.
        return str(self.args[0])


class ModelClientError(LagentLikeError):
    """A model server could not give a chat completion; raised to the client's caller.

    Attributes:
        url: the endpoint that was asked (``.../chat/completions``), without credentials.
        attempts: how many requests were made before giving up (at least 1).
    """

    def __init__(self, message: str, *, url: str, attempts: int) -> None:
        self.url = url
        self.attempts = attempts
        super().__init__(message)


class ModelConnectionError(ModelClientError):
    """No answer from the model server (refused, reset, unresolvable), after every retry."""


class ModelTimeoutError(ModelConnectionError):
    """The model server did not answer within the client's timeout, after every retry.

    Attributes:
        timeout: the seconds allowed for connecting and for each read.
    """

    def __init__(self, message: str, *, url: str, attempts: int, timeout: float) -> None:
        self.timeout = timeout
        super().__init__(message, url=url, attempts=attempts)


class ModelHTTPError(ModelClientError):
    """The model server answered with an error status.

    A 4xx other than 429 is raised at once (``attempts == 1``): asking again cannot
    help. A 429 or 5xx is raised once the retries are spent.

    Attributes:
        status: the HTTP status code of the last answer.
        server_message: what the server said, from an OpenAI-style
            ``{"error": {"message": ...}}`` body or the plain-text body (may be empty).
        retry_after: the seconds the last answer's ``Retry-After`` header asked to
            wait, or ``None`` when it had none.
    """

    def __init__(
        self,
        message: str,
        *,
        url: str,
        attempts: int,
        status: int,
        server_message: str,
        retry_after: Optional[float] = None,
    ) -> None:
        self.status = status
        self.server_message = server_message
        self.retry_after = retry_after
        super().__init__(message, url=url, attempts=attempts)


class ModelResponseError(ModelClientError):
    """A success status whose body is not a chat completion (not JSON, no ``choices``...).

    Also raised for an error the server reports inside a stream after a 200 status.
    """


class ModelInputError(LagentLikeError):
    """Input written by a model that a tool cannot accept.

    Actions and the executor catch these and return them as ``ActionReturn`` records; a
    model reads the message, so it says what was expected and what arrived.
    """


class ParseError(ModelInputError):
    """The argument string could not be parsed, or does not fit the API.

    Attributes:
        err_msg: the message for the model (Lagent's attribute name).
    """

    def __init__(self, err_msg: str) -> None:
        self.err_msg = err_msg
        super().__init__(err_msg)


class ArgumentError(ModelInputError):
    """One argument does not fit its parameter's type or schema.

    What a validator (``BaseAction.argument_checks``) raises; a tool's own validator
    raises it too, and the parsers report it like a refusal of the built-in checks.

    Attributes:
        expected: what was expected, in JSON words (``'integer'``, ``"one of ['C', 'F']"``).
        value: what arrived.
        path: where inside the argument, e.g. ``'[2]'`` or ``'.city'`` (empty at the top).
        parts: the refusals of several fields at once (a pydantic model's), said instead.
    """

    def __init__(self, expected: str, value: object, path: str = "", parts: tuple[Refusal, ...] = ()) -> None:
        super().__init__(expected)
        self.expected = expected
        self.value = value
        self.path = path
        self.parts = parts


class ToolError(LagentLikeError):
    """Raised by a tool to tell the model what went wrong, in the model's terms.

    The call becomes ``API_ERROR`` with ``errmsg`` exactly ``message`` (no exception
    type prefixed), unlike other exceptions, which are summarised as ``'Type: message'``.

    Attributes:
        message: the text for the model.
    """

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class TransientToolError(ToolError):
    """A :class:`ToolError` for a failure that may pass: retry policies try again."""


class GuardrailTripwire(LagentLikeError):
    """Raised by a hook (a guardrail) to halt: the call fails and the agent run stops.

    Any other exception from a hook fails the call closed and the model is told; a
    tripwire goes through the executor to its caller (the OpenAI Agents SDK's
    guardrail tripwire): the tool is not run (from ``before_action``) or its result is
    withheld (from ``after_action``), and :class:`~lagent_like.agents.ReAct` ends the
    run with ``stop_reason='tripwire'`` and the message as the reason.

    Args:
        reason: why the guardrail tripped, for the person reading the trace.
        info: anything else the guardrail wants to report (kept as ``self.info``).
    """

    def __init__(self, reason: str, info: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.info = info


class SandboxUnavailableError(LagentLikeError, RuntimeError):
    """An interpreter cannot isolate model-written code here (no bubblewrap, no namespaces).

    The message names what is missing and the explicit, unsafe opt-in
    ``isolation="process"``.
    """
