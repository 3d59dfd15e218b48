"""Generator tools stream (issue 20, item 5): each chunk as it comes, the whole output recorded.

A tool written as a generator or an async generator, as Google ADK's streaming tools
and MCP servers that report progress are written, delivers each yielded chunk to the
call's ``on_progress`` while it runs; its record's result is the whole output, never
the generator's repr. Timeouts still apply.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, Callable

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    AsyncActionExecutor,
    BaseAction,
    ToolContext,
    ToolSettings,
    tool_api,
)
from lagent_like.agents import ReAct


class Stream(BaseAction, register=False):
    """Tools that yield their output piece by piece."""

    @tool_api
    def words(self, text: str) -> Iterator[str]:
        """Say a text word by word.

        Args:
            text: the text to say
        """
        for word in text.split():
            yield word + " "

    @tool_api
    async def awords(self, text: str) -> AsyncIterator[str]:
        """Say a text word by word, asynchronously.

        Args:
            text: the text to say
        """
        for word in text.split():
            await asyncio.sleep(0)
            yield word + " "

    @tool_api
    def rows(self, n: int) -> Iterator[dict[str, int]]:
        """Yield n rows.

        Args:
            n: how many rows
        """
        for i in range(n):
            yield {"row": i}

    @tool_api
    async def arows(self, n: int) -> AsyncIterator[dict[str, int]]:
        """Yield n rows asynchronously.

        Args:
            n: how many rows
        """
        for i in range(n):
            yield {"row": i}

    @tool_api
    def images(self) -> Iterator[dict[str, str]]:
        """Yield result items."""
        yield {"type": "image", "content": "/tmp/a.png"}
        yield {"type": "text", "content": "a chart"}

    @tool_api
    def silent(self) -> Iterator[None]:
        """Yield nothing but heartbeats."""
        yield None
        yield None

    @tool_api
    def empty(self) -> Iterator[str]:
        """Yield nothing at all."""
        yield from ()

    @tool_api
    def breaks(self) -> Iterator[str]:
        """Yield once, then fail."""
        yield "first "
        raise ValueError("the feed broke")

    @tool_api
    def remembers(self, word: str, context: ToolContext) -> Iterator[str]:
        """Yield what the session said before, then remember the word.

        Args:
            word: the word to remember
        """
        yield str(context.state.get("last", "-"))
        context.state["last"] = word
        yield word


def _run(executor: Any, name: str, arguments: str, **kwargs: Any) -> Any:
    ret = executor(name, arguments, **kwargs)
    return asyncio.run(ret) if asyncio.iscoroutine(ret) else ret


EXECUTORS = [pytest.param(ActionExecutor, id="sync"), pytest.param(AsyncActionExecutor, id="async")]


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize(
    ("name", "arguments", "content", "chunks"),
    [
        pytest.param(
            "Stream.words", '{"text": "a b c"}', "a b c ", ["a ", "b ", "c "], id="str-chunks-joined"
        ),
        pytest.param("Stream.awords", '{"text": "a b"}', "a b ", ["a ", "b "], id="async-str-chunks-joined"),
        pytest.param(
            "Stream.rows",
            '{"n": 2}',
            '[{"row": 0}, {"row": 1}]',
            [{"row": 0}, {"row": 1}],
            id="objects-as-a-list",
        ),
        pytest.param(
            "Stream.arows",
            '{"n": 2}',
            '[{"row": 0}, {"row": 1}]',
            [{"row": 0}, {"row": 1}],
            id="async-objects",
        ),
        pytest.param("Stream.silent", "{}", "", [], id="none-chunks-skipped"),
        pytest.param("Stream.empty", "{}", "", [], id="no-chunk-is-empty"),
    ],
)
def test_generator_tool_records_the_whole_output_and_reports_each_chunk(
    executor_class: type, name: str, arguments: str, content: str, chunks: list[Any]
) -> None:
    seen: list[Any] = []
    ret = _run(executor_class([Stream()]), name, arguments, on_progress=seen.append)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.SUCCESS, None)
    assert ret.result == [{"type": "text", "content": content}]
    assert seen == chunks


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_generator_of_result_items_gives_those_items(executor_class: type) -> None:
    ret = _run(executor_class([Stream()]), "Stream.images", "{}")
    assert ret.result == [{"type": "image", "content": "/tmp/a.png"}, {"type": "text", "content": "a chart"}]


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize("name", ["Stream.words", "Stream.awords"])
def test_generator_tool_without_a_callback_still_gives_the_whole_output(
    executor_class: type, name: str
) -> None:
    ret = _run(executor_class([Stream()]), name, '{"text": "x y"}')
    assert ret.result == [{"type": "text", "content": "x y "}]
    assert "generator" not in ret.format_result()


def test_generator_tool_called_directly_gives_the_whole_output() -> None:
    ret = Stream()('{"text": "one two"}', "words")
    assert ret.result == [{"type": "text", "content": "one two "}]


def _follows(seen: list[Any]) -> Callable[[int], Iterator[str]]:
    def counted(n: int) -> Iterator[str]:
        """Yield n chunks, each after the previous one was delivered.

        Args:
            n: how many chunks
        """
        for i in range(n):
            # As it comes: chunk i-1 reached the callback before chunk i is made.
            assert len(seen) == i
            yield str(i)

    return counted


def test_each_chunk_is_delivered_before_the_next_is_made() -> None:
    seen: list[Any] = []
    ret = ActionExecutor([_follows(seen)])("counted", '{"n": 3}', on_progress=seen.append)
    assert (ret.state, ret.format_result(), seen) == (ActionStatusCode.SUCCESS, "012", ["0", "1", "2"])


def test_each_async_chunk_is_delivered_before_the_next_is_made() -> None:
    seen: list[Any] = []

    async def acounted(n: int) -> AsyncIterator[str]:
        """Yield n chunks, each after the previous one was delivered.

        Args:
            n: how many chunks
        """
        for i in range(n):
            assert len(seen) == i
            yield str(i)

    async def progress(chunk: Any) -> None:
        await asyncio.sleep(0)  # an awaitable callback is awaited before the next chunk
        seen.append(chunk)

    ret = asyncio.run(AsyncActionExecutor([acounted])("acounted", '{"n": 3}', on_progress=progress))
    assert (ret.state, ret.format_result(), seen) == (ActionStatusCode.SUCCESS, "012", ["0", "1", "2"])


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_a_generator_that_fails_midway_is_an_api_error_after_its_chunks(executor_class: type) -> None:
    seen: list[Any] = []
    ret = _run(executor_class([Stream()]), "Stream.breaks", "{}", on_progress=seen.append)
    assert (ret.state, ret.errmsg, ret.result) == (
        ActionStatusCode.API_ERROR,
        "ValueError: the feed broke",
        None,
    )
    assert seen == ["first "]


def _broken(chunk: Any) -> None:
    raise RuntimeError("display gone")


async def _abroken(chunk: Any) -> None:
    raise RuntimeError("display gone")


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize("name", ["Stream.words", "Stream.awords"])
@pytest.mark.parametrize("callback", [_broken, _abroken], ids=["sync-callback", "async-callback"])
def test_a_failing_progress_callback_does_not_fail_the_call(
    executor_class: type, name: str, callback: Callable[[Any], Any], caplog: pytest.LogCaptureFixture
) -> None:
    ret = _run(executor_class([Stream()]), name, '{"text": "a b"}', on_progress=callback)
    assert (ret.state, ret.format_result()) == (ActionStatusCode.SUCCESS, "a b ")
    assert "progress callback" in caplog.text and "display gone" in caplog.text


def test_a_tool_taking_a_context_may_report_progress_itself() -> None:
    def build(steps: int, context: ToolContext) -> str:
        """Build in steps.

        Args:
            steps: how many steps
        """
        for i in range(steps):
            if context.on_progress is not None:
                context.on_progress(f"step {i}")
        return "built"

    seen: list[Any] = []
    ret = ActionExecutor([build])("build", '{"steps": 2}', on_progress=seen.append)
    assert (ret.format_result(), seen) == ("built", ["step 0", "step 1"])


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_generator_tool_keeps_its_tool_context(executor_class: type) -> None:
    executor = executor_class([Stream()])
    first = _run(executor, "Stream.remembers", '{"word": "hi"}', session_id="s")
    second = _run(executor, "Stream.remembers", '{"word": "yo"}', session_id="s")
    assert (first.format_result(), second.format_result()) == ("-hi", "hiyo")


def test_plain_function_returning_a_generator_is_drained() -> None:
    def numbers(n: int) -> Iterator[str]:
        """Count to n.

        Args:
            n: the last number
        """
        return (str(i) for i in range(1, n + 1))

    ret = ActionExecutor([numbers])("numbers", '{"n": 3}')
    assert ret.result == [{"type": "text", "content": "123"}]


class Slow(BaseAction, register=False):
    """Generators that stall after their first chunk."""

    __tool_settings__ = ToolSettings(timeout=0.5)

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.closed = threading.Event()

    @tool_api
    def stalls(self) -> Iterator[str]:
        """Yield, stall until released, then yield again."""
        try:
            yield "early "
            self.release.wait(10)
            yield "late "
            yield "later "
        finally:
            self.closed.set()

    @tool_api
    async def astalls(self) -> AsyncIterator[str]:
        """Yield, then stall forever."""
        try:
            yield "early "
            await asyncio.Event().wait()
            yield "never "
        finally:
            self.closed.set()


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_a_stalled_sync_generator_times_out_and_is_closed_at_its_next_chunk(executor_class: type) -> None:
    tool = Slow()
    seen: list[Any] = []
    ret = _run(executor_class([tool]), "Slow.stalls", "{}", on_progress=seen.append)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.TIMEOUT, "'Slow.stalls' timed out after 0.5 s")
    tool.release.set()
    assert tool.closed.wait(10)
    # The executor stopped waiting: the late chunk was neither delivered nor followed.
    assert seen == ["early "]


@pytest.mark.parametrize("executor_class", EXECUTORS)
def test_a_stalled_async_generator_times_out_and_is_closed(executor_class: type) -> None:
    tool = Slow()
    seen: list[Any] = []
    ret = _run(executor_class([tool]), "Slow.astalls", "{}", on_progress=seen.append)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.TIMEOUT, "'Slow.astalls' timed out after 0.5 s")
    assert tool.closed.is_set()
    assert seen == ["early "]


def test_react_agent_passes_each_chunk_on_with_the_tool_name() -> None:
    replies = iter(
        [
            'Thought: say it\nAction: Stream.words\nAction Input: {"text": "hello there"}',
            "Thought: done\nFinal Answer: said",
        ]
    )
    seen: list[tuple[str, Any]] = []
    agent = ReAct(
        lambda messages: next(replies), ActionExecutor([Stream()]), on_progress=lambda *e: seen.append(e)
    )
    result = agent.run("say hello there")
    assert seen == [("Stream.words", "hello "), ("Stream.words", "there ")]
    assert result.turns[0].observation == "hello there "
    assert result.answer == "said"


def test_react_agent_calls_the_executor_with_its_scope_and_a_progress_callback() -> None:
    # The agent passes its AgentScope (agent name, run id, the run's context, where the
    # tool's actions go) and a progress callback feeding its streamed events.
    calls: list[tuple[Any, ...]] = []

    class Recording(ActionExecutor):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            calls.append((args, kwargs))
            return super().__call__(*args, **kwargs)

    replies = iter(['Action: Stream.words\nAction Input: {"text": "a"}', "Final Answer: ok"])
    result = ReAct(lambda messages: next(replies), Recording([Stream()])).run("q", context="mine")
    ((args, kwargs),) = calls
    assert args == ("Stream.words", '{"text": "a"}', None, None)
    assert sorted(kwargs) == ["context", "on_progress"]
    scope = kwargs["context"]
    assert (scope.agent_name, scope.invocation_id, scope.context) == ("agent", result.invocation_id, "mine")


@pytest.mark.parametrize("name", ["Stream.words", "Stream.awords"])
def test_async_executor_calls_on_progress_on_its_event_loop(name: str) -> None:
    threads: list[int] = []

    async def run() -> Any:
        return await AsyncActionExecutor([Stream()])(
            name, '{"text": "a b"}', on_progress=lambda chunk: threads.append(threading.get_ident())
        )

    ret = asyncio.run(run())
    # The loop runs in this thread; a sync generator runs in a worker thread, yet its
    # chunks are handed to the loop.
    assert (ret.format_result(), threads) == ("a b ", [threading.get_ident()] * 2)
