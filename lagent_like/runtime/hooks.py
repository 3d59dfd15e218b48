"""Hooks: code that runs around every tool call an executor makes.

Agents need to act on calls without changing the tools themselves: ask a person
before a tool with side effects runs, redact or rewrite a result, log, count, or
turn a raw error into advice for the model. A hook does that from the outside.
This module defines what a hook is (:class:`Hook`), the ordered, thread-safe list
an executor keeps them in (:class:`HookList`, :class:`HookHandle`), and the hook
most agents want first, :class:`ApprovalHook`.

The contract the executor follows (the meaning of Google ADK's tool callbacks):

* ``before_action(name, args, context)`` runs before the tool. ``name`` is the
  canonical ``'Tool.api'`` (or ``'Tool'``) name, ``args`` the validated arguments,
  ``context`` the call's :class:`~lagent_like.ToolContext` (opaque here).
  Returning ``None`` lets the call go on. Returning anything else answers the call
  instead of the tool, which is then not called: an
  :class:`~lagent_like.ActionReturn` is the record, any other value (a dict, a
  string, any JSON value) is rendered as if the tool had returned it.
* ``after_action(name, action_return, context)`` runs after the tool (or after an
  early answer). Returning ``None`` keeps the record; returning an ``ActionReturn``
  replaces it, and any other value replaces the result as if the tool had returned
  it, for the hooks that follow and for the caller. A method with a parameter named
  ``output`` also receives, as ``output=``, the value the record was made from: what
  the tool returned (or what an earlier hook returned in its place), ``None`` when
  the record was made from no value (an argument error, an exception, a timeout).
* Either method may be ``async def`` or return an awaitable: the async executor
  awaits it; the sync executor runs it to completion.
* A hook that raises fails closed: the call is answered with an ``API_ERROR`` record
  naming the hook and the error (a ``before_action``: the tool does not run; an
  ``after_action``: the tool's result is withheld). A hook that raises
  :class:`~lagent_like.ToolError` answers with its message, as a tool would.
  A hook that raises :class:`~lagent_like.GuardrailTripwire` halts instead:
  the exception goes to the executor's caller (an agent ends its run).
* Hooks run in registration order. The executor iterates a
  :meth:`HookList.snapshot`, so adding or removing hooks while a call runs
  affects the next call only. A method whose signature cannot take these
  arguments is refused when the hook is registered (``ToolDefinitionError``).

Importing this module is inert and does not import :mod:`asyncio`.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, Optional, Union

from ..exceptions import ToolDefinitionError
from ..schema import ActionReturn, ActionStatusCode

__all__ = ["ApprovalHook", "Hook", "HookCall", "HookHandle", "HookList", "HookResult", "read_hook"]

#: What a hook method returns: ``None``, a record, any other value that answers or
#: replaces the result, or an awaitable of one of these.
HookResult = Any

_HOOK_METHODS = ("before_action", "after_action")
#: How the executor calls each method, for the message of one that cannot take it.
_CALLED_AS = {
    "before_action": "before_action(name, args, context)",
    "after_action": "after_action(name, action_return, context)",
}
_PLACEHOLDERS = ("name", "args", "context")


class HookCall(NamedTuple):
    """One hook method, read when its hook was registered.

    Attributes:
        method: the method to call.
        label: ``'Class.method'``, naming the hook in the record of a call it failed.
        output: the method takes the record's source value as ``output=`` (an
            ``after_action`` with a parameter named ``output``).
    """

    method: Callable[..., Any]
    label: str
    output: bool = False


def _read_method(hook: Any, method_name: str) -> Optional[HookCall]:
    """The checked call of ``hook``'s method ``method_name``, or ``None`` if it has none."""
    method = getattr(hook, method_name, None)
    if method is None:
        return None
    label = f"{type(hook).__name__}.{method_name}"
    if not callable(method):
        raise ToolDefinitionError(label, [f"must be a method, got {type(method).__qualname__}"])
    from .._private.signatures import refusal, signature_of  # hooks only: most programs add none

    signature = signature_of(method)
    # An 'output' parameter is there to receive the output: if it cannot by keyword (it
    # would take the context instead), that is a mistake, not a method without one.
    takes_output = (
        method_name == "after_action" and signature is not None and "output" in signature.parameters
    )
    called_as = _CALLED_AS[method_name]
    if takes_output:
        called_as = "after_action(name, action_return, context, output=...)"
        problem = refusal(signature, *_PLACEHOLDERS, output=None)
    else:
        problem = refusal(signature, *_PLACEHOLDERS)
    if problem is not None:
        raise ToolDefinitionError(label, [f"cannot be called as {called_as}: {problem}"])
    return HookCall(method, label, takes_output)


def read_hook(hook: Any) -> tuple[Optional[HookCall], Optional[HookCall]]:
    """The ``before_action`` and ``after_action`` calls of ``hook`` (``None`` for a missing one).

    Raises:
        TypeError: ``hook`` is a class rather than an instance, or has neither method.
        ToolDefinitionError: a method is not callable, or cannot be called with the
            arguments the executor passes.
    """
    if isinstance(hook, type):
        raise TypeError(
            f"HookList.add: got the class {hook.__qualname__}, not an instance; "
            f"register {hook.__qualname__}() instead"
        )
    if not any(callable(getattr(hook, method, None)) for method in _HOOK_METHODS):
        raise TypeError(
            f"HookList.add: a {type(hook).__qualname__} object is not a hook; a hook needs a "
            f"'before_action' or an 'after_action' method (or both), e.g. a subclass of "
            f"lagent_like.Hook"
        )
    return _read_method(hook, "before_action"), _read_method(hook, "after_action")


class Hook:
    """Base class for hooks: both methods do nothing; override one or both.

    Subclassing is optional: any object with a ``before_action`` or an
    ``after_action`` method (or both) is a hook. Overrides may be ``async def``.
    """

    def before_action(self, name: str, args: dict[str, Any], context: Any) -> HookResult:
        """Run before the tool is called.

        Args:
            name: the canonical ``'Tool.api'`` (or ``'Tool'``) name of the call.
            args: the validated arguments the tool will receive.
            context: the call's ``ToolContext`` (may be ``None``).

        Returns:
            ``None`` to let the call go on; anything else answers the call instead of
            the tool (the tool is then not called): an ``ActionReturn`` is the record,
            another value is rendered as the tool's return value would be. Or an
            awaitable resolving to one of these.
        """
        return None

    def after_action(self, name: str, action_return: ActionReturn, context: Any) -> HookResult:
        """Run after the tool has answered (or a ``before_action`` short-circuited).

        Args:
            name: the canonical ``'Tool.api'`` (or ``'Tool'``) name of the call.
            action_return: the record so far (possibly already replaced by an
                earlier hook).
            context: the call's ``ToolContext`` (may be ``None``).

        Returns:
            ``None`` to keep ``action_return``; an ``ActionReturn`` replacing it; any
            other value replacing the result, rendered as the tool's return value
            would be. Or an awaitable resolving to one of these.

        An override may add a parameter named ``output``: it then receives the value
        the record was made from (what the tool returned), ``None`` when there was
        none (an argument error, an exception, a timeout).
        """
        return None


class HookHandle:
    """One registration of a hook in a :class:`HookList`; returned by :meth:`HookList.add`.

    Attributes:
        hook: the registered hook object.
        calls: its ``before_action`` and ``after_action`` calls, read at registration.
    """

    def __init__(
        self, owner: HookList, hook: Any, calls: tuple[Optional[HookCall], Optional[HookCall]]
    ) -> None:
        self._owner = owner
        self.hook = hook
        self.calls = calls
        # Read and written under the owner's lock.
        self._registered = True

    @property
    def active(self) -> bool:
        """Whether this registration is still in its list."""
        with self._owner._lock:
            return self._registered

    def remove(self) -> None:
        """Remove this registration; calling it again does nothing.

        Other registrations of the same hook object stay.
        """
        self._owner.remove(self)

    def __repr__(self) -> str:
        state = "active" if self.active else "removed"
        return f"<HookHandle {self.hook!r} ({state})>"


class HookList:
    """An ordered, thread-safe list of hooks.

    The same hook object may be added several times; it then runs once per
    registration, and each :class:`HookHandle` removes only its own.

    Args:
        on_change: called after every registration change (with the list's lock held:
            it must be quick and must not touch the list).

    Attributes:
        hooks: the registered hooks in order, one entry per registration, as a tuple
            that is replaced whole on every change: reading it needs no lock, which
            keeps the executor's per-call check cheap.
        calls: the ``(before_action, after_action)`` calls of each entry of ``hooks``.
    """

    def __init__(self, on_change: Optional[Callable[[], None]] = None) -> None:
        self._lock = threading.Lock()
        self._handles: list[HookHandle] = []
        self._on_change = on_change
        self.hooks: tuple[Any, ...] = ()
        self.calls: tuple[tuple[Optional[HookCall], Optional[HookCall]], ...] = ()

    def _publish(self) -> None:
        # Called with the lock held, after every change to ``_handles``.
        self.calls = tuple(h.calls for h in self._handles)
        self.hooks = tuple(h.hook for h in self._handles)
        if self._on_change is not None:
            self._on_change()

    def add(self, hook: Any) -> HookHandle:
        """Register ``hook`` after the hooks already registered.

        Args:
            hook: an object with a ``before_action`` or an ``after_action`` method,
                or both (e.g. a :class:`Hook` instance).

        Returns:
            The handle that removes this registration.

        Raises:
            TypeError: ``hook`` is a class rather than an instance, or has neither
                method.
            ToolDefinitionError: a method cannot be called with the arguments the
                executor passes (see :func:`read_hook`).
        """
        handle = HookHandle(self, hook, read_hook(hook))
        with self._lock:
            self._handles.append(handle)
            self._publish()
        return handle

    def remove(self, handle: HookHandle) -> None:
        """Remove the registration ``handle`` stands for; nothing happens if it is gone.

        Raises:
            ValueError: ``handle`` belongs to another ``HookList``.
        """
        if handle._owner is not self:
            raise ValueError(f"HookList.remove: {handle!r} belongs to another HookList")
        with self._lock:
            if handle._registered:
                handle._registered = False
                # Identity, not equality: the same hook may be registered twice.
                self._handles = [h for h in self._handles if h is not handle]
                self._publish()

    def snapshot(self) -> tuple[Any, ...]:
        """Return the hooks registered now, in order, one entry per registration.

        Later changes to the list do not change the tuple, so it is safe to iterate
        while hooks are being added or removed.
        """
        return self.hooks

    def clear(self) -> None:
        """Remove every registration; their handles become inactive."""
        with self._lock:
            for handle in self._handles:
                handle._registered = False
            self._handles = []
            self._publish()

    def __len__(self) -> int:
        return len(self.hooks)

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def __repr__(self) -> str:
        return f"HookList({list(self.snapshot())!r})"


class ApprovalHook(Hook):
    """Hold back calls that need a person's approval.

    ``needs_approval(name, args)`` picks the calls. Without an ``approve``
    callback such a call is answered with an ``APPROVAL_REQUIRED`` record: a
    :class:`~lagent_like.agents.ReAct` run then stops with
    ``stop_reason='interrupted'`` until a person decides (``result.approve(item)``,
    ``agent.resume(result)``); a call whose ``ToolContext.approved`` is true (the
    approved call, run again on resume) runs. With one, ``approve(name, args, context)``
    decides: true lets the call run, false answers it with an ``API_ERROR`` record.
    ``approve`` may return an awaitable (e.g. be ``async def``); ``before_action``
    then returns a coroutine resolving to the same outcomes, for the async
    executor.

    Attributes:
        needs_approval: picks the calls that need approval.
        approve: decides on them, or ``None`` to always ask the user.
        decisions: every decision ``approve`` made, as
            ``(name, copy of args, approved)``, in the order they were made.
    """

    def __init__(
        self,
        needs_approval: Callable[[str, dict[str, Any]], bool],
        approve: Optional[Callable[[str, dict[str, Any], Any], Union[bool, Awaitable[bool]]]] = None,
    ) -> None:
        """Create the hook.

        Args:
            needs_approval: called with ``(name, args)``; true if the call needs
                approval.
            approve: called with ``(name, args, context)`` for calls that need
                approval; returns (or resolves to) true to approve. Any false value,
                including ``None``, denies.

        Raises:
            TypeError: ``needs_approval`` is not callable, or ``approve`` is neither
                callable nor ``None``.
        """
        if not callable(needs_approval):
            raise TypeError(
                f"ApprovalHook: needs_approval must be callable as needs_approval(name, args), "
                f"got {type(needs_approval).__qualname__}"
            )
        if approve is not None and not callable(approve):
            raise TypeError(
                f"ApprovalHook: approve must be None or callable as approve(name, args, context), "
                f"got {type(approve).__qualname__}"
            )
        self.needs_approval = needs_approval
        self.approve = approve
        self.decisions: list[tuple[str, dict[str, Any], bool]] = []
        self._lock = threading.Lock()

    @staticmethod
    def approval_required_message(name: str) -> str:
        """The ``errmsg`` of a call held back for approval."""
        return f"{name} needs approval before it runs; ask the user to approve it"

    @staticmethod
    def denied_message(name: str) -> str:
        """The ``errmsg`` of a call whose approval was refused."""
        return f"{name} was not approved, so it did not run"

    def before_action(self, name: str, args: dict[str, Any], context: Any) -> HookResult:
        """Let the call run, hold it back for approval, or refuse it.

        Returns:
            ``None`` if the call needs no approval or was approved; an
            ``APPROVAL_REQUIRED`` record if there is no ``approve`` callback; an
            ``API_ERROR`` record if it was refused. A coroutine resolving to one
            of these if ``approve`` returned an awaitable.
        """
        if not self.needs_approval(name, args):
            return None
        if getattr(context, "approved", False) is True:
            # A person approved this very call: an agent resuming an interrupted run.
            return self._decide(name, args, True)
        tool = name.split(".", 1)[0]
        if self.approve is None:
            return ActionReturn(
                args=args,
                type=tool,
                errmsg=self.approval_required_message(name),
                state=ActionStatusCode.APPROVAL_REQUIRED,
            )
        verdict = self.approve(name, args, context)
        if inspect.isawaitable(verdict):
            return self._decide_later(name, args, verdict)
        return self._decide(name, args, bool(verdict))

    async def _decide_later(
        self, name: str, args: dict[str, Any], verdict: Awaitable[bool]
    ) -> Optional[ActionReturn]:
        return self._decide(name, args, bool(await verdict))

    def _decide(self, name: str, args: dict[str, Any], approved: bool) -> Optional[ActionReturn]:
        with self._lock:
            self.decisions.append((name, dict(args), approved))
        if approved:
            return None
        return ActionReturn(
            args=args,
            type=name.split(".", 1)[0],
            errmsg=self.denied_message(name),
            state=ActionStatusCode.API_ERROR,
        )
