"""Throughput and per-call overhead of ``RayActionExecutor`` (a report, not a test).

Rows: a batch of ``--calls`` calls of a tool that sleeps ``--sleep`` seconds (a sync
tool, which runs in a replica's threads, and an async one), on ``--replicas`` actors
of ``--max-concurrency`` slots each; the time is compared with the ideal
``calls / slots * sleep`` (goal: at most 1.5x). Then the median round trip of a
trivial call, one at a time, against the local ``AsyncActionExecutor``: the price of
sending a call to another process. Ray runs locally with 2 CPUs and no dashboard;
``--quick`` shrinks everything for a smoke run. Needs ``lagent-like[ray]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from lagent_like import AsyncActionExecutor, BaseAction
from lagent_like.ray.executor import RayActionExecutor


class Sleeper(BaseAction):
    """Stands for an I/O-bound tool: a sync call that waits."""

    def run(self, seconds: float) -> str:
        """Sleep, then answer.

        Args:
            seconds: how long to sleep
        """
        time.sleep(seconds)
        return "done"


class AsyncSleeper(BaseAction):
    """Stands for an I/O-bound tool written with asyncio."""

    async def run(self, seconds: float) -> str:
        """Sleep without a thread, then answer.

        Args:
            seconds: how long to sleep
        """
        await asyncio.sleep(seconds)
        return "done"


class Echo(BaseAction):
    """A trivial tool: the cost of a call is all overhead."""

    def run(self, x: int) -> int:
        """Return ``x``.

        Args:
            x: any number
        """
        return x


async def _batch_seconds(executor: RayActionExecutor, tool: str, calls: int, sleep: float) -> float:
    start = time.perf_counter()
    records = await executor.batch([(tool, {"seconds": sleep})] * calls)
    elapsed = time.perf_counter() - start
    failed = [r.errmsg for r in records if r.errmsg]
    if failed:
        raise SystemExit(f"{len(failed)} calls failed, e.g. {failed[0]}")
    return elapsed


async def _median_call(executor: AsyncActionExecutor, calls: int) -> float:
    times = []
    for i in range(calls):
        start = time.perf_counter()
        await executor("Echo", f'{{"x": {i}}}')
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def main(args: argparse.Namespace) -> None:
    """Run the rows and print them."""
    slots = args.replicas * args.max_concurrency
    ideal = args.calls / slots * args.sleep
    started = time.perf_counter()
    async with RayActionExecutor(
        [Sleeper(), AsyncSleeper(), Echo()],
        replicas={"Sleeper": args.replicas, "AsyncSleeper": args.replicas},
        max_concurrency={"Sleeper": args.max_concurrency, "AsyncSleeper": args.max_concurrency},
    ) as executor:
        # Warm-up: every replica started, its threads created, Ray's paths hot.
        for tool in ("Sleeper", "AsyncSleeper"):
            await executor.batch([(tool, {"seconds": 0.0})] * slots)
        await executor("Echo", '{"x": 0}')
        actors = 2 * args.replicas + 1
        print(f"start-up (ray.init, {actors} actors, warm-up): {time.perf_counter() - started:.1f} s")
        print(
            f"slots: {args.replicas} replicas x {args.max_concurrency} = {slots}; "
            f"ideal for {args.calls} calls of {args.sleep * 1000:.0f} ms: {ideal:.2f} s"
        )
        for tool in ("Sleeper", "AsyncSleeper"):
            elapsed = await _batch_seconds(executor, tool, args.calls, args.sleep)
            verdict = "ok" if elapsed / ideal <= 1.5 else "over the 1.5x goal"
            print(
                f"{tool:>12} batch: {elapsed:.2f} s, {elapsed / ideal:.2f}x ideal ({verdict}), "
                f"{args.calls / elapsed:.0f} calls/s"
            )
        remote = await _median_call(executor, args.trivial)
    local_executor = AsyncActionExecutor([Echo()])
    local = await _median_call(local_executor, args.trivial)
    print(
        f"trivial call, median of {args.trivial}: ray {remote * 1000:.2f} ms, local {local * 1e6:.1f} us, "
        f"overhead {(remote - local) * 1000:.2f} ms per call"
    )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls in the batch")
    parser.add_argument("--sleep", type=float, default=0.1, help="seconds each call sleeps")
    parser.add_argument("--replicas", type=int, default=4, help="actors per sleeping tool")
    parser.add_argument("--max-concurrency", type=int, default=50, help="calls per actor at once")
    parser.add_argument("--trivial", type=int, default=300, help="trivial calls timed one by one")
    parser.add_argument("--quick", action="store_true", help="a small run for smoke tests")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.replicas, args.max_concurrency, args.trivial = 200, 2, 20, 30
    return args


if __name__ == "__main__":
    asyncio.run(main(_arguments()))
