"""Retry and circuit-breaker decisions, kept apart from the code that runs tools.

A flaky tool (a rate-limited API, a dropped connection) should be tried again after a
growing pause, and a tool that keeps failing should be left alone for a while so that
an agent gets an answer at once instead of waiting on every call (SPEC 8.6). Both the
synchronous and the asynchronous executor need exactly the same decisions, but one
sleeps with ``time.sleep`` and the other with ``asyncio.sleep``. So this module holds
only the decisions: it does no I/O, starts no threads and never sleeps. The executor
asks and acts:

* :class:`RetryPolicy` says whether a failed attempt should be tried again
  (:meth:`~RetryPolicy.should_retry`) and how long to wait first
  (:meth:`~RetryPolicy.delay`, with the randomness passed in so tests are exact);
* :class:`CircuitBreaker` says whether a call may go ahead at all
  (:meth:`~CircuitBreaker.before_call`) and learns from each outcome
  (:meth:`~CircuitBreaker.record_success`, :meth:`~CircuitBreaker.record_failure`).
  Its clock is injectable, and it is safe to share between threads.

A sketch of the executor's loop::

    wait = breaker.before_call()
    if wait is not None:            # open: answer at once, never 'if wait:'
        return circuit_open_return(wait)
    attempt = 1
    while True:
        error, ret = run_once()     # the exception (or None) and the ActionReturn
        if ret.state == ActionStatusCode.SUCCESS:
            breaker.record_success()
            return ret
        if not policy.should_retry(error, ret.state, attempt):
            breaker.record_failure()
            return ret
        sleep(policy.delay(attempt, random.random))
        attempt += 1
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable, Optional

from .._private.arg_checks import check_arguments, is_duration, is_positive_count
from ..exceptions import TransientToolError
from ..schema import ActionStatusCode

__all__ = ["CircuitBreaker", "CircuitState", "RetryPolicy"]


def _is_fraction(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1


def _is_exception_class(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


def _as_exception_classes(value: object) -> object:
    """Normalise ``retry_on``: a lone class or a list becomes a tuple; anything else is kept for the check."""
    if _is_exception_class(value):
        return (value,)
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return tuple(value)
    return value


def _all_exception_classes(value: object) -> bool:
    return isinstance(value, tuple) and all(_is_exception_class(item) for item in value)


@dataclass(frozen=True)
class RetryPolicy:
    """When to try a failed call again, and how long to wait before each new attempt.

    The policy is immutable and holds no state between calls, so one instance can be
    shared by every tool and every thread; the executor counts the attempts.

    Attributes:
        max_attempts: how many attempts in total, the first included (``1`` never
            retries). At least 1.
        base_delay: seconds to wait after the first failed attempt; each further
            failure doubles it. Finite, not negative.
        max_delay: the cap on the doubled delay, before jitter. Finite, not negative.
        jitter: how far, as a fraction of the delay, each delay is moved at random up or
            down (uniformly), so that many clients do not retry in step. Between 0 and 1.
        retry_on: the exceptions that mark a failure as transient. A lone class or a
            list is accepted and stored as a tuple; an empty tuple retries only timeouts.
        retry_timeouts: whether a call that ended with
            :attr:`~lagent_like.ActionStatusCode.TIMEOUT` (the executor's own
            timeout) is retried. This flag alone decides for such calls, whatever
            exception carried the timeout.

    Raises:
        ValueError: a field is out of range or of the wrong kind; the message names the
            field and the value.
    """

    max_attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    jitter: float = 0.1
    retry_on: tuple[type[BaseException], ...] = (TransientToolError, TimeoutError, ConnectionError)
    retry_timeouts: bool = True

    def __post_init__(self) -> None:
        # Frozen: the normalised tuple is written past __setattr__, once, before any use.
        object.__setattr__(self, "retry_on", _as_exception_classes(self.retry_on))
        check_arguments(
            "RetryPolicy",
            [
                ("max_attempts", self.max_attempts, is_positive_count, "an int >= 1"),
                ("base_delay", self.base_delay, is_duration, "a finite number >= 0"),
                ("max_delay", self.max_delay, is_duration, "a finite number >= 0"),
                ("jitter", self.jitter, _is_fraction, "a number between 0 and 1"),
                ("retry_on", self.retry_on, _all_exception_classes, "a tuple of exception classes"),
                ("retry_timeouts", self.retry_timeouts, lambda v: isinstance(v, bool), "a bool"),
            ],
        )

    def should_retry(self, error: Optional[BaseException], state: int, attempt: int) -> bool:
        """Decide whether the attempt that just failed should be followed by another.

        Args:
            error: the exception the attempt raised, or ``None`` if it raised none
                (e.g. the executor gave up waiting and only ``state`` tells).
            state: the :class:`~lagent_like.ActionStatusCode` the attempt ended with.
            attempt: the 1-based number of the attempt that just failed.

        Returns:
            ``True`` only when fewer than ``max_attempts`` attempts have been made and
            the failure is transient: ``state`` is ``TIMEOUT`` and ``retry_timeouts``
            is set, or (for any other state) ``error`` is an instance of ``retry_on``.

        Raises:
            ValueError: ``attempt`` is not an int >= 1.
        """
        check_arguments("RetryPolicy.should_retry", [("attempt", attempt, is_positive_count, "an int >= 1")])
        if attempt >= self.max_attempts:
            return False
        if state == ActionStatusCode.TIMEOUT:
            return self.retry_timeouts
        return isinstance(error, self.retry_on)

    def delay(self, attempt: int, random: Callable[[], float]) -> float:
        """Seconds to wait after a failed attempt, before the next one.

        The delay doubles with each attempt up to ``max_delay``:
        ``min(max_delay, base_delay * 2 ** (attempt - 1))``; jitter then moves it by up to
        ``jitter`` of itself either way: ``delay * (1 + jitter * (2 * random() - 1))``. So
        with jitter the wait may exceed ``max_delay`` by that fraction; it is never
        negative.

        Args:
            attempt: the 1-based number of the attempt that just failed.
            random: returns a float in ``[0, 1)`` (``random.random``); tests pass a
                constant to get exact values. ``0.5`` gives the delay without jitter.

        Returns:
            The number of seconds to wait, ``>= 0``.

        Raises:
            ValueError: ``attempt`` is not an int >= 1.
        """
        check_arguments("RetryPolicy.delay", [("attempt", attempt, is_positive_count, "an int >= 1")])
        # 2.0 ** 1024 overflows; far past any max_delay anyway, where min() takes over.
        backoff = min(self.max_delay, self.base_delay * 2.0 ** min(attempt - 1, 1023))
        return max(0.0, backoff * (1 + self.jitter * (2 * random() - 1)))


class CircuitState(str, Enum):
    """The states of a :class:`CircuitBreaker`; the values are the names used in logs."""

    #: Calls go through; consecutive failures are counted.
    CLOSED = "closed"
    #: Calls are refused at once until ``reset_timeout`` has passed.
    OPEN = "open"
    #: One trial call is under way; its outcome closes or reopens the breaker.
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Stops calling a tool that keeps failing, then lets one trial call find out if it is back.

    * **closed**: every call may proceed. Each :meth:`record_failure` adds to a count of
      consecutive failures and :meth:`record_success` clears it; when the count reaches
      ``failure_threshold`` the breaker opens.
    * **open**: :meth:`before_call` refuses at once, returning the seconds left until
      ``reset_timeout`` has passed since the breaker opened. After that, the next
      :meth:`before_call` moves to half-open and lets that one call through.
    * **half_open**: exactly one trial call is under way. Its :meth:`record_success`
      closes the breaker; its :meth:`record_failure` reopens it for another
      ``reset_timeout``. Any other caller meanwhile is refused with the seconds until a
      new trial would be allowed if this one never reports, which is ``reset_timeout``
      after the trial began (always more than 0, so ``if wait is not None`` and
      ``if wait`` agree). A trial that has not reported by then is taken as lost (say
      its caller crashed) and the next caller becomes the new trial, so a forgotten
      report can never hold the breaker half-open for good.

    The executor decides which outcomes count: typically a call the tool answered is a
    success, one that raised or timed out is a failure, and one refused before reaching
    the tool (bad arguments) is neither. Reports arriving while the breaker is open
    (calls that began before it opened) follow the same rules: a success closes it, a
    failure is counted but does not extend the wait.

    The state changes only in these methods, never by itself: an open breaker whose
    ``reset_timeout`` has passed still reads ``'open'`` until the next
    :meth:`before_call`. Every method takes a lock, so one breaker can be shared by
    threads; the clock is called under that lock and should be quick.

    Args:
        failure_threshold: consecutive failures that open the breaker; at least 1.
        reset_timeout: seconds the breaker stays open before a trial call; finite, not
            negative (``0`` allows a trial on the next call).
        clock: returns the current time in seconds; defaults to :func:`time.monotonic`.
            Tests pass a fake clock.

    Raises:
        ValueError: an argument is out of range or of the wrong kind; the message names it.
    """

    def __init__(
        self,
        failure_threshold: int = 5,
        reset_timeout: float = 30.0,
        clock: Optional[Callable[[], float]] = None,
    ) -> None:
        check_arguments(
            "CircuitBreaker",
            [
                ("failure_threshold", failure_threshold, is_positive_count, "an int >= 1"),
                ("reset_timeout", reset_timeout, is_duration, "a finite number >= 0"),
                ("clock", clock, lambda v: v is None or callable(v), "a callable returning seconds, or None"),
            ],
        )
        self._failure_threshold = failure_threshold
        self._reset_timeout = float(reset_timeout)
        self._clock: Callable[[], float] = time.monotonic if clock is None else clock
        self._lock = threading.Lock()
        self._state = CircuitState.CLOSED
        self._failures = 0
        self._opened_at: Optional[float] = None
        self._retry_at: Optional[float] = None

    # -- configuration -------------------------------------------------------------

    @property
    def failure_threshold(self) -> int:
        """Consecutive failures that open the breaker."""
        return self._failure_threshold

    @property
    def reset_timeout(self) -> float:
        """Seconds the breaker stays open before it lets a trial call through."""
        return self._reset_timeout

    # -- monitoring ----------------------------------------------------------------

    @property
    def state(self) -> CircuitState:
        """The current state (a ``str`` enum: compares equal to ``'closed'`` etc.)."""
        with self._lock:
            return self._state

    @property
    def failures(self) -> int:
        """Failures recorded since the last success (or :meth:`reset`)."""
        with self._lock:
            return self._failures

    @property
    def opened_at(self) -> Optional[float]:
        """Clock time the breaker last opened; ``None`` while closed."""
        with self._lock:
            return self._opened_at

    @property
    def retry_at(self) -> Optional[float]:
        """Clock time from which :meth:`before_call` lets a call through again; ``None`` while closed.

        When open, the time the trial call is allowed; when half-open, the time a new
        trial is allowed if the current one has not reported.
        """
        with self._lock:
            return self._retry_at

    def snapshot(self) -> dict[str, Any]:
        """The monitoring values, read together, for logs and metrics.

        Returns:
            A dict with ``state`` (its plain string value), ``failures`` (int),
            ``opened_at`` and ``retry_at`` (clock times, or ``None``).
        """
        with self._lock:
            return {
                "state": self._state.value,
                "failures": self._failures,
                "opened_at": self._opened_at,
                "retry_at": self._retry_at,
            }

    def __repr__(self) -> str:
        snap = self.snapshot()
        return (
            f"CircuitBreaker(state={snap['state']!r}, failures={snap['failures']}, "
            f"failure_threshold={self._failure_threshold}, reset_timeout={self._reset_timeout})"
        )

    # -- decisions -----------------------------------------------------------------

    def before_call(self) -> Optional[float]:
        """Ask whether a call may proceed; call it once before each call (not each retry).

        Returns:
            ``None`` when the call may proceed (closed, or this call is the half-open
            trial). Otherwise the seconds to wait before asking again, always ``> 0``:
            while open, until ``reset_timeout`` has passed since opening; while a trial
            is under way, until that trial is taken as lost. The executor answers a
            refused call at once. Test with ``is None``.
        """
        with self._lock:
            if self._state is CircuitState.CLOSED:
                return None
            # Open or half-open: a call goes through only once retry_at is reached, and
            # then it is the (new) trial, which holds the way for another reset_timeout.
            now = self._clock()
            retry_at = now if self._retry_at is None else self._retry_at  # never None here
            if now < retry_at:
                return retry_at - now
            self._state = CircuitState.HALF_OPEN
            self._retry_at = now + self._reset_timeout
            return None

    def record_success(self) -> None:
        """Report a successful call: the breaker closes and the failure count resets."""
        with self._lock:
            self._close()

    def record_failure(self) -> None:
        """Report a failed call.

        Closed: the consecutive-failure count grows and the breaker opens when it
        reaches ``failure_threshold``. Half-open: the trial failed, so the breaker opens
        again for another ``reset_timeout``. Open: only the count grows.
        """
        with self._lock:
            self._failures += 1
            if _FAILURE_OPENS[self._state](self._failures, self._failure_threshold):
                now = self._clock()
                self._state = CircuitState.OPEN
                self._opened_at = now
                self._retry_at = now + self._reset_timeout

    def reset(self) -> None:
        """Close the breaker and forget every failure, as if newly made."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        # Callers hold the lock.
        self._state = CircuitState.CLOSED
        self._failures = 0
        self._opened_at = None
        self._retry_at = None


#: Whether a failure recorded in a state opens the breaker, given (failures, threshold).
_FAILURE_OPENS: dict[CircuitState, Callable[[int, int], bool]] = {
    CircuitState.CLOSED: lambda failures, threshold: failures >= threshold,
    CircuitState.HALF_OPEN: lambda failures, threshold: True,
    CircuitState.OPEN: lambda failures, threshold: False,
}
