"""``RetryPolicy`` and ``CircuitBreaker``: the decisions the executors act on (SPEC 8.6)."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import FrozenInstanceError
from typing import Any, Callable, Optional

import pytest

from lagent_like.exceptions import ToolError, TransientToolError
from lagent_like.runtime.policies import CircuitBreaker, CircuitState, RetryPolicy
from lagent_like.schema import ActionStatusCode


class FakeClock:
    """A clock that only moves when a test moves it.

    With ``pause``, each reading also gives up the CPU for that long, so that threads
    would overlap inside the breaker if it did not hold its lock; ``most_readers`` is
    the largest number of threads seen reading the clock at the same time.
    """

    def __init__(self, now: float = 100.0, pause: float = 0.0) -> None:
        self.now = now
        self.pause = pause
        self.most_readers = 0
        self._readers = 0
        self._count_lock = threading.Lock()

    def __call__(self) -> float:
        with self._count_lock:
            self._readers += 1
            self.most_readers = max(self.most_readers, self._readers)
        if self.pause:
            time.sleep(self.pause)
        with self._count_lock:
            self._readers -= 1
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def fixed(value: float) -> Callable[[], float]:
    """A stand-in for ``random.random`` that always returns ``value``."""
    return lambda: value


NO_JITTER = fixed(0.5)


class RateLimited(TransientToolError):
    """A tool's own transient error, retried through its base class."""


# -- RetryPolicy: back-off ---------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        pytest.param(
            RetryPolicy(base_delay=0.5, max_delay=8.0),
            [0.5, 1.0, 2.0, 4.0, 8.0, 8.0],
            id="default-doubling-capped-at-8",
        ),
        pytest.param(
            RetryPolicy(base_delay=1.0, max_delay=3.0), [1.0, 2.0, 3.0, 3.0], id="cap-between-powers"
        ),
        pytest.param(RetryPolicy(base_delay=0.0, max_delay=8.0), [0.0, 0.0, 0.0], id="zero-base"),
        pytest.param(RetryPolicy(base_delay=2.0, max_delay=1.0), [1.0, 1.0], id="base-above-cap"),
    ],
)
def test_delay_doubles_per_attempt_up_to_max_delay(policy: RetryPolicy, expected: list[float]) -> None:
    delays = [policy.delay(attempt, NO_JITTER) for attempt in range(1, len(expected) + 1)]
    assert delays == expected


@pytest.mark.parametrize(
    ("random_value", "expected"),
    [
        pytest.param(0.0, [1.5, 3.0, 6.0, 6.0], id="random-0-lowest"),
        pytest.param(0.5, [2.0, 4.0, 8.0, 8.0], id="random-half-no-jitter"),
        pytest.param(1.0, [2.5, 5.0, 10.0, 10.0], id="random-1-highest"),
    ],
)
def test_jitter_moves_delay_by_at_most_its_fraction(random_value: float, expected: list[float]) -> None:
    policy = RetryPolicy(base_delay=2.0, max_delay=8.0, jitter=0.25)
    assert [policy.delay(attempt, fixed(random_value)) for attempt in range(1, 5)] == expected


def test_default_jitter_bounds_are_ten_percent() -> None:
    policy = RetryPolicy()
    assert policy.delay(2, fixed(0.0)) == 0.9
    assert policy.delay(2, fixed(1.0)) == 1.1


@pytest.mark.parametrize(
    "random_value", [pytest.param(0.0, id="random-0"), pytest.param(0.999999, id="random-near-1")]
)
def test_full_jitter_never_goes_negative(random_value: float) -> None:
    policy = RetryPolicy(base_delay=1.0, jitter=1.0)
    assert 0.0 <= policy.delay(1, fixed(random_value)) < 2.0


def test_zero_jitter_ignores_random() -> None:
    policy = RetryPolicy(base_delay=1.0, jitter=0.0)
    assert [policy.delay(3, fixed(value)) for value in (0.0, 0.3, 0.99)] == [4.0, 4.0, 4.0]


def test_delay_of_a_huge_attempt_number_is_the_cap() -> None:
    assert RetryPolicy(max_delay=8.0).delay(5000, NO_JITTER) == 8.0


def test_delay_calls_random_once() -> None:
    calls: list[None] = []

    def counting() -> float:
        calls.append(None)
        return 0.5

    RetryPolicy().delay(1, counting)
    assert len(calls) == 1


# -- RetryPolicy: decisions --------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "state", "attempt", "expected"),
    [
        pytest.param(
            TransientToolError("rate limited"), ActionStatusCode.API_ERROR, 1, True, id="transient-tool-error"
        ),
        pytest.param(RateLimited("slow down"), ActionStatusCode.API_ERROR, 1, True, id="transient-subclass"),
        pytest.param(
            ToolError("no such city"), ActionStatusCode.API_ERROR, 1, False, id="tool-error-not-transient"
        ),
        pytest.param(ValueError("bad"), ActionStatusCode.API_ERROR, 1, False, id="value-error"),
        pytest.param(TimeoutError("slow"), ActionStatusCode.API_ERROR, 1, True, id="timeout-error"),
        pytest.param(ConnectionError("reset"), ActionStatusCode.API_ERROR, 1, True, id="connection-error"),
        pytest.param(
            ConnectionResetError("reset"), ActionStatusCode.API_ERROR, 2, True, id="connection-error-subclass"
        ),
        pytest.param(None, ActionStatusCode.TIMEOUT, 1, True, id="timeout-state-without-exception"),
        pytest.param(None, int(ActionStatusCode.TIMEOUT), 1, True, id="timeout-state-as-plain-int"),
        pytest.param(None, ActionStatusCode.API_ERROR, 1, False, id="no-exception-no-timeout"),
        pytest.param(None, ActionStatusCode.ARGS_ERROR, 1, False, id="args-error"),
        pytest.param(TransientToolError("again"), ActionStatusCode.API_ERROR, 2, True, id="second-of-three"),
        pytest.param(TransientToolError("again"), ActionStatusCode.API_ERROR, 3, False, id="last-attempt"),
        pytest.param(None, ActionStatusCode.TIMEOUT, 3, False, id="last-attempt-timeout"),
        pytest.param(
            TransientToolError("again"), ActionStatusCode.API_ERROR, 7, False, id="past-last-attempt"
        ),
    ],
)
def test_should_retry_default_policy(
    error: Optional[BaseException], state: int, attempt: int, expected: bool
) -> None:
    assert RetryPolicy().should_retry(error, state, attempt) is expected


@pytest.mark.parametrize(
    ("policy", "error", "state", "expected"),
    [
        pytest.param(
            RetryPolicy(retry_timeouts=False), None, ActionStatusCode.TIMEOUT, False, id="timeouts-off"
        ),
        pytest.param(
            RetryPolicy(retry_timeouts=False),
            TimeoutError("t"),
            ActionStatusCode.TIMEOUT,
            False,
            id="timeouts-off-wins-over-retry-on",
        ),
        pytest.param(
            RetryPolicy(retry_on=()),
            TransientToolError("x"),
            ActionStatusCode.API_ERROR,
            False,
            id="empty-retry-on",
        ),
        pytest.param(
            RetryPolicy(retry_on=()),
            None,
            ActionStatusCode.TIMEOUT,
            True,
            id="empty-retry-on-still-retries-timeouts",
        ),
        pytest.param(
            RetryPolicy(retry_on=(ValueError,)),
            ValueError("x"),
            ActionStatusCode.API_ERROR,
            True,
            id="custom-retry-on",
        ),
        pytest.param(
            RetryPolicy(retry_on=(ValueError,)),
            ConnectionError("x"),
            ActionStatusCode.API_ERROR,
            False,
            id="custom-replaces-default",
        ),
        pytest.param(
            RetryPolicy(max_attempts=1),
            TransientToolError("x"),
            ActionStatusCode.API_ERROR,
            False,
            id="single-attempt",
        ),
    ],
)
def test_should_retry_configured_policy(
    policy: RetryPolicy, error: Optional[BaseException], state: int, expected: bool
) -> None:
    assert policy.should_retry(error, state, 1) is expected


@pytest.mark.parametrize(
    "method", [pytest.param("should_retry", id="should_retry"), pytest.param("delay", id="delay")]
)
@pytest.mark.parametrize(
    "attempt", [pytest.param(0, id="zero"), pytest.param(-1, id="negative"), pytest.param(1.0, id="float")]
)
def test_attempt_numbers_start_at_one(method: str, attempt: Any) -> None:
    calls: dict[str, Callable[[RetryPolicy], object]] = {
        "should_retry": lambda policy: policy.should_retry(None, ActionStatusCode.TIMEOUT, attempt),
        "delay": lambda policy: policy.delay(attempt, NO_JITTER),
    }
    with pytest.raises(
        ValueError,
        match=f"^RetryPolicy\\.{method}: attempt must be an int >= 1, got {re.escape(repr(attempt))}$",
    ):
        calls[method](RetryPolicy())


# -- RetryPolicy: construction -----------------------------------------------------


def test_defaults() -> None:
    policy = RetryPolicy()
    assert (policy.max_attempts, policy.base_delay, policy.max_delay, policy.jitter) == (3, 0.5, 8.0, 0.1)
    assert policy.retry_on == (TransientToolError, TimeoutError, ConnectionError)
    assert policy.retry_timeouts is True


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        pytest.param(ValueError, (ValueError,), id="lone-class"),
        pytest.param([ValueError, KeyError], (ValueError, KeyError), id="list"),
        pytest.param((), (), id="empty"),
    ],
)
def test_retry_on_is_stored_as_a_tuple(given: Any, stored: tuple[type[BaseException], ...]) -> None:
    policy = RetryPolicy(retry_on=given)
    assert policy.retry_on == stored
    assert hash(policy) == hash(RetryPolicy(retry_on=stored))


def test_policy_is_immutable_and_comparable() -> None:
    policy = RetryPolicy(max_attempts=5)
    with pytest.raises(FrozenInstanceError):
        policy.max_attempts = 6  # type: ignore[misc]
    assert policy == RetryPolicy(max_attempts=5)
    assert policy != RetryPolicy(max_attempts=4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"max_attempts": 0}, "max_attempts must be an int >= 1, got 0", id="max-attempts-zero"),
        pytest.param(
            {"max_attempts": -2}, "max_attempts must be an int >= 1, got -2", id="max-attempts-negative"
        ),
        pytest.param(
            {"max_attempts": 2.0}, "max_attempts must be an int >= 1, got 2.0", id="max-attempts-float"
        ),
        pytest.param(
            {"max_attempts": True}, "max_attempts must be an int >= 1, got True", id="max-attempts-bool"
        ),
        pytest.param(
            {"base_delay": -0.1},
            "base_delay must be a finite number >= 0, got -0.1",
            id="base-delay-negative",
        ),
        pytest.param(
            {"base_delay": float("nan")},
            "base_delay must be a finite number >= 0, got nan",
            id="base-delay-nan",
        ),
        pytest.param(
            {"base_delay": "1"}, "base_delay must be a finite number >= 0, got '1'", id="base-delay-str"
        ),
        pytest.param(
            {"max_delay": -1}, "max_delay must be a finite number >= 0, got -1", id="max-delay-negative"
        ),
        pytest.param(
            {"max_delay": float("inf")}, "max_delay must be a finite number >= 0, got inf", id="max-delay-inf"
        ),
        pytest.param(
            {"jitter": -0.01}, "jitter must be a number between 0 and 1, got -0.01", id="jitter-negative"
        ),
        pytest.param(
            {"jitter": 1.5}, "jitter must be a number between 0 and 1, got 1.5", id="jitter-above-one"
        ),
        pytest.param(
            {"jitter": float("nan")}, "jitter must be a number between 0 and 1, got nan", id="jitter-nan"
        ),
        pytest.param(
            {"retry_on": (ValueError, "KeyError")},
            "retry_on must be a tuple of exception classes, got",
            id="retry-on-str-item",
        ),
        pytest.param(
            {"retry_on": (ValueError(),)},
            "retry_on must be a tuple of exception classes, got",
            id="retry-on-instance",
        ),
        pytest.param(
            {"retry_on": (int,)},
            "retry_on must be a tuple of exception classes, got",
            id="retry-on-non-exception-class",
        ),
        pytest.param(
            {"retry_on": "TimeoutError"},
            "retry_on must be a tuple of exception classes, got 'TimeoutError'",
            id="retry-on-str",
        ),
        pytest.param(
            {"retry_on": None}, "retry_on must be a tuple of exception classes, got None", id="retry-on-none"
        ),
        pytest.param({"retry_timeouts": 1}, "retry_timeouts must be a bool, got 1", id="retry-timeouts-int"),
    ],
)
def test_invalid_policy_fields_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="^RetryPolicy: " + re.escape(message)):
        RetryPolicy(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"max_attempts": 1}, id="one-attempt"),
        pytest.param({"base_delay": 0, "max_delay": 0}, id="zero-delays-as-int"),
        pytest.param({"jitter": 0}, id="jitter-zero"),
        pytest.param({"jitter": 1}, id="jitter-one"),
        pytest.param({"retry_on": (BaseException,)}, id="base-exception"),
    ],
)
def test_boundary_policy_fields_are_accepted(kwargs: dict[str, Any]) -> None:
    RetryPolicy(**kwargs)


# -- CircuitBreaker: construction --------------------------------------------------


def test_breaker_starts_closed() -> None:
    breaker = CircuitBreaker(clock=FakeClock())
    assert breaker.snapshot() == {"state": "closed", "failures": 0, "opened_at": None, "retry_at": None}
    assert breaker.state is CircuitState.CLOSED
    assert (breaker.failure_threshold, breaker.reset_timeout) == (5, 30.0)
    assert breaker.before_call() is None


def test_breaker_default_clock_is_monotonic() -> None:
    breaker = CircuitBreaker(failure_threshold=1, reset_timeout=1000.0)
    breaker.record_failure()
    wait = breaker.before_call()
    assert wait is not None
    assert 999.0 < wait <= 1000.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param(
            {"failure_threshold": 0}, "failure_threshold must be an int >= 1, got 0", id="threshold-zero"
        ),
        pytest.param(
            {"failure_threshold": 2.5}, "failure_threshold must be an int >= 1, got 2.5", id="threshold-float"
        ),
        pytest.param(
            {"failure_threshold": True},
            "failure_threshold must be an int >= 1, got True",
            id="threshold-bool",
        ),
        pytest.param(
            {"reset_timeout": -1.0},
            "reset_timeout must be a finite number >= 0, got -1.0",
            id="reset-negative",
        ),
        pytest.param(
            {"reset_timeout": float("inf")},
            "reset_timeout must be a finite number >= 0, got inf",
            id="reset-inf",
        ),
        pytest.param(
            {"reset_timeout": None}, "reset_timeout must be a finite number >= 0, got None", id="reset-none"
        ),
        pytest.param(
            {"clock": 12.0},
            "clock must be a callable returning seconds, or None, got 12.0",
            id="clock-not-callable",
        ),
    ],
)
def test_invalid_breaker_arguments_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="^CircuitBreaker: " + re.escape(message) + "$"):
        CircuitBreaker(**kwargs)


# -- CircuitBreaker: transitions ---------------------------------------------------


def open_breaker(clock: FakeClock, threshold: int = 3, reset_timeout: float = 30.0) -> CircuitBreaker:
    breaker = CircuitBreaker(failure_threshold=threshold, reset_timeout=reset_timeout, clock=clock)
    for _ in range(threshold):
        breaker.record_failure()
    return breaker


def test_breaker_stays_closed_below_threshold() -> None:
    breaker = CircuitBreaker(failure_threshold=3, clock=FakeClock())
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.snapshot() == {"state": "closed", "failures": 2, "opened_at": None, "retry_at": None}
    assert breaker.before_call() is None


def test_breaker_opens_at_threshold() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock, threshold=3, reset_timeout=30.0)
    assert breaker.snapshot() == {"state": "open", "failures": 3, "opened_at": 100.0, "retry_at": 130.0}
    assert breaker.state == "open"


@pytest.mark.parametrize(
    ("elapsed", "expected"),
    [
        pytest.param(0.0, 30.0, id="just-opened"),
        pytest.param(12.5, 17.5, id="part-way"),
        pytest.param(29.75, 0.25, id="almost"),
    ],
)
def test_open_breaker_answers_with_seconds_left(elapsed: float, expected: float) -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(elapsed)
    assert breaker.before_call() == expected
    assert breaker.state is CircuitState.OPEN


def test_open_breaker_stays_open_until_asked() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(60.0)
    assert breaker.state is CircuitState.OPEN


@pytest.mark.parametrize(
    "elapsed", [pytest.param(30.0, id="exactly-reset-timeout"), pytest.param(45.0, id="later")]
)
def test_half_open_lets_one_trial_through(elapsed: float) -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(elapsed)
    assert breaker.before_call() is None
    assert breaker.snapshot() == {
        "state": "half_open",
        "failures": 3,
        "opened_at": 100.0,
        "retry_at": 100.0 + elapsed + 30.0,
    }


def test_half_open_refuses_a_second_caller_until_the_trial_would_be_lost() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(30.0)
    assert breaker.before_call() is None  # the trial, begun at 130
    assert breaker.before_call() == 30.0
    clock.advance(1.0)
    assert breaker.before_call() == 29.0
    assert breaker.state is CircuitState.HALF_OPEN


def test_trial_that_never_reports_is_replaced_after_reset_timeout() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(30.0)
    assert breaker.before_call() is None
    clock.advance(30.0)
    assert breaker.before_call() is None  # a new trial
    assert breaker.before_call() == 30.0
    assert breaker.retry_at == 190.0


def test_trial_success_closes_and_resets() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(30.0)
    assert breaker.before_call() is None
    breaker.record_success()
    assert breaker.snapshot() == {"state": "closed", "failures": 0, "opened_at": None, "retry_at": None}
    assert [breaker.before_call() for _ in range(3)] == [None, None, None]


def test_trial_failure_reopens_for_another_reset_timeout() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(30.0)
    assert breaker.before_call() is None
    clock.advance(2.0)
    breaker.record_failure()
    assert breaker.snapshot() == {"state": "open", "failures": 4, "opened_at": 132.0, "retry_at": 162.0}
    assert breaker.before_call() == 30.0
    clock.advance(30.0)
    assert breaker.before_call() is None


def test_success_resets_consecutive_failures() -> None:
    breaker = CircuitBreaker(failure_threshold=3, clock=FakeClock())
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.snapshot() == {"state": "closed", "failures": 2, "opened_at": None, "retry_at": None}
    breaker.record_failure()
    assert breaker.state is CircuitState.OPEN


def test_late_failure_while_open_is_counted_but_does_not_extend_the_wait() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    clock.advance(10.0)
    breaker.record_failure()
    assert breaker.snapshot() == {"state": "open", "failures": 4, "opened_at": 100.0, "retry_at": 130.0}
    assert breaker.before_call() == 20.0


def test_late_success_while_open_closes() -> None:
    breaker = open_breaker(FakeClock())
    breaker.record_success()
    assert breaker.state is CircuitState.CLOSED
    assert breaker.before_call() is None


def test_threshold_of_one_opens_on_first_failure() -> None:
    breaker = CircuitBreaker(failure_threshold=1, reset_timeout=5.0, clock=FakeClock(0.0))
    breaker.record_failure()
    assert breaker.before_call() == 5.0


def test_zero_reset_timeout_allows_a_trial_at_once() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock, reset_timeout=0.0)
    assert breaker.state is CircuitState.OPEN
    assert breaker.before_call() is None
    assert breaker.state is CircuitState.HALF_OPEN


def test_reset_forgets_everything() -> None:
    clock = FakeClock(100.0)
    breaker = open_breaker(clock)
    breaker.reset()
    assert breaker.snapshot() == {"state": "closed", "failures": 0, "opened_at": None, "retry_at": None}
    assert breaker.before_call() is None


def test_clock_is_not_read_while_closed() -> None:
    reads: list[None] = []

    def clock() -> float:
        reads.append(None)
        return 0.0

    breaker = CircuitBreaker(failure_threshold=2, clock=clock)
    breaker.before_call()
    breaker.record_failure()
    breaker.record_success()
    assert reads == []


def test_repr_shows_state_and_configuration() -> None:
    breaker = CircuitBreaker(failure_threshold=2, reset_timeout=10, clock=FakeClock())
    breaker.record_failure()
    assert (
        repr(breaker) == "CircuitBreaker(state='closed', failures=1, failure_threshold=2, reset_timeout=10.0)"
    )


def test_circuit_state_values_are_the_logged_names() -> None:
    assert [state.value for state in CircuitState] == ["closed", "open", "half_open"]
    assert CircuitState.HALF_OPEN == "half_open"


# -- CircuitBreaker: threads -------------------------------------------------------

THREADS = 8
ROUNDS = 500


def run_together(work: Callable[[int], None]) -> list[BaseException]:
    """Run ``work(i)`` in THREADS threads released at once; return what they raised."""
    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []
    errors_lock = threading.Lock()

    def target(index: int) -> None:
        try:
            barrier.wait()
            work(index)
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread
            with errors_lock:
                errors.append(exc)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    return errors


def test_threads_hammering_failures_leave_a_consistent_state() -> None:
    clock = FakeClock(100.0)
    breaker = CircuitBreaker(failure_threshold=5, reset_timeout=30.0, clock=clock)
    answers: list[list[Optional[float]]] = [[] for _ in range(THREADS)]

    def work(index: int) -> None:
        for _ in range(ROUNDS):
            answers[index].append(breaker.before_call())
            breaker.record_failure()
            _ = (breaker.state, breaker.failures, breaker.snapshot())

    assert run_together(work) == []
    assert breaker.snapshot() == {
        "state": "open",
        "failures": THREADS * ROUNDS,
        "opened_at": 100.0,
        "retry_at": 130.0,
    }
    # The clock never moved, so once open no call got through, and at most
    # threshold - 1 other calls could be let in before the 5th failure opened it.
    admitted = sum(answer is None for per_thread in answers for answer in per_thread)
    refused = {answer for per_thread in answers for answer in per_thread if answer is not None}
    assert 1 <= admitted <= 5 + THREADS - 1
    assert refused == {30.0}


def test_concurrent_callers_get_exactly_one_trial() -> None:
    clock = FakeClock(100.0, pause=0.01)
    breaker = open_breaker(clock)
    clock.advance(30.0)
    answers: list[Optional[float]] = [0.0] * THREADS

    def work(index: int) -> None:
        answers[index] = breaker.before_call()

    assert run_together(work) == []
    assert answers.count(None) == 1
    assert sorted(answer for answer in answers if answer is not None) == [30.0] * (THREADS - 1)
    assert breaker.state is CircuitState.HALF_OPEN
    assert clock.most_readers == 1  # the clock is read under the breaker's lock


def test_threads_mixing_successes_and_failures_keep_counts_sane() -> None:
    clock = FakeClock(0.0)
    breaker = CircuitBreaker(failure_threshold=3, reset_timeout=0.0, clock=clock)

    def work(index: int) -> None:
        for round_ in range(ROUNDS):
            breaker.before_call()
            if (index + round_) % 4 == 0:
                breaker.record_success()
            else:
                breaker.record_failure()
            snap = breaker.snapshot()
            assert snap["state"] in {"closed", "open", "half_open"}
            assert snap["failures"] >= 0
            assert (snap["opened_at"] is None) == (snap["state"] == "closed")

    assert run_together(work) == []
    breaker.record_success()
    assert breaker.snapshot() == {"state": "closed", "failures": 0, "opened_at": None, "retry_at": None}
