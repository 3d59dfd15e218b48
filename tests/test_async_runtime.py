"""The async runtime (SPEC 8.5-8.6): ``AsyncActionExecutor``, ``AsyncActionMixin``, batches.

Every test drives its own event loop with ``asyncio.run``. Tools that must outlive their
timeout wait on a ``threading.Event`` the test sets at the end, so no worker thread is
left running after a test.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Optional

import pytest

from lagent_like import (
    ActionExecutor,
    ActionReturn,
    ActionStatusCode,
    ActionValidCode,
    AsyncActionExecutor,
    AsyncActionMixin,
    BaseAction,
    Hook,
    RetryPolicy,
    ToolContext,
    ToolError,
    ToolSettings,
    TransientToolError,
    tool_api,
)

SUCCESS = ActionStatusCode.SUCCESS
TIMEOUT = ActionStatusCode.TIMEOUT


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _running_loop() -> Optional[asyncio.AbstractEventLoop]:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _text(ret: ActionReturn) -> str:
    assert ret.state == SUCCESS, ret
    assert ret.result is not None
    return str(ret.result[0]["content"])


# --------------------------------------------------------------------------- tools


class AsKit(BaseAction):
    """A toolkit with async, sync and failing APIs."""

    @tool_api
    async def aadd(self, a: int, b: int) -> int:
        """Add two integers, asynchronously.

        Args:
            a: the first addend
            b: the second addend
        """
        await asyncio.sleep(0)
        return a + b

    @tool_api
    def sadd(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b

    @tool_api
    async def aboom(self, x: int) -> int:
        """Raise from an async API.

        Args:
            x: anything
        """
        await asyncio.sleep(0)
        raise ValueError(f"bad x {x}")

    @tool_api
    def sboom(self, x: int) -> int:
        """Raise from a sync API.

        Args:
            x: anything
        """
        raise KeyError(x)

    @tool_api
    async def atool_error(self, x: int) -> int:
        """Raise a ToolError from an async API.

        Args:
            x: anything
        """
        raise ToolError(f"x must be even, got {x}")

    @tool_api
    def sexit(self, x: int) -> int:
        """Exit the interpreter from a sync API.

        Args:
            x: the exit code
        """
        raise SystemExit(x)


class AsWhere(BaseAction):
    """Reports where its APIs run."""

    @tool_api
    async def coro(self) -> dict:
        """Where an async API runs."""
        return {"main": _on_main_thread(), "loop": id(_running_loop())}

    @tool_api
    def plain(self) -> dict:
        """Where a sync API runs."""
        return {"main": _on_main_thread(), "loop": id(_running_loop())}


class AsInline(BaseAction):
    """A cheap sync tool that may run on the loop's thread."""

    __tool_settings__ = ToolSettings(blocking=False)

    def run(self) -> dict:
        """Where a non-blocking sync API runs."""
        return {"main": _on_main_thread(), "loop": id(_running_loop())}


class AsNap(BaseAction):
    """Sleeps asynchronously, tracking how many calls are in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.active = 0
        self.peak = 0
        self.finished: list[int] = []

    async def run(self, i: int, seconds: float = 0.05) -> int:
        """Sleep, then return ``i``.

        Args:
            i: the value to return
            seconds: how long to sleep
        """
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await asyncio.sleep(seconds)
        finally:
            self.active -= 1
        self.finished.append(i)
        return i


class AsGated(BaseAction):
    """Holds every call at a gate the test opens, counting the calls in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.active = 0
        self.peak = 0
        self._gate: Optional[asyncio.Event] = None

    def gate(self) -> asyncio.Event:
        """The gate, made on the running loop (an Event made before it binds another loop on 3.9)."""
        if self._gate is None:
            self._gate = asyncio.Event()
        return self._gate

    async def run(self, i: int) -> int:
        """Wait at the gate, then return ``i``.

        Args:
            i: the value to return
        """
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await self.gate().wait()
        finally:
            self.active -= 1
        return i


class AsChain(BaseAction):
    """Call ``i`` of ``n`` finishes only after every later call finished: a fixed reverse order."""

    def __init__(self) -> None:
        super().__init__()
        self.finished: list[int] = []

    async def run(self, i: int, n: int) -> int:
        """Wait for the later calls, then return ``i``.

        Args:
            i: the value to return
            n: how many calls the batch holds
        """
        while len(self.finished) < n - 1 - i:
            await asyncio.sleep(0)
        self.finished.append(i)
        return i


async def _until(condition: Callable[[], bool]) -> None:
    """Yield to the loop until ``condition`` holds (the caller bounds it with ``asyncio.wait_for``)."""
    while not condition():
        await asyncio.sleep(0.001)  # a millisecond, not 0: no spinning while a thread works


class AsBlockNap(BaseAction):
    """Sleeps in its thread, tracking how many calls run at once."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.active = 0
        self.peak = 0
        self.threads: set[str] = set()

    def run(self, i: int, seconds: float = 0.05) -> int:
        """Sleep, then return ``i``.

        Args:
            i: the value to return
            seconds: how long to sleep
        """
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.threads.add(threading.current_thread().name)
        try:
            time.sleep(seconds)
        finally:
            with self._lock:
                self.active -= 1
        return i


class AsSlowAsync(BaseAction):
    """An async tool that sleeps past its timeout and records its cancellation."""

    __tool_settings__ = ToolSettings(timeout=0.1)

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = False
        self.cleaned_up = False
        self.completed = False

    async def run(self, seconds: float = 10.0) -> str:
        """Sleep.

        Args:
            seconds: how long to sleep
        """
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        finally:
            self.cleaned_up = True
        self.completed = True
        return "woke up"


class AsWaitSync(BaseAction):
    """A sync tool that blocks until its event is set (or ``seconds`` pass)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.release = threading.Event()
        self.entered = threading.Event()
        self.started: list[int] = []

    def run(self, i: int = 0, seconds: float = 5.0) -> int:
        """Block.

        Args:
            i: an id recorded when the call starts
            seconds: the longest wait
        """
        self.started.append(i)
        self.entered.set()
        self.release.wait(seconds)
        return i


class AsFlaky(BaseAction):
    """Fails transiently ``fails`` times, then answers."""

    def __init__(self, fails: int, error: type[Exception] = TransientToolError) -> None:
        super().__init__()
        self.fails = fails
        self.error = error
        self.calls = 0

    async def run(self, x: int) -> int:
        """Return ``x`` once the transient failures are over.

        Args:
            x: the value to return
        """
        self.calls += 1
        await asyncio.sleep(0)
        if self.calls <= self.fails:
            raise self.error(f"failure {self.calls}")
        return x


class AsSlowOnce(BaseAction):
    """Times out on its first call, answers at once afterwards."""

    __tool_settings__ = ToolSettings(timeout=0.05)

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def run(self) -> str:
        """Answer, slowly the first time."""
        self.calls += 1
        if self.calls == 1:
            await asyncio.sleep(5)
        return f"call {self.calls}"


class AsCounter(BaseAction):
    """Counts per session in its context's state."""

    async def run(self, key: str, ctx: ToolContext) -> str:
        """Increment a counter of the session.

        Args:
            key: the counter's name
        """
        await asyncio.sleep(0)
        ctx.state[key] = ctx.state.get(key, 0) + 1
        return json.dumps(
            {
                "session": ctx.session_id,
                "count": ctx.state[key],
                "call_id": ctx.call_id,
                "tool": ctx.tool_name,
                "api": ctx.api_name,
                "executor": ctx.executor is not None,
            }
        )


class AsMixKit(AsyncActionMixin, BaseAction):
    """An awaitable toolkit."""

    @tool_api
    async def aadd(self, a: int, b: int) -> int:
        """Add two integers, asynchronously.

        Args:
            a: the first addend
            b: the second addend
        """
        await asyncio.sleep(0)
        return a + b

    @tool_api
    def where(self) -> dict:
        """Where a sync API runs."""
        return {"main": _on_main_thread(), "loop": id(_running_loop())}


class AsMixSimple(AsyncActionMixin, BaseAction):
    """An awaitable simple tool."""

    async def run(self, text: str) -> str:
        """Echo.

        Args:
            text: what to echo
        """
        await asyncio.sleep(0)
        return text


class AsRecordingHook:
    """Async hooks that log, refuse ``x == 99`` and replace the result of ``x == 7``."""

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []

    async def before_action(self, name: str, args: dict[str, Any], context: Any) -> Optional[ActionReturn]:
        await asyncio.sleep(0)
        self.log.append(("before", name, dict(args), context.session_id))
        if args.get("x") == 99:
            return ActionReturn(args, None, "AsFlaky", None, "refused by hook", ActionStatusCode.API_ERROR)
        return None

    async def after_action(self, name: str, ret: ActionReturn, context: Any) -> Optional[ActionReturn]:
        await asyncio.sleep(0)
        self.log.append(("after", name, int(ret.state)))
        if ret.args and ret.args.get("x") == 7:
            return ActionReturn(ret.args, None, ret.type, [{"type": "text", "content": "replaced"}])
        return None


@pytest.fixture
def released() -> Iterator[list[AsWaitSync]]:
    """Tools appended here have their event set at the end of the test."""
    tools: list[AsWaitSync] = []
    yield tools
    for tool in tools:
        tool.release.set()


# --------------------------------------------------------------------------- single calls


def test_async_api_is_awaited_on_the_callers_loop() -> None:
    executor = AsyncActionExecutor([AsKit(), AsWhere()])

    async def main() -> tuple[ActionReturn, dict, int]:
        ret = await executor("AsKit.aadd", '{"a": 1, "b": 2}')
        where = json.loads(_text(await executor("AsWhere.coro", "{}")))
        return ret, where, id(asyncio.get_running_loop())

    ret, where, loop_id = asyncio.run(main())
    assert _text(ret) == "3"
    assert (ret.type, ret.args, ret.valid) == ("AsKit", {"a": 1, "b": 2}, ActionValidCode.OPEN)
    assert where == {"main": True, "loop": loop_id}


def test_sync_api_runs_in_a_worker_thread() -> None:
    executor = AsyncActionExecutor([AsKit(), AsWhere()])

    async def main() -> tuple[ActionReturn, dict]:
        return (
            await executor("AsKit.sadd", '{"a": 2, "b": 3}'),
            json.loads(_text(await executor("AsWhere.plain", "{}"))),
        )

    ret, where = asyncio.run(main())
    assert _text(ret) == "5"
    assert where["main"] is False
    assert where["loop"] == id(None)  # no event loop in the worker thread


def test_non_blocking_sync_api_runs_inline_on_the_loops_thread() -> None:
    executor = AsyncActionExecutor([AsInline()])

    async def main() -> tuple[dict, int]:
        where = json.loads(_text(await executor("AsInline", "{}")))
        return where, id(asyncio.get_running_loop())

    where, loop_id = asyncio.run(main())
    assert where == {"main": True, "loop": loop_id}


def test_non_blocking_sync_api_runs_inline_through_the_call_core_too() -> None:
    # A hook sends the call through the call core; blocking=False must still hold there.
    executor = AsyncActionExecutor([AsInline()])
    executor.register_hook(Hook())

    async def main() -> tuple[dict, int]:
        where = json.loads(_text(await executor("AsInline", "{}")))
        return where, id(asyncio.get_running_loop())

    where, loop_id = asyncio.run(main())
    assert where == {"main": True, "loop": loop_id}


def test_sync_api_runs_in_a_worker_thread_through_the_call_core_too() -> None:
    executor = AsyncActionExecutor([AsWhere()], timeout=5)
    where = json.loads(_text(asyncio.run(executor("AsWhere.plain", "{}"))))
    assert where["main"] is False


ERROR_CASES = [
    pytest.param("AsKit.aadd", '{"a": 1}', ActionStatusCode.ARGS_ERROR, id="missing-arg"),
    pytest.param("AsKit.aadd", '{"a": 1, "b": 2, "c": 3}', ActionStatusCode.ARGS_ERROR, id="unknown-arg"),
    pytest.param("AsKit.aadd", '{"a": "x", "b": 2}', ActionStatusCode.ARGS_ERROR, id="bad-type-async"),
    pytest.param("AsKit.sadd", '{"a": "x", "b": 2}', ActionStatusCode.ARGS_ERROR, id="bad-type-sync"),
    pytest.param("AsKit.aadd", "{{", ActionStatusCode.ARGS_ERROR, id="malformed-json"),
    pytest.param("AsKit.aadd", 12, ActionStatusCode.ARGS_ERROR, id="not-a-string"),
    pytest.param("AsKit.aboom", '{"x": 1}', ActionStatusCode.API_ERROR, id="async-raises"),
    pytest.param("AsKit.sboom", '{"x": 1}', ActionStatusCode.API_ERROR, id="sync-raises"),
    pytest.param("AsKit.atool_error", '{"x": 3}', ActionStatusCode.API_ERROR, id="tool-error"),
    pytest.param("AsKit.sexit", '{"x": 3}', ActionStatusCode.API_ERROR, id="system-exit"),
    pytest.param("AsKit.nope", "{}", ActionStatusCode.API_ERROR, id="unknown-api"),
    pytest.param("AsNope", "{}", ActionStatusCode.API_ERROR, id="unknown-tool"),
    pytest.param(None, "{}", ActionStatusCode.API_ERROR, id="name-none"),
    pytest.param(["AsKit"], "{}", ActionStatusCode.API_ERROR, id="name-unhashable"),
]


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({}, id="plain"),
        pytest.param({"timeout": 5.0}, id="timeout"),
        pytest.param({"error_formatter": lambda exc, ret: f"[{type(exc).__name__}] {ret.errmsg}"}, id="fmt"),
    ],
)
@pytest.mark.parametrize(("name", "command", "state"), ERROR_CASES)
def test_error_records_match_the_sync_executor(
    options: dict[str, Any], name: Any, command: Any, state: ActionStatusCode
) -> None:
    sync_ret = ActionExecutor([AsKit()], **options)(name, command)
    async_ret = asyncio.run(AsyncActionExecutor([AsKit()], **options)(name, command))
    assert async_ret.state == state
    assert async_ret.to_dict() == sync_ret.to_dict()


def test_error_records_name_the_problem() -> None:
    executor = AsyncActionExecutor([AsKit()])

    async def main() -> list[ActionReturn]:
        return [
            await executor("AsKit.aboom", '{"x": 4}'),
            await executor("AsKit.atool_error", '{"x": 3}'),
            await executor("AsKit.aadd", '{"a": 1}'),
            await executor("AsNope", "{}"),
        ]

    boom, tool_error, missing, unknown = asyncio.run(main())
    assert boom.errmsg == "ValueError: bad x 4"
    assert tool_error.errmsg == "x must be even, got 3"
    assert missing.args == {"inputs": '{"a": 1}', "name": "aadd"}
    assert "'b'" in (missing.errmsg or "")
    assert (unknown.type, unknown.valid) == ("InvalidAction", ActionValidCode.INVALID)
    assert "AsNope" in (unknown.errmsg or "") and "AsKit.aadd" in (unknown.errmsg or "")


def test_disabled_tool_and_builtin_names_match_the_sync_executor() -> None:
    sync_exec, async_exec = ActionExecutor([AsKit()]), AsyncActionExecutor([AsKit()])
    calls = [("NoAction", "thinking"), ("FinishAction", "the answer")]
    for name, command in calls:
        assert asyncio.run(async_exec(name, command)).to_dict() == sync_exec(name, command).to_dict()
    sync_exec.disable("AsKit")
    async_exec.disable("AsKit")
    sync_ret = sync_exec("AsKit.aadd", '{"a": 1, "b": 2}')
    async_ret = asyncio.run(async_exec("AsKit.aadd", '{"a": 1, "b": 2}'))
    assert async_ret.valid == ActionValidCode.INVALID
    assert async_ret.to_dict() == sync_ret.to_dict()


def test_alias_names_are_accepted() -> None:
    executor = AsyncActionExecutor([AsKit()])
    alias = next(t["function"]["name"] for t in executor.to_openai_tools() if "aadd" in t["function"]["name"])
    assert alias != "AsKit.aadd"
    assert _text(asyncio.run(executor(alias, '{"a": 4, "b": 5}'))) == "9"


# --------------------------------------------------------------------------- timeouts


def test_async_tool_past_its_timeout_is_cancelled_with_a_timeout_record() -> None:
    tool = AsSlowAsync()
    executor = AsyncActionExecutor([tool])
    ret = asyncio.run(executor("AsSlowAsync", '{"seconds": 30}'))
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'AsSlowAsync' timed out after 0.1 s"
    assert (ret.args, ret.type, ret.result, ret.valid) == ({"seconds": 30}, "AsSlowAsync", None, 0)
    assert tool.cancelled and tool.cleaned_up and not tool.completed


def test_executor_timeout_applies_to_async_tools_without_their_own() -> None:
    executor = AsyncActionExecutor([AsNap()], timeout=0.05)
    ret = asyncio.run(executor("AsNap", '{"i": 1, "seconds": 5}'))
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'AsNap' timed out after 0.05 s"


def test_tool_timeout_from_the_constructor_wins_over_the_executors() -> None:
    executor = AsyncActionExecutor([AsWaitSync(timeout=0.05)], timeout=30)
    tool = executor.actions["AsWaitSync"]
    try:
        ret = asyncio.run(executor("AsWaitSync", '{"seconds": 5}'))
    finally:
        tool.release.set()  # type: ignore[attr-defined]
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'AsWaitSync' timed out after 0.05 s"


def test_sync_tool_past_its_timeout_keeps_the_loop_responsive(released: list[AsWaitSync]) -> None:
    tool = AsWaitSync()
    released.append(tool)
    executor = AsyncActionExecutor([tool], timeout=0.3)

    async def main() -> tuple[ActionReturn, bool]:
        call = asyncio.create_task(executor("AsWaitSync", '{"i": 1, "seconds": 30}'))
        # The loop turns while the tool's thread is blocked: this task sees the call
        # inside the tool and still pending (a call run on the loop's thread would be done).
        await asyncio.wait_for(_until(lambda: tool.entered.is_set() or call.done()), 30)
        pending_while_blocked = tool.entered.is_set() and not call.done()
        return await call, pending_while_blocked

    ret, pending_while_blocked = asyncio.run(main())
    assert ret.state == TIMEOUT
    assert ret.errmsg == "'AsWaitSync' timed out after 0.3 s"
    assert tool.started == [1]
    assert pending_while_blocked


def test_executor_is_usable_after_timeouts(released: list[AsWaitSync]) -> None:
    slow_sync = AsWaitSync()
    released.append(slow_sync)
    slow_async = AsSlowAsync()
    executor = AsyncActionExecutor([slow_sync, slow_async, AsKit()], timeout=0.1)

    async def main() -> list[ActionReturn]:
        rets = [
            await executor("AsWaitSync", '{"i": 1}'),
            await executor("AsSlowAsync", "{}"),
        ]
        slow_sync.release.set()
        rets += [
            await executor("AsKit.aadd", '{"a": 1, "b": 2}'),
            await executor("AsKit.sadd", '{"a": 3, "b": 4}'),
            await executor("AsWaitSync", '{"i": 2}'),
            await executor("AsSlowAsync", '{"seconds": 0}'),
        ]
        return rets

    rets = asyncio.run(main())
    assert [r.state for r in rets] == [TIMEOUT, TIMEOUT, SUCCESS, SUCCESS, SUCCESS, SUCCESS]
    assert [r.format_result() for r in rets[2:]] == ["3", "7", "2", "woke up"]


class AsOccupier(AsWaitSync):
    """Keeps the only worker busy within its own (long) timeout."""

    __tool_settings__ = ToolSettings(timeout=30.0)


class AsQueued(AsWaitSync):
    """Times out quickly, while still waiting for a worker."""

    __tool_settings__ = ToolSettings(timeout=0.1)


def test_a_timed_out_call_still_queued_never_runs_async(released: list[AsWaitSync]) -> None:
    # One worker, busy with a call that has not timed out: the next call waits in the
    # queue, times out there, and must not run once the worker frees up.
    busy, queued = AsOccupier(), AsQueued()
    released.append(busy)
    executor = AsyncActionExecutor([busy, queued], max_workers=1)

    async def main() -> list[ActionReturn]:
        occupying = asyncio.create_task(executor("AsOccupier", '{"i": 1, "seconds": 30}'))
        await asyncio.wait_for(_until(busy.entered.is_set), 30)
        timed_out = await executor("AsQueued", '{"i": 2, "seconds": 0.0}')
        busy.release.set()
        # The only worker takes its queue in order: once a later call ran, the timed-out
        # one had its turn and was skipped.
        return [timed_out, await occupying, await executor("AsOccupier", '{"i": 3}')]

    rets = asyncio.run(main())
    assert [r.state for r in rets] == [TIMEOUT, SUCCESS, SUCCESS]
    assert (busy.started, queued.started) == ([1, 3], [])


def test_a_timed_out_call_still_queued_never_runs_sync(released: list[AsWaitSync]) -> None:
    busy, queued = AsOccupier(), AsQueued()
    released.append(busy)
    executor = ActionExecutor([busy, queued], max_workers=1)
    first = threading.Thread(target=executor, args=("AsOccupier", '{"i": 1, "seconds": 30}'))
    first.start()
    assert busy.entered.wait(30)  # the occupier holds the only worker now
    ret = executor("AsQueued", '{"i": 2, "seconds": 0.0}')
    busy.release.set()
    first.join()
    # As above: a later call on the only worker proves the timed-out one was skipped.
    later = executor("AsOccupier", '{"i": 3}')
    assert (ret.state, later.state) == (TIMEOUT, SUCCESS)
    assert (busy.started, queued.started) == ([1, 3], [])


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_hung_sync_calls_do_not_starve_other_tools(kind: str, released: list[AsWaitSync]) -> None:
    hung = AsWaitSync()
    released.append(hung)
    if kind == "async":
        executor: ActionExecutor = AsyncActionExecutor([hung, AsKit()], timeout=0.2, max_workers=1)

        async def main() -> list[ActionReturn]:
            return [
                await executor("AsWaitSync", '{"i": 1, "seconds": 5}'),
                await executor("AsKit.sadd", '{"a": 1, "b": 2}'),
            ]

        rets = asyncio.run(main())
    else:
        executor = ActionExecutor([hung, AsKit()], timeout=0.2, max_workers=1)
        rets = [executor("AsWaitSync", '{"i": 1, "seconds": 5}'), executor("AsKit.sadd", '{"a": 1, "b": 2}')]
    assert rets[0].state == TIMEOUT
    assert rets[1].state == SUCCESS, rets[1].errmsg


def test_hung_sync_tool_does_not_keep_the_interpreter_from_exiting() -> None:
    script = textwrap.dedent(
        """
        import asyncio, time
        from lagent_like import ActionExecutor, AsyncActionExecutor, BaseAction

        class AsStuck(BaseAction, register=False):
            def run(self, x: int) -> int:
                '''Never returns.

                Args:
                    x: ignored
                '''
                while True:
                    time.sleep(0.05)

        sync_ret = ActionExecutor([AsStuck()], timeout=0.2)("AsStuck", '{"x": 1}')
        async_ret = asyncio.run(AsyncActionExecutor([AsStuck()], timeout=0.2)("AsStuck", '{"x": 1}'))
        print(int(sync_ret.state), int(async_ret.state))
        """
    )
    # A thread keeping the interpreter alive would hang it: ``timeout`` turns that into a failure.
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(int(TIMEOUT))] * 2


# --------------------------------------------------------------------------- retries, hooks, context


def test_retries_wait_with_an_async_sleep() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    tool = AsFlaky(fails=2)
    policy = RetryPolicy(max_attempts=4, base_delay=0.5, jitter=0.1)
    executor = AsyncActionExecutor([tool], retry=policy, sleep=sleep, random=lambda: 0.5)
    ret = asyncio.run(executor("AsFlaky", '{"x": 3}'))
    assert _text(ret) == "3"
    assert (ret.attempts, tool.calls) == (3, 3)
    assert delays == [0.5, 1.0]


def test_retries_give_up_after_max_attempts() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    tool = AsFlaky(fails=10)
    policy = RetryPolicy(max_attempts=3, base_delay=0.25, jitter=0.0)
    executor = AsyncActionExecutor([tool], retry=policy, sleep=sleep)
    ret = asyncio.run(executor("AsFlaky", '{"x": 3}'))
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg == "failure 3"  # TransientToolError is a ToolError: its message as it is
    assert (ret.attempts, tool.calls, delays) == (3, 3, [0.25, 0.5])


def test_permanent_errors_are_not_retried() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    tool = AsFlaky(fails=1, error=ValueError)
    executor = AsyncActionExecutor([tool], retry=RetryPolicy(), sleep=sleep)
    ret = asyncio.run(executor("AsFlaky", '{"x": 3}'))
    assert (ret.state, ret.errmsg, ret.attempts, delays) == (
        ActionStatusCode.API_ERROR,
        "ValueError: failure 1",
        1,
        [],
    )


def test_timeouts_are_retried_with_an_async_sleep() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    tool = AsSlowOnce()
    policy = RetryPolicy(max_attempts=2, base_delay=0.1, jitter=0.0)
    executor = AsyncActionExecutor([tool], retry=policy, sleep=sleep)
    ret = asyncio.run(executor("AsSlowOnce", "{}"))
    assert (_text(ret), ret.attempts, delays) == ("call 2", 2, [0.1])


def test_async_hooks_short_circuit_and_replace() -> None:
    tool = AsFlaky(fails=0)
    executor = AsyncActionExecutor([tool])
    hook = AsRecordingHook()
    handle = executor.register_hook(hook)

    async def main() -> list[ActionReturn]:
        return [
            await executor("AsFlaky", '{"x": 99}', session_id="s1"),
            await executor("AsFlaky", '{"x": 7}', session_id="s1"),
            await executor("AsFlaky", '{"x": 1}'),
        ]

    refused, replaced, plain = asyncio.run(main())
    assert (refused.state, refused.errmsg, refused.valid) == (
        ActionStatusCode.API_ERROR,
        "refused by hook",
        0,
    )
    assert replaced.format_result() == "replaced"
    assert _text(plain) == "1"
    assert tool.calls == 2  # the refused call never reached the tool
    assert hook.log == [
        ("before", "AsFlaky", {"x": 99}, "s1"),
        ("after", "AsFlaky", int(ActionStatusCode.API_ERROR)),
        ("before", "AsFlaky", {"x": 7}, "s1"),
        ("after", "AsFlaky", 0),
        ("before", "AsFlaky", {"x": 1}, "default"),
        ("after", "AsFlaky", 0),
    ]
    handle.remove()
    assert _text(asyncio.run(executor("AsFlaky", '{"x": 7}'))) == "7"
    assert len(hook.log) == 6


def test_hooks_see_canonical_names_and_do_not_run_for_bad_arguments() -> None:
    executor = AsyncActionExecutor([AsKit()])
    hook = AsRecordingHook()
    executor.register_hook(hook)
    alias = next(t["function"]["name"] for t in executor.to_openai_tools() if "sadd" in t["function"]["name"])

    async def main() -> list[ActionReturn]:
        return [await executor(alias, '{"a": 1, "b": 2}'), await executor("AsKit.sadd", '{"a": 1}')]

    ok, bad = asyncio.run(main())
    assert (_text(ok), bad.state) == ("3", ActionStatusCode.ARGS_ERROR)
    assert hook.log == [
        ("before", "AsKit.sadd", {"a": 1, "b": 2}, "default"),
        ("after", "AsKit.sadd", 0),
        ("after", "AsKit.sadd", int(ActionStatusCode.ARGS_ERROR)),
    ]


def test_a_failing_async_hook_fails_the_call_closed() -> None:
    # Issue 20: a hook that raises no longer is skipped; the tool does not run.
    class AsBrokenHook:
        async def before_action(self, name: str, args: dict[str, Any], context: Any) -> None:
            raise RuntimeError("hook bug")

    executor = AsyncActionExecutor([AsKit()])
    executor.register_hook(AsBrokenHook())
    ret = asyncio.run(executor("AsKit.aadd", '{"a": 1, "b": 1}'))
    assert (ret.state, ret.result) == (ActionStatusCode.API_ERROR, None)
    assert (
        ret.errmsg
        == "AsKit.aadd did not run: the hook AsBrokenHook.before_action failed: RuntimeError: hook bug"
    )


def test_context_sessions_through_the_async_executor() -> None:
    executor = AsyncActionExecutor([AsCounter()])

    async def main() -> list[dict]:
        return [
            json.loads(_text(await executor("AsCounter", '{"key": "k"}', session_id=session)))
            for session in ("a", "a", "b", "a")
        ] + [json.loads(_text(await executor("AsCounter", '{"key": "k"}', call_id="call_9")))]

    rets = asyncio.run(main())
    assert [(r["session"], r["count"]) for r in rets] == [
        ("a", 1),
        ("a", 2),
        ("b", 1),
        ("a", 3),
        ("default", 1),
    ]
    assert rets[-1]["call_id"] == "call_9"
    assert all((r["tool"], r["api"], r["executor"]) == ("AsCounter", "run", True) for r in rets)
    assert executor.session_state("a") == {"k": 3}
    executor.end_session("a")
    assert executor.session_state("a") == {}


def test_context_parameter_is_hidden_from_the_schema() -> None:
    executor = AsyncActionExecutor([AsCounter()])
    schema = executor.to_openai_tools()[0]["function"]["parameters"]
    assert list(schema["properties"]) == ["key"]


# --------------------------------------------------------------------------- batches


def test_batch_returns_pairs_in_input_order() -> None:
    tool = AsChain()
    executor = AsyncActionExecutor([tool, AsKit()], timeout=30)
    # Later calls finish first.
    calls: list[Any] = [("AsChain", json.dumps({"i": i, "n": 10})) for i in range(10)]
    calls.insert(3, ("AsNope", "{}"))
    calls.insert(6, ("AsKit.aadd", '{"a": 1}'))
    rets = asyncio.run(executor.batch(calls))
    assert len(rets) == 12
    assert rets[3].valid == ActionValidCode.INVALID
    assert rets[6].state == ActionStatusCode.ARGS_ERROR
    values = [r.format_result() for i, r in enumerate(rets) if i not in (3, 6)]
    assert values == [str(i) for i in range(10)]
    assert tool.finished == list(range(9, -1, -1))


def test_batch_returns_openai_tool_calls_in_input_order_with_their_ids() -> None:
    executor = AsyncActionExecutor([AsCounter(), AsNap()])
    calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "AsCounter", "arguments": '{"key": "n"}'},
        }
        for i in range(5)
    ]
    calls.append(
        {"id": "call_nap", "type": "function", "function": {"name": "AsNap", "arguments": {"i": 42}}}
    )
    rets = asyncio.run(executor.batch(calls, session_id="s"))
    seen = [json.loads(_text(r)) for r in rets[:5]]
    assert [s["call_id"] for s in seen] == [f"call_{i}" for i in range(5)]
    assert {s["session"] for s in seen} == {"s"}
    assert sorted(s["count"] for s in seen) == [1, 2, 3, 4, 5]
    assert _text(rets[5]) == "42"
    assert executor.session_state("s") == {"n": 5}


def test_empty_batch() -> None:
    assert asyncio.run(AsyncActionExecutor([AsNap()]).batch([])) == []


def test_batch_of_1000_async_calls_runs_concurrently() -> None:
    tool = AsGated()
    executor = AsyncActionExecutor([tool], timeout=60)
    calls = [("AsGated", json.dumps({"i": i})) for i in range(1000)]

    async def main() -> list[ActionReturn]:
        batch = asyncio.create_task(executor.batch(calls, max_concurrency=None))
        # All 1000 calls are inside the tool at once before any may finish.
        await asyncio.wait_for(_until(lambda: tool.active == 1000 or batch.done()), 30)
        tool.gate().set()
        return await batch

    rets = asyncio.run(main())
    assert [r.format_result() for r in rets] == [str(i) for i in range(1000)]
    assert all(r.state == SUCCESS for r in rets)
    assert tool.peak == 1000


def test_batch_max_concurrency_limits_calls_in_flight() -> None:
    tool = AsGated()
    executor = AsyncActionExecutor([tool], timeout=60)
    calls = [("AsGated", json.dumps({"i": i})) for i in range(50)]

    async def main() -> tuple[list[ActionReturn], int]:
        batch = asyncio.create_task(executor.batch(calls, max_concurrency=10))
        await asyncio.wait_for(_until(lambda: tool.active == 10 or batch.done()), 30)
        for _ in range(100):  # turns of the loop in which an 11th call could start
            await asyncio.sleep(0)
        held = tool.active
        tool.gate().set()
        return await batch, held

    rets, held = asyncio.run(main())
    assert [r.format_result() for r in rets] == [str(i) for i in range(50)]
    assert (held, tool.peak) == (10, 10)


def test_hanging_call_delays_no_other_call_beyond_its_timeout() -> None:
    nap = AsNap()
    slow = AsSlowAsync()
    slow.__tool_settings__ = ToolSettings(timeout=0.3)
    executor = AsyncActionExecutor([slow, nap])
    calls = [("AsSlowAsync", '{"seconds": 30}')] + [
        ("AsNap", json.dumps({"i": i, "seconds": 0})) for i in range(20)
    ]

    async def main() -> tuple[list[ActionReturn], list[int]]:
        batch = asyncio.create_task(executor.batch(calls))
        # Every other call finishes while the hanging one still runs ...
        await asyncio.wait_for(_until(lambda: len(nap.finished) == 20 or batch.done()), 30)
        finished_before_the_timeout = [] if slow.cleaned_up else sorted(nap.finished)
        # ... and the batch ends at that call's timeout, not at its 30 s.
        return await batch, finished_before_the_timeout

    rets, finished_before_the_timeout = asyncio.run(main())
    assert finished_before_the_timeout == list(range(20))
    assert rets[0].state == TIMEOUT
    assert rets[0].errmsg == "'AsSlowAsync' timed out after 0.3 s"
    assert slow.cancelled and not slow.completed
    assert [r.format_result() for r in rets[1:]] == [str(i) for i in range(20)]


def test_batch_of_sync_calls_is_limited_by_max_workers() -> None:
    tool = AsBlockNap()
    executor = AsyncActionExecutor([tool], max_workers=8)
    calls = [("AsBlockNap", json.dumps({"i": i, "seconds": 0.01})) for i in range(32)]

    async def main() -> list[ActionReturn]:
        return await executor.batch(calls)

    rets = asyncio.run(main())
    assert [r.format_result() for r in rets] == [str(i) for i in range(32)]
    assert tool.peak <= 8
    assert len(tool.threads) <= 8


def test_batch_keeps_the_loop_free_for_other_tasks(released: list[AsWaitSync]) -> None:
    tool = AsWaitSync()
    released.append(tool)
    executor = AsyncActionExecutor([tool], max_workers=4)
    calls = [("AsWaitSync", json.dumps({"i": i, "seconds": 10})) for i in range(8)]

    async def main() -> tuple[list[ActionReturn], bool]:
        batch = asyncio.create_task(executor.batch(calls))
        # Sync calls block their threads; this task still runs and is the one to free them.
        await asyncio.wait_for(_until(lambda: tool.entered.is_set() or batch.done()), 30)
        freed_by_the_loop = not batch.done()
        tool.release.set()
        return await batch, freed_by_the_loop

    rets, freed_by_the_loop = asyncio.run(main())
    assert freed_by_the_loop
    assert [r.format_result() for r in rets] == [str(i) for i in range(8)]


# --------------------------------------------------------------------------- AsyncActionMixin


def test_mixin_awaits_async_and_sync_apis() -> None:
    tool = AsMixKit()

    async def main() -> tuple[ActionReturn, dict, int, ActionReturn]:
        added = await tool('{"a": 2, "b": 5}', "aadd")
        where = json.loads(_text(await tool("{}", "where")))
        echoed = await AsMixSimple()('{"text": "hi"}')
        return added, where, id(asyncio.get_running_loop()), echoed

    added, where, loop_id, echoed = asyncio.run(main())
    assert (_text(added), added.type, added.args) == ("7", "AsMixKit", {"a": 2, "b": 5})
    assert where["main"] is False and where["loop"] != loop_id
    assert (_text(echoed), echoed.type) == ("hi", "AsMixSimple")


def test_mixin_call_is_a_coroutine() -> None:
    call = AsMixSimple()('{"text": "x"}')
    assert asyncio.iscoroutine(call)
    assert _text(asyncio.run(call)) == "x"


def test_mixin_unknown_api_is_an_api_error() -> None:
    kit, simple = AsMixKit(), AsMixSimple()

    async def main() -> list[ActionReturn]:
        return [await kit("{}", "nope"), await simple('{"text": "x"}', "nope"), await kit("{}", None)]  # type: ignore[arg-type]

    rets = asyncio.run(main())
    assert all(r.state == ActionStatusCode.API_ERROR for r in rets)
    assert rets[0].args == {"inputs": "{}", "name": "nope"}
    assert rets[0].errmsg == "AsMixKit has no API 'nope'. Call one of: AsMixKit.aadd, AsMixKit.where"
    assert "simple tool" in (rets[1].errmsg or "")


def test_mixin_bad_input_is_an_args_error() -> None:
    kit = AsMixKit()

    async def main() -> list[ActionReturn]:
        return [
            await kit('{"a": 1}', "aadd"),
            await kit('{"a": "x", "b": 1}', "aadd"),
            await kit("{{", "aadd"),
        ]

    rets = asyncio.run(main())
    assert [r.state for r in rets] == [ActionStatusCode.ARGS_ERROR] * 3
    assert rets[0].args == {"inputs": '{"a": 1}', "name": "aadd"}
    # The same records as the sync executor's.
    sync_exec = ActionExecutor([AsMixKit()])
    expected = [sync_exec("AsMixKit.aadd", c).to_dict() for c in ('{"a": 1}', '{"a": "x", "b": 1}', "{{")]
    assert [r.to_dict() for r in rets] == expected


def test_mixin_tool_works_in_a_sync_executor() -> None:
    executor = ActionExecutor([AsMixKit(), AsMixSimple()])
    assert _text(executor("AsMixKit.aadd", '{"a": 1, "b": 2}')) == "3"
    assert json.loads(_text(executor("AsMixKit.where", "{}")))["main"] is True
    assert _text(executor("AsMixSimple", '{"text": "sync"}')) == "sync"
    assert executor("AsMixKit.nope", "{}").state == ActionStatusCode.API_ERROR
    assert executor("AsMixKit.aadd", '{"a": 1}').state == ActionStatusCode.ARGS_ERROR
    # And in the sync executor's batch.
    rets = executor.batch([("AsMixKit.aadd", '{"a": 1, "b": 1}'), ("AsMixSimple", '{"text": "b"}')])
    assert [r.format_result() for r in rets] == ["2", "b"]


def test_mixin_tool_works_in_an_async_executor() -> None:
    executor = AsyncActionExecutor([AsMixKit()])
    rets = asyncio.run(executor.batch([("AsMixKit.aadd", '{"a": 1, "b": 1}'), ("AsMixKit.where", "{}")]))
    assert _text(rets[0]) == "2"
    assert json.loads(_text(rets[1]))["main"] is False


# --------------------------------------------------------------------------- the sync executor, async APIs


def test_sync_executor_runs_async_apis_from_plain_code() -> None:
    executor = ActionExecutor([AsKit(), AsWhere()])
    assert _text(executor("AsKit.aadd", '{"a": 20, "b": 22}')) == "42"
    where = json.loads(_text(executor("AsWhere.coro", "{}")))
    assert where["main"] is True and where["loop"] != id(None)
    assert executor("AsKit.aboom", '{"x": 1}').errmsg == "ValueError: bad x 1"


def test_sync_executor_runs_async_apis_inside_a_running_loop() -> None:
    # Documented: the caller's loop cannot be re-entered, so the coroutine runs on a
    # private loop in a worker thread.
    executor = ActionExecutor([AsKit(), AsWhere()])

    async def main() -> tuple[ActionReturn, dict, int, ActionReturn]:
        ret = executor("AsKit.aadd", '{"a": 1, "b": 2}')
        where = json.loads(_text(executor("AsWhere.coro", "{}")))
        boom = executor("AsKit.aboom", '{"x": 2}')
        return ret, where, id(asyncio.get_running_loop()), boom

    ret, where, loop_id, boom = asyncio.run(main())
    assert _text(ret) == "3"
    assert where["main"] is False
    assert where["loop"] not in (loop_id, id(None))
    assert (boom.state, boom.errmsg) == (ActionStatusCode.API_ERROR, "ValueError: bad x 2")


def test_sync_executor_times_out_async_apis_inside_a_running_loop() -> None:
    tool = AsSlowAsync()
    executor = ActionExecutor([tool, AsKit()])

    async def main() -> tuple[ActionReturn, ActionReturn]:
        return executor("AsSlowAsync", '{"seconds": 30}'), executor("AsKit.aadd", '{"a": 1, "b": 1}')

    slow, quick = asyncio.run(main())
    assert (slow.state, slow.errmsg) == (TIMEOUT, "'AsSlowAsync' timed out after 0.1 s")
    assert _text(quick) == "2"


def test_sync_executor_runs_async_hooks_inside_a_running_loop() -> None:
    executor = ActionExecutor([AsFlaky(fails=0)])
    hook = AsRecordingHook()
    executor.register_hook(hook)

    async def main() -> ActionReturn:
        return executor("AsFlaky", '{"x": 7}')

    assert asyncio.run(main()).format_result() == "replaced"
    assert [entry[0] for entry in hook.log] == ["before", "after"]
