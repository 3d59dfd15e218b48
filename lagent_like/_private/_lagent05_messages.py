"""Lagent 0.5's messages: ``AgentMessage``, ``FunctionCall`` and the stream codes.

They are :mod:`lagent_like.schema`'s names (as in ``lagent.schema``) and are read from
there; they live here so that importing the schema (every program that runs a tool)
does not build them: ``lagent_like.schema`` imports this module when one of them is
first read (PEP 562). Each class names ``lagent_like.schema`` as its module, so that
reprs, pickles and the documentation are as when they were defined there.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import asdict, dataclass, replace
from typing import Any, Optional, Union

from .records import Code as _Code
from .records import field_eq, field_repr

__all__ = ["AgentMessage", "AgentStatusCode", "FunctionCall", "ModelStatusCode"]


@dataclass(init=False, repr=False, eq=False)
class FunctionCall:
    """A call a model asked for, as Lagent 0.5 passes it in an :class:`AgentMessage`.

    Attributes:
        name: ``'Tool'`` or ``'Tool.api'``.
        parameters: the arguments, a dict or the model's argument string.
    """

    name: str
    parameters: Union[dict[str, Any], str]

    # Written here rather than by @dataclass (see ActionReturn).
    def __init__(self, name: str, parameters: Union[dict[str, Any], str]) -> None:
        self.name = name
        self.parameters = parameters

    __repr__ = field_repr
    __eq__ = field_eq


class ModelStatusCode(_Code):
    """The state of a model's streamed reply (Lagent 0.5's codes)."""

    END = 0
    STREAM_ING = 1
    SERVER_ERR = -1
    SESSION_CLOSED = -2
    SESSION_OUT_OF_LIMIT = -3
    SESSION_INVALID_ARG = -4
    SESSION_READY = 2


class AgentStatusCode(_Code):
    """The state of an agent's streamed message (Lagent 0.5's codes)."""

    END = 0
    STREAM_ING = 1
    SERVER_ERR = -1
    SESSION_CLOSED = -2
    SESSION_OUT_OF_LIMIT = -3
    SESSION_INVALID_ARG = -4
    SESSION_READY = 2
    PLUGIN_START = 3
    PLUGIN_END = 4
    PLUGIN_RETURN = 5
    CODING = 6
    CODE_END = 7
    CODE_RETURN = 8


@dataclass(init=False, repr=False, eq=False)
class AgentMessage:
    """A message between Lagent 0.5 agents and executors; fields and defaults are Lagent's.

    Lagent 0.5 makes it a pydantic model; here it is a dataclass with the same fields,
    plus pydantic's ``model_dump``, ``model_copy`` and ``copy`` for code that calls them.

    Attributes:
        content: what the message says; for an executor, a :class:`FunctionCall` or
            ``{'name': ..., 'parameters': ...}``; in its reply, the :class:`ActionReturn`.
        sender: who sent it.
        formatted: the content as a parser read it (Lagent's ``ActionPreprocessor``
            reads the call from here).
        extra_info: anything else.
        type: the kind of message.
        receiver: who it is for.
        stream_state: a :class:`ModelStatusCode` or :class:`AgentStatusCode`.
    """

    content: Any
    sender: str = "user"
    formatted: Optional[Any] = None
    extra_info: Optional[Any] = None
    type: Optional[str] = None
    receiver: Optional[str] = None
    stream_state: Union[ModelStatusCode, AgentStatusCode, int] = AgentStatusCode.END

    # Written here rather than by @dataclass (see ActionReturn).
    def __init__(
        self,
        content: Any,
        sender: str = "user",
        formatted: Optional[Any] = None,
        extra_info: Optional[Any] = None,
        type: Optional[str] = None,
        receiver: Optional[str] = None,
        stream_state: Union[ModelStatusCode, AgentStatusCode, int] = AgentStatusCode.END,
    ) -> None:
        self.content = content
        self.sender = sender
        self.formatted = formatted
        self.extra_info = extra_info
        self.type = type
        self.receiver = receiver
        self.stream_state = stream_state

    __repr__ = field_repr
    __eq__ = field_eq

    def model_dump(self) -> dict[str, Any]:
        """Return the fields as a dict, nested dataclasses included (pydantic's name)."""
        return asdict(self)

    def model_copy(self, update: Optional[dict[str, Any]] = None, deep: bool = False) -> AgentMessage:
        """Return a copy with the fields in ``update`` replaced (pydantic's name).

        Args:
            update: field name -> new value.
            deep: copy the field values too.
        """
        source = deepcopy(self) if deep else self
        return replace(source, **(update or {}))

    def copy(self, *, update: Optional[dict[str, Any]] = None, deep: bool = False) -> AgentMessage:
        """Return a copy, as :meth:`model_copy` (pydantic 1's name, used in Lagent's examples).

        Args:
            update: field name -> new value.
            deep: copy the field values too.
        """
        return self.model_copy(update, deep)


# The schema's names, read from there (see the module's docstring).
for _message_type in (FunctionCall, ModelStatusCode, AgentStatusCode, AgentMessage):
    _message_type.__module__ = "lagent_like.schema"
