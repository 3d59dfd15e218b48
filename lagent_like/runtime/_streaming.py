"""Generator tools: each yielded chunk delivered as it comes, the whole output recorded.

A tool written as a generator (``def f(): yield ...``) or an async generator (``async
def f(): yield ...``) streams: Google ADK and MCP servers report its chunks as they
come, and the model reads the whole output. Calling such a function only makes the
generator; something must drain it. Routes do that here: at build time the function
is wrapped (:func:`streamed`) so that a call drains the generator within the call's
timeout, hands each chunk to the call's ``ToolContext.on_progress`` and returns the
joined output (:func:`joined`), which the record renders as any return value.

The wrapper takes the call's context as one more context parameter, so a streaming
route always goes through the call core, where the context is made; plain routes
keep their direct path untouched.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, Callable, Optional

from .._private.log import logger
from .._private.text import preview

if TYPE_CHECKING:
    from ..context import ToolContext

__all__ = ["STREAM_PARAM", "drain", "drain_async", "drained", "joined", "on_loop", "stream_kind", "streamed"]

#: The context parameter a streaming route's wrapper receives its call's context by.
STREAM_PARAM = "_lagent_like_stream_context"


def joined(chunks: list[Any]) -> Any:
    """The whole output of a generator tool: its chunks joined.

    All strings (or no chunk at all): one string, concatenated. Anything else: the
    list of chunks, rendered as any list is (JSON text; a list of result items such
    as ``{'type': 'image', 'content': path}`` passes through as items).
    """
    if all(type(chunk) is str for chunk in chunks):
        return "".join(chunks)
    return chunks


def _deliver(context: Optional[ToolContext], chunk: Any) -> None:
    """Hand ``chunk`` to the call's progress callback, in this thread.

    An awaitable it returns is run to completion. A failing callback is the caller's
    display problem, not the tool's failure: it is logged and the tool runs on.
    """
    sink = context.on_progress if context is not None else None
    if sink is None:
        return
    try:
        answer = sink(chunk)
        if answer is not None and inspect.isawaitable(answer):
            from .._private.coroutines import run_coroutine  # async callbacks only

            run_coroutine(_awaited(answer))
    except Exception:  # noqa: BLE001 - a faulty progress callback must not fail the call
        _failed(sink, chunk)


async def _deliver_async(context: Optional[ToolContext], chunk: Any) -> None:
    """:func:`_deliver` on the running loop: an awaitable the callback returns is awaited."""
    sink = context.on_progress if context is not None else None
    if sink is None:
        return
    try:
        answer = sink(chunk)
        if answer is not None and inspect.isawaitable(answer):
            await answer
    except Exception:  # noqa: BLE001 - a faulty progress callback must not fail the call
        _failed(sink, chunk)


def _failed(sink: Any, chunk: Any) -> None:
    logger().warning("progress callback %s failed on %s", preview(sink), preview(chunk), exc_info=True)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def drain(generator: Iterator[Any], context: Optional[ToolContext] = None) -> Any:
    """Run a generator to its end in this thread, delivering each chunk; the joined output.

    ``None`` chunks (a bare ``yield``) are neither delivered nor joined. When the
    executor has given up on the call (``context.cancelled``, after a timeout), the
    generator is closed before its next chunk, so its ``finally`` blocks run and no
    late chunk is delivered.
    """
    chunks = []
    try:
        for chunk in generator:
            if context is not None and context.cancelled:
                break
            if chunk is not None:
                chunks.append(chunk)
                _deliver(context, chunk)
    finally:
        close = getattr(generator, "close", None)
        if close is not None:
            close()
    return joined(chunks)


async def drain_async(generator: AsyncIterator[Any], context: Optional[ToolContext] = None) -> Any:
    """:func:`drain` for an async generator, on the running loop.

    An awaitable the progress callback returns is awaited before the next chunk is
    asked for, so chunks arrive in order. Cancelled (a timeout), the generator is
    closed at the point where it waits.
    """
    chunks = []
    try:
        async for chunk in generator:
            if chunk is not None:
                chunks.append(chunk)
                await _deliver_async(context, chunk)
    finally:
        close = getattr(generator, "aclose", None)
        if close is not None:
            await close()
    return joined(chunks)


def on_loop(callback: Callable[[Any], Any], loop: Any) -> Callable[[Any], Any]:
    """``callback`` made to run on ``loop`` (an asyncio loop), whichever thread a chunk comes from.

    On the loop it is called as it is (an awaitable it returns is awaited by the
    drain); from a worker thread (a sync generator tool) the chunk is handed to the
    loop and the thread waits until the callback is done, so chunks stay in order and
    all are delivered before the call returns.
    """
    import asyncio

    async def called(chunk: Any) -> None:
        answer = callback(chunk)
        if answer is not None and inspect.isawaitable(answer):
            await answer

    def deliver(chunk: Any) -> Any:
        try:
            running: Any = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            return callback(chunk)
        asyncio.run_coroutine_threadsafe(called(chunk), loop).result()
        return None

    return deliver


def stream_kind(func: Callable[..., Any]) -> Optional[str]:
    """``'sync'`` for a generator function, ``'async'`` for an async one, else ``None``."""
    if inspect.isasyncgenfunction(func):
        return "async"
    if inspect.isgeneratorfunction(func):
        return "sync"
    return None


def streamed(func: Callable[..., Any], kind: str) -> Callable[..., Any]:
    """``func`` (a generator function of ``kind``) as a function returning its joined output.

    The wrapper takes the call's context as :data:`STREAM_PARAM`; the tool's own
    context parameters, filled with the same context, pass through.
    """
    if kind == "async":

        @functools.wraps(func)
        async def run_async(**kwargs: Any) -> Any:
            context = kwargs.pop(STREAM_PARAM)
            return await drain_async(func(**kwargs), context)

        return run_async

    @functools.wraps(func)
    def run(**kwargs: Any) -> Any:
        context = kwargs.pop(STREAM_PARAM)
        return drain(func(**kwargs), context)

    return run


def drained(outputs: Any) -> Any:
    """``outputs``, or its joined output when a tool returned a generator object itself.

    Such a tool (a plain function that returns a generator) cannot be told apart when
    it is defined: its generator is drained when the call returns, without progress.
    """
    if inspect.isgenerator(outputs):
        return drain(outputs)
    if inspect.isasyncgen(outputs):
        from .._private.coroutines import run_coroutine  # async generators only

        return run_coroutine(drain_async(outputs))
    return outputs
