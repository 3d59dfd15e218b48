"""What a hook's answer makes of a call's record.

Why: a hook answers with ``None`` (go on), with a record, with a plain value (the
tool's return value in its place, as Google ADK's tool callbacks do) or by raising
(the call fails closed). Each answer becomes a record here, in one place, so the call
core only asks whether a hook answered at all: the common ``None`` costs one
comparison per hook.
"""

from __future__ import annotations

from typing import Any, Optional

from .._private.log import logger
from ..exceptions import ToolError
from ..schema import ActionReturn, ActionStatusCode
from ._invoke import Route, adopt, record

__all__ = ["HookFailed", "after_answered", "before_answered"]

#: A record and the value it was made from (``None`` when it was made from none).
Answered = tuple[ActionReturn, Any]


class HookFailed:
    """A driver's answer for a hook method that raised: the call fails closed.

    Attributes:
        error: what the hook raised.
    """

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


def _failure(
    route: Route,
    args: dict[str, Any],
    error: Exception,
    outcome: str,
    attempts: int = 1,
    repairs: Optional[list[str]] = None,
) -> ActionReturn:
    """The record of a call a hook failed: its ``ToolError`` message, or ``outcome`` and the error."""
    if isinstance(error, ToolError):
        # A message for the model, raised on purpose (a guard refusing a call): no fault.
        message = error.message
    else:
        logger().warning("%s", outcome, exc_info=error)
        message = f"{outcome}: {type(error).__name__}: {error}"
    return ActionReturn(
        args, None, route.tool, None, message, ActionStatusCode.API_ERROR, attempts=attempts, repairs=repairs
    )


def before_answered(
    route: Route, args: dict[str, Any], repairs: Optional[list[str]], answer: Any, label: str
) -> Answered:
    """The record of a call that the ``before_action`` ``label`` answered (not ``None``)."""
    if isinstance(answer, ActionReturn):
        return adopt(route, answer), answer
    if type(answer) is HookFailed:
        outcome = f"{route.label} did not run: the hook {label} failed"
        return _failure(route, args, answer.error, outcome, repairs=repairs), None
    # A value in place of the tool's return value, rendered as that would be.
    return record(route, args, answer, repairs=repairs), answer


def after_answered(route: Route, ret: ActionReturn, answer: Any, label: str) -> Answered:
    """The record after the ``after_action`` ``label`` answered (not ``None``) on ``ret``."""
    if isinstance(answer, ActionReturn):
        return adopt(route, answer), answer
    args = ret.args if ret.args is not None else {}
    if type(answer) is HookFailed:
        # Fail closed: the hook may have been there to redact or check the result.
        outcome = f"the result of {route.label} was withheld: the hook {label} failed"
        return _failure(route, args, answer.error, outcome, ret.attempts, ret.repairs), None
    return record(route, args, answer, attempts=ret.attempts, repairs=ret.repairs), answer
