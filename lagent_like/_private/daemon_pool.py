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

    Args:
        max_workers: the most calls that run at once.
        name: prefix of the threads' names.
    """

    def __init__(self, max_workers: int, name: str = "lagent-like") -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, got {max_workers}")
        self.max_workers = max_workers
        self._name = name
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._lost = 0

    def submit(self, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        """Run ``fn(*args)`` on a worker; the future holds its result or exception."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            if self._idle == 0 and len(self._threads) - self._lost < self.max_workers:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            else:
                self._idle -= 1 if self._idle else 0
        self._jobs.put((future, fn, args))
        return future

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, fn, args = job
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:  # noqa: BLE001 - handed to whoever waits
                    future.set_exception(exc)
            with self._lock:
                if self._lost:
                    # A worker given up for lost has been replaced: one thread retires.
                    self._lost -= 1
                    self._threads.remove(threading.current_thread())
                    return
                self._idle += 1

    def forget_one(self) -> None:
        """Count one busy worker as lost (stuck in a call nobody waits for any more).

        The pool may then start a replacement; when a lost worker does finish, one
        worker retires, so the pool returns to its size.
        """
        with self._lock:
            self._lost += 1

    def shutdown(self) -> None:
        """Let idle workers exit; busy ones finish their call first (or are abandoned at exit)."""
        with self._lock:
            threads = list(self._threads)
            self._threads.clear()
            self._idle = 0
        for _ in threads:
            self._jobs.put(None)
