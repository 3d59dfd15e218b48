"""``Async*`` twins of the built-in tools, made from the sync class (Lagent 0.5's names).

Lagent 0.5 ships an ``AsyncArxivSearch`` beside ``ArxivSearch`` and so on, each a copy
of the sync tool with ``async def`` APIs. Here a twin is *made* from its sync class: it
subclasses it (so it has the same constructor, description, state and every fix), mixes
in :class:`~lagent_like.AsyncActionMixin` (``await tool(inputs, name)``), and
each API becomes a coroutine that runs the sync API in a worker thread. The tools' I/O
is blocking (``requests``, python-pptx, a sandboxed process), so a thread is what an
event loop needs; there is one core, and nothing to keep in step.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from ..spec._describe import ApiSpec

if TYPE_CHECKING:
    from ..toolkits._base_action import ToolMeta

__all__ = ["async_twin"]

T = TypeVar("T", bound="ToolMeta")

#: Attribute holding the ApiSpec on a decorated function (``tool_api``'s SPEC_ATTR).
_SPEC_ATTR = "__lagent_like_api__"

#: Attribute holding the Lagent description on a decorated function (``tool_api``'s).
_DESCRIPTION_ATTR = "api_description"


def _coroutine_api(spec: ApiSpec) -> Callable[..., Any]:
    sync = spec.func
    if sync is None:  # every tool_api method has one; a spec without is not a method
        raise TypeError(f"cannot make an async twin of the API {spec.name!r}: it has no function")

    @functools.wraps(sync)
    async def api(self: Any, *args: Any, **kwargs: Any) -> Any:
        import asyncio  # here: importing the package must not import asyncio

        return await asyncio.to_thread(sync, self, *args, **kwargs)

    # The same description: only the way it is called changes.
    setattr(api, _SPEC_ATTR, dataclasses.replace(spec, func=api, is_async=True))
    setattr(api, _DESCRIPTION_ATTR, spec.description)
    return api


def async_twin(sync_cls: T, module: str) -> T:
    """``Async<Name>``: ``sync_cls`` with awaitable APIs, defined in ``module``.

    The twin is not registered here: the package registers the twins after every sync
    tool, so that ``list_tools()`` starts as Lagent's tutorial shows.

    Args:
        sync_cls: a ``BaseAction`` subclass.
        module: the module the twin belongs to (``__name__`` of the caller), for
            pickling and for Lagent's import path.

    Returns:
        The twin class.
    """
    # Imported here: this module is imported by the action modules themselves.
    from ..toolkits._async_mixin import AsyncActionMixin

    name = f"Async{sync_cls.__name__}"
    namespace: dict[str, Any] = {"__module__": module, "__qualname__": name, "__doc__": sync_cls.__doc__}
    for attr, spec in sync_cls.__tool_apis__.items():
        namespace[attr] = _coroutine_api(spec)
    return type(sync_cls)(name, (AsyncActionMixin, sync_cls), namespace, register=False)
