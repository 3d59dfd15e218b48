"""The executors' thread pool survives bursts of calls that time out.

A sync tool that runs past its timeout cannot be stopped: its thread runs on. The pool
gives such a worker up and replaces it, and a call still queued when its caller gives
up never runs, so after any burst a fast call answers normally.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from lagent_like import ActionExecutor, ActionStatusCode, AsyncActionExecutor, BaseAction
from lagent_like.runtime._pool import DaemonThreadPool

MAX_WORKERS = 2
SLOW_SECONDS = 1.0
TIMEOUT = 0.2


class PoolSleeper(BaseAction):
    def run(self, seconds: float) -> str:
        """Sleep, then say how long.

        Args:
            seconds: how long to sleep
        """
        time.sleep(seconds)
        return f"slept {seconds}"


SLOW = f'{{"seconds": {SLOW_SECONDS}}}'
FAST = '{"seconds": 0}'
TIMED_OUT = f"'PoolSleeper' timed out after {TIMEOUT} s"


def test_async_executor_answers_a_fast_call_after_a_burst_of_three_times_max_workers() -> None:
    executor = AsyncActionExecutor([PoolSleeper()], timeout=TIMEOUT, max_workers=MAX_WORKERS)

    async def burst_then_fast() -> tuple[list[tuple[ActionStatusCode, str]], tuple[ActionStatusCode, str]]:
        burst = await asyncio.gather(*(executor("PoolSleeper", SLOW) for _ in range(3 * MAX_WORKERS)))
        fast = await executor("PoolSleeper", FAST)
        return [(r.state, r.errmsg or "") for r in burst], (fast.state, fast.format_result())

    burst, fast = asyncio.run(burst_then_fast())
    assert burst == [(ActionStatusCode.TIMEOUT, TIMED_OUT)] * (3 * MAX_WORKERS)
    # Answered at once: queued behind the stuck calls it would have timed out too.
    assert fast == (ActionStatusCode.SUCCESS, "slept 0.0")


def test_async_executor_keeps_answering_after_repeated_bursts() -> None:
    executor = AsyncActionExecutor([PoolSleeper()], timeout=TIMEOUT, max_workers=MAX_WORKERS)

    async def rounds() -> list[str]:
        answers = []
        for _ in range(3):
            await asyncio.gather(*(executor("PoolSleeper", SLOW) for _ in range(3 * MAX_WORKERS)))
            answers.append((await executor("PoolSleeper", FAST)).format_result())
        return answers

    assert asyncio.run(rounds()) == ["slept 0.0"] * 3


def test_sync_executor_answers_a_fast_call_after_a_burst_of_three_times_max_workers() -> None:
    executor = ActionExecutor([PoolSleeper()], timeout=TIMEOUT, max_workers=MAX_WORKERS)
    burst = executor.batch([("PoolSleeper", SLOW)] * (3 * MAX_WORKERS), max_concurrency=3 * MAX_WORKERS)
    assert [(r.state, r.errmsg) for r in burst] == [(ActionStatusCode.TIMEOUT, TIMED_OUT)] * (3 * MAX_WORKERS)
    fast = executor("PoolSleeper", FAST)
    assert (fast.state, fast.format_result()) == (ActionStatusCode.SUCCESS, "slept 0.0")


def test_pool_never_runs_a_call_abandoned_while_queued() -> None:
    pool = DaemonThreadPool(1, "test-pool")
    release = threading.Event()
    ran: list[str] = []
    busy = pool.submit(release.wait, 5)
    queued = pool.submit(ran.append, "queued")
    pool.abandon(queued)
    release.set()
    assert busy.result(timeout=5) is True
    assert pool.submit(ran.append, "later").result(timeout=5) is None
    assert queued.cancelled()
    assert ran == ["later"]
    pool.shutdown()


def test_pool_replaces_a_worker_given_up_while_running() -> None:
    pool = DaemonThreadPool(1, "test-pool")
    release, started = threading.Event(), threading.Event()

    def stuck_call() -> bool:
        started.set()
        return release.wait(30)

    stuck = pool.submit(stuck_call)
    assert started.wait(30)  # the only worker runs the stuck call
    pool.abandon(stuck)
    try:
        assert pool.submit(lambda: "fresh").result(timeout=30) == "fresh"
    finally:
        release.set()
    assert stuck.result(timeout=5) is True  # the abandoned call still ends, unobserved
    pool.shutdown()


@pytest.mark.parametrize("workers", [0, -1], ids=["zero", "negative"])
def test_pool_needs_at_least_one_worker(workers: int) -> None:
    with pytest.raises(ValueError, match=f"max_workers must be at least 1, got {workers}"):
        DaemonThreadPool(workers)
