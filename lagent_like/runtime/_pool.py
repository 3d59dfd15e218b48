"""A thread pool whose threads never keep the interpreter alive.

``concurrent.futures.ThreadPoolExecutor`` joins its threads at exit and
``asyncio.run`` waits for its default executor, so one sync tool stuck in an endless
loop (whose thread cannot be killed) would hang the program after its call timed out.
These workers are daemon threads: a stuck one is abandoned at exit.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from typing import Any, Callable, Optional

_Job = Optional[tuple["concurrent.futures.Future[Any]", Callable[..., Any], tuple[Any, ...]]]


class DaemonThreadPool:
    """At most ``max_workers`` daemon threads, started on demand, running submitted calls.

    A worker whose call was abandoned (:meth:`abandon`: its caller timed out) no longer
    counts: the pool starts a replacement when work is waiting, and the abandoned
    thread exits when its call finally returns. So a burst of calls that all time out
    leaves the pool as able to serve as before.

    Args:
        max_workers: the most calls that run at once (abandoned ones not counted).
        name: prefix of the threads' names.
    """

    def __init__(self, max_workers: int, name: str = "lagent-like") -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, got {max_workers}")
        self.max_workers = max_workers
        self._name = name
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []  # the workers that count
        self._busy = 0  # counting workers running a call
        self._queued = 0  # jobs not yet taken by a worker
        self._running: dict[concurrent.futures.Future[Any], threading.Thread] = {}
        self._abandoned: set[threading.Thread] = set()
        self._started = 0

    def submit(self, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        """Run ``fn(*args)`` on a worker; the future holds its result or exception."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            self._queued += 1
            idle = len(self._threads) - self._busy
            if idle < self._queued and len(self._threads) < self.max_workers:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{self._started}", daemon=True
                )
                self._started += 1
                self._threads.append(thread)
                thread.start()
        self._jobs.put((future, fn, args))
        return future

    def _work(self) -> None:
        me = threading.current_thread()
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, fn, args = job
            with self._lock:
                self._queued -= 1
                self._busy += 1
                self._running[future] = me
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:  # noqa: BLE001 - handed to whoever waits
                    future.set_exception(exc)
            with self._lock:
                self._running.pop(future, None)
                if me in self._abandoned:
                    # Replaced while its call ran: it no longer counts, and leaves.
                    self._abandoned.discard(me)
                    return
                self._busy -= 1

    def abandon(self, future: concurrent.futures.Future[Any]) -> None:
        """Give up on ``future``'s call: cancelled if it has not started, else its worker is replaced.

        A call that is running cannot be stopped; its thread stops counting towards
        ``max_workers`` at once (so a waiting or later call gets a new thread) and
        exits when the call returns.
        """
        if future.cancel():
            return
        with self._lock:
            thread = self._running.get(future)
            if thread is None or thread in self._abandoned or future.done():
                return
            self._abandoned.add(thread)
            self._threads.remove(thread)
            self._busy -= 1
            waiting = self._queued
            idle = len(self._threads) - self._busy
            if waiting > idle and len(self._threads) < self.max_workers:
                # Work is already queued: start its replacement now.
                replacement = threading.Thread(
                    target=self._work, name=f"{self._name}-{self._started}", daemon=True
                )
                self._started += 1
                self._threads.append(replacement)
                replacement.start()

    def shutdown(self) -> None:
        """Let idle workers exit; busy ones finish their call first (or are abandoned at exit)."""
        with self._lock:
            threads = list(self._threads)
            self._threads.clear()
        for _ in threads:
            self._jobs.put(None)
