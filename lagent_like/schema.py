"""The record every tool call produces: :class:`ActionReturn` and its status codes.

Lagent's agents read these fields, so names, defaults and code values are Lagent's.
The record is plain data and round-trips through JSON-able dicts, so traces can be
stored and replayed. Lagent 0.5's messages (:class:`AgentMessage`,
:class:`FunctionCall`) and stream codes are read from here too, as in ``lagent.schema``,
as plain dataclasses (Lagent 0.5 code runs without pydantic); they are built on first
read (``lagent_like._private._lagent05_messages``), since most programs never use them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Optional, Union

from ._private.json_values import json_value
from ._private.records import Code as _Code
from ._private.records import field_eq, field_repr

if TYPE_CHECKING:  # read on first use (__getattr__ below)
    from ._private._lagent05_messages import AgentMessage, AgentStatusCode, FunctionCall, ModelStatusCode

__all__ = [
    "ActionReturn",
    "ActionStatusCode",
    "ActionValidCode",
    "AgentMessage",
    "AgentStatusCode",
    "FunctionCall",
    "ModelStatusCode",
]


class ActionStatusCode(_Code):
    """How a call ended. Lagent's codes, then this package's extensions below ``API_ERROR``."""

    ING = 1
    SUCCESS = 0
    HTTP_ERROR = -1000
    ARGS_ERROR = -1001
    API_ERROR = -1002
    #: The tool did not answer within its timeout.
    TIMEOUT = -1003
    #: A hook held the call back until someone approves it.
    APPROVAL_REQUIRED = -1004


class ActionValidCode(_Code):
    """Whether the model asked for a tool that exists and is enabled."""

    FINISH = 1
    OPEN = 0
    CLOSED = -1
    INVALID = -2
    ABSENT = -3


def _code(enum: type[IntEnum], value: int) -> Union[IntEnum, int]:
    # Codes added by extensions are kept as plain ints instead of failing.
    try:
        return enum(value)
    except ValueError:
        return value


@dataclass(init=False, repr=False, eq=False)
class ActionReturn:
    """The outcome of one tool call.

    Attributes:
        args: the parsed arguments; for unparsable input, ``{'inputs': <raw>, 'name': <api>}``.
        url: a link to the source of the result, if any.
        type: the name of the tool that answered.
        result: the output as ``[{'type': 'text', 'content': ...}, ...]``; ``None`` on error.
        errmsg: what went wrong, written for the model; ``None`` on success.
        state: an :class:`ActionStatusCode` (or an extension's int code).
        thought: the model's reasoning that led to the call, if the agent records it.
        valid: an :class:`ActionValidCode`.
        attempts: how many attempts the call made (more than 1 after retries; 1 also
            for a call answered before reaching the tool, e.g. invalid arguments).
        full_result: the uncut result when an output cap shortened ``result``, else ``None``.
        repairs: what had to be repaired before the arguments could be read, in plain
            words (``"removed code fence"``, ``"single quotes"``, ``"trailing comma"``,
            ``"Python literal True"``, ...); ``None`` when nothing was repaired.
    """

    args: Optional[dict[str, Any]] = None
    url: Optional[str] = None
    type: Optional[str] = None
    result: Optional[list[dict[str, Any]]] = None
    errmsg: Optional[str] = None
    state: Union[ActionStatusCode, int] = ActionStatusCode.SUCCESS
    thought: Optional[str] = None
    valid: Union[ActionValidCode, int] = ActionValidCode.OPEN
    attempts: int = 1
    full_result: Optional[list[dict[str, Any]]] = None
    repairs: Optional[list[str]] = None

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        args: Optional[dict[str, Any]] = None,
        url: Optional[str] = None,
        type: Optional[str] = None,
        result: Optional[list[dict[str, Any]]] = None,
        errmsg: Optional[str] = None,
        state: Union[ActionStatusCode, int] = ActionStatusCode.SUCCESS,
        thought: Optional[str] = None,
        valid: Union[ActionValidCode, int] = ActionValidCode.OPEN,
        attempts: int = 1,
        full_result: Optional[list[dict[str, Any]]] = None,
        repairs: Optional[list[str]] = None,
    ) -> None:
        self.args = args
        self.url = url
        self.type = type
        self.result = result
        self.errmsg = errmsg
        self.state = state
        self.thought = thought
        self.valid = valid
        self.attempts = attempts
        self.full_result = full_result
        self.repairs = repairs

    __repr__ = field_repr
    __eq__ = field_eq

    def format_result(self) -> str:
        """Render the result for a model's observation.

        Text items are joined with newlines; other items (images, files) become
        ``[type](content)``. As in Lagent, only ``result`` is rendered: a failed call
        renders as ``""`` and its message is ``errmsg``.
        """
        parts = []
        for item in self.result or ():
            if item.get("type") == "text":
                parts.append(str(item.get("content", "")))
            else:
                parts.append(f"[{item.get('type')}]({item.get('content')})")
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-able dict; codes become plain ints.

        ``repairs`` appears only when something was repaired, so records of clean calls
        keep the shape they always had. Whatever a tool or hook put in the record is
        given as JSON (an ``Enum`` as its value, a dataclass as its dict, anything
        without a JSON form as its text), so the dict always serializes.
        """
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        if data["repairs"] is None:
            del data["repairs"]
        for key in ("args", "url", "type", "result", "errmsg", "thought", "full_result"):
            data[key] = json_value(data[key])
        data["state"] = int(self.state)
        data["valid"] = int(self.valid)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ActionReturn:
        """Rebuild a record from :meth:`to_dict` output.

        Raises:
            TypeError: ``data`` has keys that are not fields of ``ActionReturn``.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TypeError(
                f"ActionReturn.from_dict: unknown keys {unknown}; expected some of {sorted(known)}"
            )
        values = dict(data)
        if "state" in values:
            values["state"] = _code(ActionStatusCode, values["state"])
        if "valid" in values:
            values["valid"] = _code(ActionValidCode, values["valid"])
        return cls(**values)


#: Lagent 0.5's names, built on first read (PEP 562).
_LAGENT05 = ("AgentMessage", "AgentStatusCode", "FunctionCall", "ModelStatusCode")


def __getattr__(name: str) -> Any:
    """Lagent 0.5's message types, imported when one is first read.

    All four are kept in the module once read, so that annotations naming them resolve
    here (``typing.get_type_hints(AgentMessage)``).

    Raises:
        AttributeError: ``name`` is not one of them.
    """
    if name not in _LAGENT05:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ._private import _lagent05_messages as messages

    for each in _LAGENT05:
        globals()[each] = getattr(messages, each)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
