"""``AsyncActionMixin``: an action whose ``__call__`` is awaitable (Lagent 0.5).

Lagent 0.5 code awaits a single action directly, ``await action(inputs, name)``. The
mixin runs the same call core as the executors; sync APIs run in a small pool of
daemon threads of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, cast

from ..runtime._core import call_core, drive_async
from ..runtime._invoke import ainvoke
from ..schema import ActionReturn
from ._base_action import BaseAction, routes_of, settings_of, unknown_api

if TYPE_CHECKING:
    from ..runtime._pool import DaemonThreadPool

__all__ = ["AsyncActionMixin"]

_MIXIN_POOL: Optional[DaemonThreadPool] = None


def _mixin_pool() -> DaemonThreadPool:
    from ..runtime._pool import DaemonThreadPool

    global _MIXIN_POOL
    if _MIXIN_POOL is None:
        _MIXIN_POOL = DaemonThreadPool(8, "lagent-like-async")
    return _MIXIN_POOL


class AsyncActionMixin:
    """Makes an action's ``__call__`` awaitable: ``ret = await action(inputs, name)``.

    Put it before ``BaseAction``: ``class Search(AsyncActionMixin, BaseAction)``. Async
    APIs are awaited on the caller's loop, sync ones run in a worker thread. Executors
    do not go through ``__call__``, so such actions work in sync executors too.
    """

    async def __call__(self, inputs: Any, name: str = "run") -> ActionReturn:
        action = cast(BaseAction, self)  # the mixin always stands before BaseAction
        route = routes_of(action).get(name) if isinstance(name, str) else None
        if route is None:
            return unknown_api(action, inputs, name)
        if route.is_async or not settings_of(action).blocking:
            return await ainvoke(route, inputs)
        return await drive_async(call_core(route, inputs), _mixin_pool())
