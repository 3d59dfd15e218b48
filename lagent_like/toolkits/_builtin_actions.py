"""The three actions every executor has: invalid, no action, and finish.

The executor routes a call here when the model names a tool that does not exist
(``InvalidAction``), names none at all (``NoAction``), or gives its final answer
(``FinishAction``). Their ``valid`` codes tell the agent loop what happened.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from .._private.text import preview
from ..parsers import BaseParser
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from ._base_action import BaseAction, tool_api

__all__ = ["FinishAction", "InvalidAction", "NoAction"]


class _RefusalAction(BaseAction, register=False):
    """Shared by the actions that answer a call no tool can serve.

    Args:
        err_msg: the message used when the call gives none.
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`; the raw input becomes ``err_msg``.
    """

    #: The message used when neither the call nor the constructor gives one.
    DEFAULT_MESSAGE = ""

    def __init__(
        self,
        err_msg: Optional[str] = None,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = BaseParser,
    ) -> None:
        # Disabled, as in Lagent: the executor calls it itself, it is never offered.
        super().__init__(description, parser, enable=False)
        self._err_msg = err_msg if err_msg is not None else self.DEFAULT_MESSAGE

    # The docstrings of run are Lagent's, so that the descriptions are byte-identical.
    @tool_api
    def run(self, err_msg: Optional[str] = None) -> ActionReturn:
        """Return the error message.

        Args:
            err_msg (str, optional): The error message. If err_msg is not None,
                it will be returned, otherwise the default error message will
                be returned. Defaults to None.
        """
        return ActionReturn(
            args={"text": err_msg},
            type=self.name,
            errmsg=_as_message(err_msg) if err_msg else self._err_msg,
            valid=ActionValidCode.INVALID,
            state=ActionStatusCode.API_ERROR,
        )


class InvalidAction(_RefusalAction):
    """Answers a call to a tool that does not exist or is disabled."""

    DEFAULT_MESSAGE = "The action is invalid, please check the action name."


class NoAction(_RefusalAction):
    """Answers a model turn that named no tool."""

    DEFAULT_MESSAGE = "Please follow the format"


def _final_text(response: Any) -> str:
    # Function-calling models send {"response": ...}; ReAct models send the text itself.
    if isinstance(response, str) and response.lstrip().startswith("{"):
        try:
            response = json.loads(response)
        except (ValueError, RecursionError):
            return str(response)
    if isinstance(response, dict) and "response" in response and len(response) == 1:
        response = response["response"]
    return _as_message(response)


def _as_message(value: Any) -> str:
    """Text for a record: strings as they are, anything else as JSON (or its repr)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return preview(value)


class FinishAction(BaseAction):
    """Ends the episode with the model's final answer.

    Args:
        description: see :class:`BaseAction`.
        parser: see :class:`BaseAction`; the raw input becomes ``response``.
    """

    def __init__(
        self, description: Optional[dict[str, Any]] = None, parser: type[BaseParser] = BaseParser
    ) -> None:
        super().__init__(description, parser)

    @tool_api
    def run(self, response: str) -> ActionReturn:
        """Return the final result.

        Args:
            response (str): The final result.
        """
        text = _final_text(response)
        return ActionReturn(
            args={"text": text},
            type=self.name,
            result=[{"type": "text", "content": text}],
            valid=ActionValidCode.FINISH,
            state=ActionStatusCode.SUCCESS,
        )
