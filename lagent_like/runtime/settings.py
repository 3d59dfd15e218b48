"""``ToolSettings``: a tool's runtime settings, in a namespace of their own.

An executor runs every call under a timeout, a retry policy, a circuit breaker and,
on the async executor, in a worker thread or inline. A tool may set its own values,
but only here: through ``Tool(timeout=...)`` or a class attribute
``__tool_settings__ = ToolSettings(...)``. A tool's ordinary attributes are its own:
a tool whose ``__init__`` sets ``self.timeout`` (its own time limit for a
subprocess, say) or ``self.retry = 3`` is not read as an executor setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._private.records import (
    field_eq,
    field_hash,
    field_repr,
    frozen_delattr,
    frozen_setattr,
    mark_frozen,
)
from ..types._families import mode_problem

__all__ = ["UNSET", "ToolSettings"]


class _Unset:
    """Type of :data:`UNSET`."""

    def __repr__(self) -> str:
        return "UNSET"

    def __reduce__(self) -> str:
        return "UNSET"  # one object, also after pickling


#: A runtime setting a tool leaves to its executor.
UNSET: Any = _Unset()


@mark_frozen
@dataclass(init=False, repr=False, eq=False)
class ToolSettings:
    """The runtime settings of one tool; a field left :data:`UNSET` is the executor's.

    Set them on an instance with the constructor keywords (``Tool(timeout=5)``), or for
    a class with ``__tool_settings__ = ToolSettings(timeout=5)``; the constructor
    keywords win over the class's. To change a tool's settings later, assign a new
    object (``tool.__tool_settings__ = ToolSettings(timeout=1)``) and call the
    executor's ``refresh()``.

    Attributes:
        timeout: seconds before a call is abandoned (``TIMEOUT``), ``None`` for no limit.
        retry: a :class:`~lagent_like.RetryPolicy`, or ``None`` for no retries.
        circuit_breaker: a factory of :class:`~lagent_like.CircuitBreaker`
            (one breaker per API), or ``None`` for none.
        blocking: ``False`` runs a cheap sync API inline on an async executor's loop
            instead of in a worker thread.
        validation: how arguments are checked: ``"coerce"``, ``"strict"`` or ``"off"``
            (``@tool_api(validation=...)`` overrides it per API).
    """

    timeout: Any = UNSET
    retry: Any = UNSET
    circuit_breaker: Any = UNSET
    blocking: bool = True
    validation: Any = UNSET

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        timeout: Any = UNSET,
        retry: Any = UNSET,
        circuit_breaker: Any = UNSET,
        blocking: bool = True,
        validation: Any = UNSET,
    ) -> None:
        object.__setattr__(self, "timeout", timeout)
        object.__setattr__(self, "retry", retry)
        object.__setattr__(self, "circuit_breaker", circuit_breaker)
        object.__setattr__(self, "blocking", blocking)
        object.__setattr__(self, "validation", validation)
        self.__post_init__()

    __repr__ = field_repr
    __eq__ = field_eq
    __hash__ = field_hash
    # Frozen: as @dataclass(frozen=True) would make it, without compiling at import.
    __setattr__ = frozen_setattr
    __delattr__ = frozen_delattr

    def __post_init__(self) -> None:
        problems = []
        mode = None if self.validation is UNSET else mode_problem(self.validation)
        if mode is not None:
            problems.append(mode)
        timeout = self.timeout
        numeric = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
        if timeout is not UNSET and timeout is not None and not (numeric and timeout > 0):
            problems.append(f"timeout must be a positive number of seconds or None, got {timeout!r}")
        retry = self.retry
        if retry is not UNSET and retry is not None and not callable(getattr(retry, "should_retry", None)):
            problems.append(f"retry must be a RetryPolicy or None, got {retry!r}")
        breaker = self.circuit_breaker
        if breaker is not UNSET and breaker is not None and not callable(breaker):
            problems.append(
                f"circuit_breaker must be a factory of CircuitBreaker (a function of no arguments) "
                f"or None, got {breaker!r}"
            )
        if problems:
            from ..exceptions import ToolDefinitionError

            raise ToolDefinitionError("ToolSettings", problems)
