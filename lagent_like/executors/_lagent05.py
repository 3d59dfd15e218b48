"""Lagent 0.5's executor API on both executors: messages in, messages out, mapping methods.

Lagent 0.5 calls an executor with an ``AgentMessage`` whose content is the call
(``executor(message, session_id=0)``), answers with an ``AgentMessage`` holding the
``ActionReturn``, treats the executor as a mapping of tools (``keys()``, ``in``,
``executor[name] = action``, ``del executor[name]``), and runs hooks that see the
messages: ``before_action(executor, message, session_id)`` and
``after_action(executor, message, session_id)``, each returning a replacement message
or nothing. This module adds exactly that to the executors, apart from their own call
path: ``executor(name, command)`` never passes through here.

The package's own hooks take ``(name, args, context)``; a hook whose method's first
parameter is named ``executor`` (as in Lagent's ``Hook`` class) is a message hook and
runs around message calls only, in registration order, as Lagent runs it.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ..context import DEFAULT_SESSION
from ..exceptions import ToolDefinitionError
from ..runtime.hooks import Hook
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from ._find import ToolSearch
from ._intake import ToolLike

if TYPE_CHECKING:
    from ..schema import AgentMessage

__all__ = [
    "NO_COMMAND",
    "MessageApi",
    "MessageHookHandle",
    "call_id_of",
    "call_of",
    "created",
    "is_message",
    "is_message_hook",
    "message_session",
    "not_a_call",
    "replaced",
    "session_of",
]

_METHODS = ("before_action", "after_action")


class _NoCommand:
    """The default of ``command``: the call is a Lagent 0.5 message, or is missing its command."""

    def __repr__(self) -> str:
        return "NO_COMMAND"


#: ``executor(message)`` passes no command; ``executor(name)`` forgot it.
NO_COMMAND: Any = _NoCommand()


def _loaded(path: str) -> Any:
    """The object at dotted path ``path`` (``'package.module.Class'``), as Lagent's configs name it.

    Raises:
        ToolDefinitionError: nothing importable is at ``path``.
    """
    import importlib

    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ToolDefinitionError(
            "ActionExecutor", [f"config type {path!r} cannot be imported: {exc}"]
        ) from None


def created(config: Any) -> Any:
    """``config`` built when it is Lagent's ``dict(type=..., **kwargs)``, else ``config`` itself.

    As Lagent's ``create_object``: ``type`` is a class or a dotted path to one (called
    with the other keys), or another callable (given them with ``functools.partial``).

    Raises:
        ToolDefinitionError: a ``type`` path cannot be imported.
    """
    if not isinstance(config, dict) or "type" not in config:
        return config
    kwargs = dict(config)
    kind = kwargs.pop("type")
    if isinstance(kind, str):
        kind = _loaded(kind)
    if isinstance(kind, type):
        return kind(**kwargs)
    if callable(kind):
        import functools

        return functools.partial(kind, **kwargs)
    return config


def _takes_executor_first(method: Any) -> bool:
    """Whether ``method``'s first parameter is named ``executor`` (Lagent 0.5's hook methods)."""
    try:
        parameters = list(inspect.signature(method).parameters)
    except (TypeError, ValueError):
        return False
    return bool(parameters) and parameters[0] == "executor"


def is_message_hook(hook: Any) -> bool:
    """Whether ``hook`` is a Lagent 0.5 hook (see the module docstring).

    Raises:
        ToolDefinitionError: one method is written for messages and the other, overridden,
            for the package's ``(name, args, context)`` calls.
    """
    methods = {m: getattr(hook, m, None) for m in _METHODS}
    message_style = {m for m, f in methods.items() if callable(f) and _takes_executor_first(f)}
    if not message_style:
        return False
    for name in set(_METHODS) - message_style:
        own = getattr(type(hook), name, None)
        if own is not None and own is not getattr(Hook, name):
            raise ToolDefinitionError(
                f"{type(hook).__name__}.{name}",
                [
                    f"{sorted(message_style)[0]} takes (executor, message, session_id) as in Lagent 0.5 "
                    f"but {name} does not; write both methods one way"
                ],
            )
    return True


class MessageHookHandle:
    """The registration of a Lagent 0.5 hook; ``remove()`` ends it (Lagent's ``RemovableHandle``).

    Attributes:
        id: a number unique among registrations, as Lagent's handle has.
        hook: the registered hook.
    """

    _ids = itertools.count()

    def __init__(self, owner: MessageApi, hook: Any) -> None:
        self.id = next(self._ids)
        self.hook = hook
        self._owner = owner

    def remove(self) -> None:
        """Stop running the hook; calling it again does nothing."""
        self._owner._drop_message_hook(self)


#: Where Lagent 0.5's message types live once read (``lagent_like.schema`` builds them
#: on first read): until then no value can be one, and the executors do not import them.
_MESSAGES = "lagent_like._private._lagent05_messages"


def is_message(value: Any) -> bool:
    """Whether ``value`` is a Lagent 0.5 ``AgentMessage`` (never before the type is first read)."""
    messages = sys.modules.get(_MESSAGES)
    return messages is not None and isinstance(value, messages.AgentMessage)


def call_of(content: Any) -> Optional[tuple[Any, Any]]:
    """``(name, parameters)`` of a message's content, or ``None`` when it holds no call."""
    messages = sys.modules.get(_MESSAGES)
    if messages is not None and isinstance(content, messages.FunctionCall):
        return content.name, content.parameters
    if isinstance(content, dict) and "name" in content and "parameters" in content:
        return content["name"], content["parameters"]
    return None


def not_a_call(content: Any) -> ActionReturn:
    """The record answering a message whose content is no call (Lagent asserts instead)."""
    shown = type(content).__name__
    return ActionReturn(
        args={"inputs": content},
        errmsg=(
            f"The message holds no tool call (its content is a {shown}); expected a FunctionCall "
            "or a dict with 'name' and 'parameters'."
        ),
        state=ActionStatusCode.ARGS_ERROR,
        valid=ActionValidCode.INVALID,
    )


def message_session(command: Any, session_id: Any) -> Any:
    """The Lagent session id of ``executor(message, ...)``: given by position, by name, or ``0``."""
    if command is not NO_COMMAND:
        return command
    return 0 if session_id is None else session_id


def call_id_of(kwargs: dict[str, Any]) -> Optional[str]:
    """The ``call_id`` among ``forward``'s keyword arguments, if a text."""
    call_id = kwargs.get("call_id")
    return call_id if isinstance(call_id, str) else None


def session_of(session_id: Any) -> str:
    """The package's session of a Lagent session id: Lagent's default ``0`` is the default one."""
    if session_id is None or session_id == 0:
        return DEFAULT_SESSION
    return str(session_id)


class MessageApi(ToolSearch):
    """Lagent 0.5's API on an executor (the methods below); mixed into both executors.

    Args:
        actions: as :class:`~lagent_like.ActionExecutor`; Lagent's ``dict(type=Class,
            **kwargs)`` configs are built too.
        invalid_action: as :class:`~lagent_like.ActionExecutor`.
        no_action: as :class:`~lagent_like.ActionExecutor`.
        finish_action: as :class:`~lagent_like.ActionExecutor`.
        finish_in_action: as :class:`~lagent_like.ActionExecutor`.
        hooks: hooks to register at once (objects or ``dict(type=Class, **kwargs)``),
            the package's or Lagent 0.5's.
        **options: the keyword settings of :class:`~lagent_like.ActionExecutor`.
    """

    def __init__(
        self,
        actions: Union[ToolLike, Iterable[ToolLike], dict[str, Any]],
        invalid_action: Any = None,
        no_action: Any = None,
        finish_action: Any = None,
        finish_in_action: bool = False,
        hooks: Optional[Iterable[Any]] = None,
        **options: Any,
    ) -> None:
        self._message_hooks: tuple[MessageHookHandle, ...] = ()
        self._message_lock = threading.Lock()
        given: Any = actions
        if isinstance(actions, dict):
            given = [created(actions)]
        # A list's dict configs are built where the list is read (see _from_config): a
        # catalogue of thousands of tools is not gone over once more for them.
        super().__init__(
            given,
            created(invalid_action),
            created(no_action),
            created(finish_action),
            finish_in_action,
            **options,
        )
        for hook in hooks or ():
            self.register_hook(created(hook))

    def _from_config(self, item: dict[str, Any]) -> Any:
        """``item`` built when it is Lagent's ``dict(type=..., **kwargs)`` (see :func:`created`)."""
        return created(item)

    def register_hook(self, hook: Any) -> Any:
        """Run ``hook`` around every call from now on; ``handle.remove()`` stops it.

        A hook with ``before_action(name, args, context)`` / ``after_action(name, record,
        context)`` runs around every call (the hooks of this package). A
        Lagent 0.5 hook, whose methods take ``(executor, message, session_id)``, runs
        around message calls (``executor(AgentMessage(...))``) as in Lagent: what a method
        returns, when truthy, replaces the message.

        Raises:
            TypeError: ``hook`` is a class rather than an instance, or has neither method.
            ToolDefinitionError: a method cannot take the arguments it is called with.
        """
        if not isinstance(hook, type) and is_message_hook(hook):
            handle = MessageHookHandle(self, hook)
            with self._message_lock:
                self._message_hooks = (*self._message_hooks, handle)
            return handle
        return super().register_hook(hook)

    def _drop_message_hook(self, handle: MessageHookHandle) -> None:
        with self._message_lock:
            self._message_hooks = tuple(h for h in self._message_hooks if h is not handle)

    def _message_hook_methods(self, name: str) -> list[Callable[..., Any]]:
        """The hooks' ``name`` methods written for messages, in registration order."""
        methods = (getattr(h.hook, name, None) for h in self._message_hooks)
        return [m for m in methods if callable(m) and _takes_executor_first(m)]

    def description(self) -> list[dict[str, Any]]:
        """Return the tools' descriptions for a system prompt (Lagent 0.5's name of ``get_actions_info``)."""
        return self.get_actions_info()

    def keys(self) -> list[str]:
        """Return the names of the actions held, as Lagent 0.5's executor lists them."""
        return list(self.actions)

    def __setitem__(self, name: str, action: Any) -> None:
        """Add or replace an action (a ``dict(type=Class, **kwargs)`` config is built first).

        Raises:
            ToolDefinitionError: ``name`` is not the action's own name (Lagent would file
                it under its own name silently), or ``action`` is not a tool.
        """
        tool = created(action)
        own = getattr(tool, "name", None)
        if own is not None and own != name:
            raise ToolDefinitionError(
                type(self).__name__,
                [f"executor[{name!r}] = an action named {own!r}: the key must be the action's name"],
            )
        self.add_action(tool)

    def __delitem__(self, name: str) -> None:
        """Remove the action called ``name``.

        Raises:
            ToolNotFoundError: no action has that name (a ``KeyError``).
        """
        self.del_action(name)

    def _reply(self, record: Any) -> AgentMessage:
        """The message answering a call: the record as content, sent by the executor's class."""
        from ..schema import AgentMessage  # built by the message that came in

        if isinstance(record, AgentMessage):
            return record
        return AgentMessage(sender=type(self).__name__, content=record)


def replaced(result: Any, current: Any) -> Any:
    """What a Lagent hook's result makes the message: a truthy result replaces it."""
    return result if result else current
